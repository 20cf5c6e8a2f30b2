/**
 * The outcome vocabulary at its boundary: what the transport says of a request becomes one outcome word (the answer
 * table's where a request was sent), and each word says what the memory keeps and whether the run stops.
 */
import { NodeApiError } from 'n8n-workflow';

import type { Listing } from '../../../../../../../nodes/TicketMarketplace/actions/listing/create/nouns';
import {
	firstFailure,
	outcomeOfRequest,
	rememberedAs,
} from '../../../../../../../nodes/TicketMarketplace/actions/listing/create/outcome';
import type { Outcome } from '../../../../../../../nodes/TicketMarketplace/actions/listing/create/nouns';

const NODE = {
	id: 'n',
	name: 'Ticket Marketplace',
	type: 'n8n-nodes-ticket-marketplace.ticketMarketplace',
	typeVersion: 1,
	position: [0, 0] as [number, number],
	parameters: {},
};
const error = new NodeApiError(NODE, {}, { message: 'refused' });

describe('outcome of a request: the transport answer in one word', () => {
	it.each([
		[
			{ kind: 'answered', body: { id: 1 }, effect: 'created' },
			{ kind: 'created', body: { id: 1 } },
		],
		[{ kind: 'notSent', effect: 'notCreated' }, { kind: 'notSent' }],
		[
			{ kind: 'failed', error, effect: 'alreadyListed', apiCode: 'x.exists' },
			{ kind: 'alreadyListed', error, apiCode: 'x.exists' },
		],
		[
			{ kind: 'failed', error, effect: 'unknown' },
			{ kind: 'unknown', error },
		],
		[
			{ kind: 'failed', error, effect: 'notCreated' },
			{ kind: 'notCreated', error },
		],
	] as const)('%j is %j', (sent, outcome) => {
		expect(outcomeOfRequest(sent as Parameters<typeof outcomeOfRequest>[0])).toEqual(outcome);
	});
});

describe('outcome words: what the memory keeps, and what stops the run', () => {
	const cases: Array<[Outcome, ReturnType<typeof rememberedAs>, boolean]> = [
		[{ kind: 'created', body: {} }, 'created', false],
		[{ kind: 'alreadyListed', error }, 'created', false],
		[{ kind: 'unknown', error }, 'unknown', true],
		[{ kind: 'notCreated', error }, 'notCreated', true],
		[{ kind: 'notSent' }, 'notCreated', false],
		[{ kind: 'skipped', earlier: 'created' }, undefined, false],
		[{ kind: 'invalid' }, undefined, false],
	];
	it.each(cases)('%j: remembered as %s, stops the run: %s', (outcome, remembered, stops) => {
		const listing = { kind: 'invalid', rows: [0], label: 'row 1', problems: [] } as Listing;
		expect(rememberedAs(outcome)).toBe(remembered);
		expect(firstFailure(new Map([[listing, outcome]])) !== undefined).toBe(stops);
	});
});
