/**
 * Listing → Pre-Deliver Tickets: every item checked first (nothing is sent while one is refused, unless errors
 * continue); one upload per listing through Create's pacing and request path, skipping listings delivered before
 * (Create's memory, keyed by the upload's address); one output item per input item.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { errorText, listFirst, withMoreDescription } from '../../../helpers/errors';
import { showsCreated } from '../../../helpers/answerEvidence';
import { readRunCredential, RequestPacer, sendRequest } from '../../../transport';
import type { RunCredential } from '../../../transport';
import { PARTNER_API_PATHS, subjectOf } from '../../../transport/fromCredential';
import { outcomeOfRequest, rememberedAs } from '../create/outcome';
import type { Outcome } from '../create/outcome';
import { readSendSettings } from '../create/settings';
import type { SendSettings } from '../create/settings';
import { RunMemory } from '../memory/runMemory';
import type { MemoryAccount } from '../memory/sentListings';
import { failureJson } from '../create/output';
import { memoryAccount } from '../create/send';
import { mapExternalIds } from './byExternalId';
import { partName, readTickets, ticketsTag, uploadRequest } from './tickets';
import type { Ticket } from './tickets';

export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	const given = await readTickets(this, items);
	const valid = given.some((ticket) => !(ticket instanceof Error));
	const credential = valid ? await readRunCredential.call(this) : undefined;
	const account = credential && memoryAccount(credential);
	const read = account ? await mapExternalIds(this, given, account) : given;
	const byListing = new Map<string, Ticket[]>();
	for (const ticket of read)
		if (!(ticket instanceof Error))
			byListing.set(ticket.listingId, [...(byListing.get(ticket.listingId) ?? []), ticket]);
	const settings = readSendSettings(this);
	const outcomes = byListing.size
		? await deliver(this, byListing, settings, credential!, account!)
		: new Map();
	const failed = [...outcomes].find(([, o]) => o.kind === 'unknown' || o.kind === 'notCreated');
	if (failed && !this.continueOnFail()) {
		const [listingId, outcome] = failed as [string, Extract<Outcome, { error: unknown }>];
		const at = byListing.get(listingId)![0].itemIndex;
		throw withMoreDescription(this.getNode(), outcome.error, [summary(outcomes)], at);
	}
	const errorOutput = this.getNode().onError === 'continueErrorOutput';
	return read.map((ticket, item) => {
		const json =
			ticket instanceof Error
				? { status: 'invalid', error: ticket.message, description: ticket.description ?? null }
				: ticketJson(ticket, byListing.get(ticket.listingId)!, outcomes.get(ticket.listingId)!);
		const routed = errorOutput && typeof json.error === 'string';
		const said = routed ? { error: json.error, message: String(json.description ?? '') } : json;
		return { json: said, pairedItem: { item } };
	});
}

/** Uploads every listing not delivered before by this workflow; returns each listing's outcome. */
async function deliver(
	context: IExecuteFunctions,
	byListing: Map<string, Ticket[]>,
	settings: SendSettings,
	credential: RunCredential,
	{ baseUrl, email }: MemoryAccount,
): Promise<Map<string, Outcome>> {
	const account = { baseUrl: `${baseUrl}${PARTNER_API_PATHS.preDeliver}`, email };
	const memory = settings.skipAlreadySent ? new RunMemory(context, account) : undefined;
	// The memory keeps IDs as text in its keys; Create's are numbers, the marketplace's listing IDs need not be.
	const asIds = (ids: string[]) => ids as unknown as number[];
	// A listing is remembered with its tickets: the same listing with another ticket is sent again, with all of its.
	const memoryId = new Map([...byListing].map(([id, t]) => [id, `${id} tickets ${ticketsTag(t)}`]));
	const listingOf = new Map([...memoryId].map(([id, key]) => [key, id]));
	const ids = asIds([...memoryId.values()]);
	const before = memory ? (await memory.recordBeforeSending(ids)).alreadySent : new Map();
	const outcomes = new Map<string, Outcome>();
	for (const [key, earlier] of before)
		outcomes.set(listingOf.get(String(key))!, { kind: 'skipped', earlier });
	const toSend = [...byListing].filter(([id]) => !outcomes.has(id));
	await sendAll(context, toSend, settings, credential, outcomes);
	if (memory && toSend.length === 0) await memory.release();
	if (memory && toSend.length > 0) {
		const as = (word: string) =>
			asIds(
				toSend
					.filter(([id]) => rememberedAs(outcomes.get(id)!) === word)
					.map(([id]) => memoryId.get(id)!),
			);
		const { error } = await memory.afterSending(as('created'), as('unknown'), as('notCreated'));
		if (error && !context.continueOnFail())
			throw withMoreDescription(context.getNode(), error, [summary(outcomes)], 0);
		if (error) context.addExecutionHints({ message: error.message, location: 'outputPane' });
	}
	return outcomes;
}

/** One request per listing through one pacer: the same pace, quota, spike arrest and Stop as Create's. */
async function sendAll(
	context: IExecuteFunctions,
	listings: Array<[string, Ticket[]]>,
	settings: SendSettings,
	credential: RunCredential,
	outcomes: Map<string, Outcome>,
): Promise<void> {
	const stopOnFailure = !context.continueOnFail();
	const pacer = new RequestPacer(settings.mode, settings.maxConcurrency, stopOnFailure);
	const unsubscribe = pacer.closeOn(context.getExecutionCancelSignal?.());
	const sendOne = async ([listingId, tickets]: [string, Ticket[]]) => {
		const itemIndex = tickets[0].itemIndex;
		const request = uploadRequest(context, tickets);
		try {
			const options = { request, itemIndex, pacer, credential, confirmedBy: showsCreated };
			const sent = await sendRequest.call(context, options);
			outcomes.set(listingId, outcomeOfRequest(sent));
		} catch (thrown) {
			// Where it failed is unknown, so the upload may have gone: the other listings still get their turn.
			if (stopOnFailure) pacer.close();
			const message = `Outcome unknown: uploading the tickets of listing ${listingId} failed: ${errorText(thrown)}`;
			const description = subjectOf(request.path).howToCheck;
			const error = new NodeOperationError(context.getNode(), message, { description, itemIndex });
			outcomes.set(listingId, { kind: 'unknown', error });
		}
	};
	try {
		await Promise.all(listings.map(sendOne));
	} finally {
		unsubscribe();
	}
}

/** Each outcome's word in the outputs, and its group's in the error of a stopped run. */
const WORDS: Partial<Record<Outcome['kind'], [status: string, group: string]>> = {
	created: ['delivered', 'Delivered in this run'],
	notCreated: ['failed', 'Not delivered'],
	unknown: ['unknown', 'Outcome unknown, may have been delivered'],
	notSent: ['notSent', 'Not sent, the run stopped first'],
	skipped: ['skipped', 'Skipped, sent by this workflow before'],
};

const SKIPPED = {
	created:
		'Not sent: this workflow delivered these tickets before. To upload them again, turn off Options → Skip Listings Already Delivered.',
	unknown:
		'Not sent: an earlier run uploaded these tickets and got no answer saying whether they were delivered. Check the listing on the marketplace.',
};
const NOT_SENT = {
	error: 'Not sent: the run stopped before this listing was sent',
	description: 'Nothing was sent for it: run the workflow again.',
};

/** What an output item says of its ticket: its listing's outcome, the API's answer passed through as it came. */
function ticketJson(ticket: Ticket, tickets: Ticket[], outcome: Outcome): IDataObject {
	const { listingId, externalListingId, row, seat, fileName } = ticket;
	const part = partName(tickets.indexOf(ticket));
	const unknownBefore = outcome.kind === 'skipped' && outcome.earlier === 'unknown';
	const status = unknownBefore ? 'unknown' : (WORDS[outcome.kind]?.[0] ?? outcome.kind);
	const base = {
		status,
		listingId,
		externalListingId,
		row,
		seat,
		fileName: fileName ?? null,
		part,
	};
	if (outcome.kind === 'created')
		return { ...base, response: (outcome.body ?? null) as IDataObject };
	if (outcome.kind === 'skipped') return { ...base, message: SKIPPED[outcome.earlier] };
	if (!('error' in outcome)) return { ...base, ...NOT_SENT };
	return { ...base, ...failureJson(outcome, 'mayHaveBeenDelivered') };
}

/** Every listing in one line of its group, for the error of a stopped run. */
function summary(outcomes: Map<string, Outcome>): string {
	const lines = Object.entries(WORDS).map(([kind, [, group]]) => {
		const ids = [...outcomes].filter(([, o]) => o.kind === kind).map(([id]) => id);
		return ids.length ? `${group}: listing ${listFirst(ids)}.` : '';
	});
	return lines.filter(Boolean).join('\n');
}
