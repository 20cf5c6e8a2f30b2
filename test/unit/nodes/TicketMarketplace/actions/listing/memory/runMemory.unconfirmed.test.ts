/**
 * A run whose record before sending could not be confirmed (the store wrote the keys, then failed the looks that
 * verify the write) sends nothing, so it must not leave its listings remembered: a later run must send them. Each
 * check runs the real execute() with a store that fails only the four verifying looks.
 */
import nock from 'nock';
import type { IDataObject } from 'n8n-workflow';

import { execute } from '../../../../../../../nodes/TicketMarketplace/actions/listing/create.operation';
import { PARTNER_API_PATHS } from '../../../../../../../nodes/shared/partnerApi/paths';
import { fileItem, pdfBytes } from '../../../../../../../support/fakeN8n/binaryItems';
import { grantTokens } from '../../../../../../../support/partnerApiNock';
import { acceptUploads, run } from '../../../../../../../support/preDeliverRuns';
import {
	fakeRun,
	MemoryDeduplicationStore,
	oneSeatListings,
	BASE,
} from '../../../../../../../support/fakeN8n/actionContext';

/** Fails checkProcessedAndRecord at the given calls (1-based), as a database briefly locked would. */
class FlakyStore extends MemoryDeduplicationStore {
	private recordCalls = 0;
	constructor(private readonly failing: number[]) {
		super();
	}
	override helpers(caller?: string) {
		const helpers = super.helpers(caller);
		return {
			...helpers,
			checkProcessedAndRecord: async (values: Array<string | number>, scope: string) => {
				this.recordCalls++;
				if (this.failing.includes(this.recordCalls))
					throw new Error('SQLITE_BUSY: database is locked');
				return await helpers.checkProcessedAndRecord(values, scope);
			},
		};
	}
}

function creatingApi(): number[] {
	const received: number[] = [];
	nock(BASE)
		.persist()
		.post(PARTNER_API_PATHS.grant)
		.query(true)
		.reply(200, { access_token: 'tok-review5-0123456789' })
		.post(PARTNER_API_PATHS.listings)
		.reply((_uri, body) => {
			const id = Number((body as IDataObject).externalListingId);
			received.push(id);
			return [201, { listingId: `L-${id}` }];
		});
	return received;
}

afterEach(() => nock.cleanAll());

describe('a record before sending that wrote but could not be confirmed', () => {
	it('leaves nothing remembered, so the next run sends the listing', async () => {
		// Call 1 writes the run's keys; calls 2-5 are the four looks that would confirm it: all fail.
		const store = new FlakyStore([2, 3, 4, 5]);
		const received = creatingApi();
		const first = oneSeatListings([7]);
		const failing = fakeRun({ ...first, deduplication: store });
		await expect(execute.call(failing.context, first.items)).rejects.toThrow();
		expect(received).toEqual([]);

		const again = oneSeatListings([7]);
		const next = fakeRun({ ...again, deduplication: store });
		await execute.call(next.context, again.items);
		// Listing 7 was never sent: the next run sends it, rather than hold it as "outcome unknown" for good.
		expect(received).toEqual([7]);
	});

	it('Pre-deliver: the listing is uploaded by the next run, not held as "outcome unknown" for good', async () => {
		const store = new FlakyStore([2, 3, 4, 5]);
		const ticket = fileItem({ listing: '9001', row: 'A', seat: '1' }, pdfBytes('A1'), 'A1.pdf');
		grantTokens('tok-pdf', 2);
		const uploads = acceptUploads();
		await expect(run([ticket], { deduplication: store }).output()).rejects.toThrow();
		expect(uploads).toHaveLength(0);

		const next = await run([ticket], { deduplication: store, continueOnFail: true }).output();
		expect({ uploads: uploads.length, status: next[0].json.status }).toEqual({
			uploads: 1,
			status: 'delivered',
		});
	});
});
