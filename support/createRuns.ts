/** Listing → Create run against nock'd answers: what one answer makes of a listing, and of the run after it. */
import nock from 'nock';
import type { INodeExecutionData } from 'n8n-workflow';

import { execute } from '../nodes/TicketMarketplace/actions/listing/create.operation';
import {
	fakeRun,
	MemoryDeduplicationStore,
	oneSeatListings,
	type ParameterValue,
} from './fakeN8n/actionContext';
import { answerListings, grantTokens } from './partnerApiNock';

export const JSON_TYPE = { 'Content-Type': 'application/json' };
let tokens = 0;
/** A new access token each time: a run never meets the last one's. */
export const token = () => `tok-create-run-${++tokens}-0000`;

export async function runCreate(
	items: INodeExecutionData[],
	parameters: Record<string, ParameterValue>,
	deduplication = new MemoryDeduplicationStore(),
) {
	const fake = fakeRun({ parameters, items, continueOnFail: true, deduplication });
	return await execute.call(fake.context, items);
}

/** One listing answered `answer`, then a second run against an API that creates it: what each run did. */
export async function answeredThenRunAgain(id: number, answer: [number, unknown]) {
	const store = new MemoryDeduplicationStore();
	const { items, parameters } = oneSeatListings([id], { output: 'row' });
	grantTokens(token());
	answerListings(() => [answer[0], answer[1], JSON_TYPE]);
	const first = await runCreate(items, parameters, store);
	nock.cleanAll();
	grantTokens(token());
	const sentAgain = answerListings(() => [201, { id: `L-${id}` }]);
	const second = await runCreate(items, parameters, store);
	return { first: first[0].json, second: second[0].json, sentAgain };
}

/** The listing status one answer gives listing 1. */
export async function statusOf(status: number, body: unknown) {
	grantTokens(token());
	answerListings(() => [status, body, JSON_TYPE]);
	const { items, parameters } = oneSeatListings([1], { output: 'row' });
	const out = await runCreate(items, parameters);
	return out[0].json.listingStatus;
}
