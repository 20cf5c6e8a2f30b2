/**
 * A listing too large for one upload is refused with HTTP 413 and the node's own words: "Send this listing's tickets
 * in smaller groups, one run each (filter the items)". For a GA listing the second group must go: its tickets are
 * told apart from the first group's by their PDFs, not by their count in the run.
 */
import nock from 'nock';

import { MemoryDeduplicationStore } from '../../../../../../../support/fakeN8n/actionContext';
import { fileItem, pdfBytes } from '../../../../../../../support/fakeN8n/binaryItems';
import { grantTokens } from '../../../../../../../support/partnerApiNock';
import { acceptUploads, run } from '../../../../../../../support/preDeliverRuns';

const ga = (label: string) =>
	fileItem({ listing: '9001', ga: true, row: '', seat: '' }, pdfBytes(label), `${label}.pdf`);

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());

describe('a GA listing sent in smaller groups, as the 413 refusal says', () => {
	it('uploads the second group (other PDFs) instead of skipping it as delivered', async () => {
		const store = new MemoryDeduplicationStore();
		grantTokens('tok-pdf', 3);
		acceptUploads(
			413,
			{ fault: { faultstring: 'Body buffer overflow', detail: {} } },
			undefined,
			1,
		);
		const whole = await run([ga('GA1'), ga('GA2'), ga('GA3')], {
			continueOnFail: true,
			deduplication: store,
		}).output();
		expect(String(whole[0].json.description)).toMatch(/smaller groups, one run each/);

		acceptUploads(200, { ok: true }, undefined, 1);
		const first = await run([ga('GA1'), ga('GA2')], { deduplication: store }).output();
		expect(first.map((item) => item.json.status)).toEqual(['delivered', 'delivered']);

		const rest = acceptUploads();
		const second = await run([ga('GA3')], { deduplication: store }).output();
		// GA3's PDF was never uploaded: nothing the memory holds is this ticket.
		expect({ uploads: rest.length, status: second[0].json.status }).toEqual({
			uploads: 1,
			status: 'delivered',
		});
	});
});
