/** Pre-Deliver Tickets: items checked first; one upload per listing via Create's pacing, request path and memory. */
import type {
	IDataObject,
	IExecuteFunctions,
	IN8nHttpFullResponse,
	INodeExecutionData,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { errorText, listFirst, withMoreDescription } from '../../../helpers/errors';
import { readRunCredential, RequestPacer, sendRequest } from '../../../transport';
import type { RunCredential } from '../../../transport';
import { PARTNER_API_PATHS } from '../../../../shared/partnerApi/paths';
import { subjectOf } from '../../../../shared/partnerApi/answerWords';
import { asRecord, fieldOf } from '../../../../shared/partnerApi/apiAnswers';
import {
	failedStatus,
	isNo,
	namedValues,
	showsCreated,
} from '../../../../shared/partnerApi/evidence';
import { groupBy } from '../create/fields';
import { firstFailure, outcomeOfRequest, rememberedAs } from '../create/outcome';
import type { Outcome } from '../create/nouns';
import { readSendSettings, type SendSettings } from '../create/settings';
import { RunMemory, type EarlierOutcome } from '../memory/runMemory';
import { failureJson, howMany } from '../create/output';
import { seatName } from '../memory/createdListings';
import { memoryAccount } from '../create/send';
import { checkedTickets, partName, readEach, ticketAt, ticketKeys, uploadRequest } from './tickets';
import type { Ticket } from './tickets';

export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	const given = await readEach(this, items, (itemIndex) => ticketAt(this, itemIndex));
	const valid = given.some((ticket) => !(ticket instanceof Error));
	const credential = valid ? await readRunCredential.call(this) : undefined;
	const read = await checkedTickets(this, given, credential && memoryAccount(credential));
	const sendable = read.filter((ticket): ticket is Ticket => !(ticket instanceof Error));
	const byListing = groupBy(sendable, (ticket) => ticket.listingId);
	const settings = readSendSettings(this);
	const outcomes = byListing.size
		? await deliver(this, byListing, settings, credential!)
		: new Map<string, Outcome>();
	const failed = firstFailure(outcomes);
	if (failed && !this.continueOnFail()) {
		const at = byListing.get(failed[0])![0].itemIndex;
		throw withMoreDescription(this.getNode(), failed[1].error, [summary(outcomes)], at);
	}
	const errorOutput = this.getNode().onError === 'continueErrorOutput';
	return read.map((ticket, item) => {
		const json =
			ticket instanceof Error
				? { status: 'invalid', error: ticket.message, description: ticket.description ?? null }
				: ticketJson(ticket, byListing.get(ticket.listingId)!, outcomes.get(ticket.listingId)!);
		const routed = errorOutput && typeof json.error === 'string';
		// n8n sends an item with an empty message to the success output.
		const message = String(json.description || json.error);
		return { json: routed ? { error: json.error, message } : json, pairedItem: { item } };
	});
}

/** Uploads every listing this workflow has not delivered before; returns each listing's outcome. */
async function deliver(
	context: IExecuteFunctions,
	byListing: Map<string, Ticket[]>,
	{ skipAlreadySent: skip, mode, maxConcurrency }: SendSettings,
	credential: RunCredential,
) {
	const { baseUrl, email } = memoryAccount(credential);
	const memory = new RunMemory(context, { baseUrl: baseUrl + PARTNER_API_PATHS.preDeliver, email });
	const { keysOf, outcomes, added, looks } = await recordBefore(memory, skip, byListing);
	const toSend = [...byListing].filter(([id]) => !outcomes.has(id));
	// One pacer: the same pace, quota, spike arrest and Stop as Create's.
	const held = credential.renewal.tokenHeld;
	const pacer = new RequestPacer(mode, maxConcurrency, !context.continueOnFail(), held);
	const unsubscribe = pacer.closeOn(context.getExecutionCancelSignal?.());
	const sendOne = async ([listingId, tickets]: [string, Ticket[]]) => {
		const itemIndex = tickets[0].itemIndex;
		// Its listing ID was checked to fit an address, so building it cannot fail.
		const request = uploadRequest(context, tickets);
		try {
			const confirmedBy = (answer: IN8nHttpFullResponse) => showsDelivered(answer, tickets);
			const options = { request, itemIndex, pacer, credential, confirmedBy };
			outcomes.set(listingId, outcomeOfRequest(await sendRequest.call(context, options)));
		} catch (thrown) {
			// Where it failed is unknown, so it may have gone; the other listings still get their turn.
			if (!context.continueOnFail()) pacer.close();
			const message = `Outcome unknown: uploading the tickets of listing ${listingId} failed: ${errorText(thrown)}`;
			const description = subjectOf(request.path).howToCheck;
			const error = new NodeOperationError(context.getNode(), message, { description, itemIndex });
			outcomes.set(listingId, { kind: 'unknown', error });
		}
	};
	await Promise.all(toSend.map(sendOne)).finally(unsubscribe);
	// A run that goes on must not hide listings skipped after an unknown outcome: a warning above the output says so.
	const unknownBefore = [...outcomes.values()].filter(isUnknownBefore);
	const message = `Not sent, outcome unknown: ${howMany(unknownBefore)} for which an earlier run did not learn whether the tickets were delivered. ${CHECK_UNKNOWN}`;
	if (unknownBefore.length)
		context.addExecutionHints({ message, location: 'outputPane', type: 'warning' });
	if (toSend.length === 0 && looks.length === 0) {
		if (skip) await memory.release();
		return outcomes;
	}
	// With the option off, deliveries only are remembered: they settle an unknown outcome.
	const keysAs = (word: string) =>
		toSend
			.filter(([id]) => (skip || word === 'created') && rememberedAs(outcomes.get(id)!) === word)
			.flatMap(([id]) => (word === 'notCreated' ? added(id) : keysOf.get(id)!));
	const [created, unknown, notCreated] = ['created', 'unknown', 'notCreated'].map(keysAs);
	const { error } = await memory.afterSending(created, unknown, [...notCreated, ...looks]);
	if (error && skip && !context.continueOnFail())
		throw withMoreDescription(context.getNode(), error, [summary(outcomes)], 0);
	if (error) context.addExecutionHints({ message: error.message, location: 'outputPane' });
	return outcomes;
}

/** Records each ticket before sending; the listings skipped: all delivered before, or one of unknown outcome. */
async function recordBefore(memory: RunMemory, skip: boolean, byListing: Map<string, Ticket[]>) {
	// Each ticket remembered on its own: a run bringing a listing with a ticket more or fewer finds what was sent.
	const keysOf = new Map([...byListing].map(([id, tickets]) => [id, ticketKeys(id, tickets)]));
	const recorded = skip ? await memory.recordBeforeSending([...keysOf.values()].flat()) : undefined;
	const earlier = recorded?.alreadySent ?? new Map<number, EarlierOutcome>();
	const outcomes = new Map<string, Outcome>();
	for (const [id, keys] of keysOf) {
		const before = keys.map((key) => earlier.get(key));
		// One ticket of unknown outcome holds its whole listing: that upload may have gone through.
		if (before.includes('unknown')) outcomes.set(id, { kind: 'skipped', earlier: 'unknown' });
		else if (before.every((outcome) => outcome === 'created'))
			outcomes.set(id, { kind: 'skipped', earlier: 'created' });
	}
	// What this run added to the memory: what a provable refusal, or a skip, forgets.
	const added = (id: string) => keysOf.get(id)!.filter((key) => !earlier.has(key));
	return { keysOf, outcomes, added, looks: [...outcomes.keys()].flatMap(added) };
}

const isUnknownBefore = (outcome: Outcome) =>
	outcome.kind === 'skipped' && outcome.earlier === 'unknown';
/** Skipped after an unknown outcome is still of unknown outcome, in the outputs and in a stopped run's error. */
const kindOf = (outcome: Outcome) => (isUnknownBefore(outcome) ? 'unknown' : outcome.kind);

/** Each outcome's status in the outputs, and its group in the error of a stopped run. */
const WORDS: Partial<Record<Outcome['kind'], [status: string, group: string]>> = {
	created: ['delivered', 'Delivered in this run'],
	notCreated: ['failed', 'Not delivered'],
	unknown: ['unknown', 'Outcome unknown, may have been delivered'],
	notSent: ['notSent', 'Not sent, the run stopped first'],
	skipped: ['skipped', 'Skipped, sent by this workflow before'],
};
const SKIPPED =
	'Not sent: this workflow delivered these tickets before. To upload them again, turn off Options → Skip Listings Already Delivered.';
const CHECK_UNKNOWN =
	'Check the listing on the marketplace: if its tickets show no PDFs, upload them again by running once with Options → Skip Listings Already Delivered off.';
const UNKNOWN_BEFORE = {
	error:
		"Not sent, outcome unknown: an earlier run did not learn whether this listing's tickets were delivered",
	description: `They may have been delivered. ${CHECK_UNKNOWN}`,
	message: `Not sent: an earlier run did not learn whether this listing's tickets were delivered. ${CHECK_UNKNOWN}`,
	mayHaveBeenDelivered: true,
};
const NOT_SENT = {
	error: 'Not sent: the run stopped before this listing was sent',
	description: 'Nothing was sent for it: run the workflow again.',
};

/** What an output item says of its ticket: its listing's outcome, the API's answer passed through as it came. */
function ticketJson(ticket: Ticket, tickets: Ticket[], outcome: Outcome): IDataObject {
	const { listingId, externalListingId, row, seat, fileName = null } = ticket;
	const status = WORDS[kindOf(outcome)]?.[0] ?? outcome.kind;
	const part = partName(tickets.indexOf(ticket));
	const base = { status, listingId, externalListingId, row, seat, fileName, part };
	if (outcome.kind === 'created')
		return { ...base, response: (outcome.body ?? null) as IDataObject };
	if (isUnknownBefore(outcome)) return { ...base, ...UNKNOWN_BEFORE };
	if (outcome.kind === 'skipped') return { ...base, message: SKIPPED };
	if (!('error' in outcome)) return { ...base, ...NOT_SENT };
	return { ...base, ...failureJson(outcome, 'mayHaveBeenDelivered') };
}

/** Every listing in one line of its group, for the error of a stopped run. */
function summary(outcomes: Map<string, Outcome>): string {
	const lines = Object.entries(WORDS).map(([kind, [, group]]) => {
		const ids = [...outcomes].filter(([, o]) => kindOf(o) === kind).map(([id]) => id);
		return ids.length ? `${group}: listing ${listFirst(ids)}.` : '';
	});
	return lines.filter(Boolean).join('\n');
}

/** Evidence of a delivery: a success reporting no error whose products or tickets (if it lists them) say of none this
 * upload carried (by its part's name, else its row and seat) that it failed or was not delivered, as tickets it did
 * not carry may still wait; a listing's own `delivered: false` decides only without such a list. */
function showsDelivered(answer: IN8nHttpFullResponse, tickets: Ticket[]): boolean {
	const carried = new Set(tickets.flatMap((ticket, i) => [seatName(ticket), partName(i)]));
	const listed = ['products', 'tickets'].flatMap((name) => namedValues(answer.body, name)).flat();
	const read = listed.flatMap((entry) => {
		const field = (name: string) => fieldOf(asRecord(entry), name);
		const text = (name: string) => String(field(name) ?? '');
		const seated = field('row') != null || field('seat') != null;
		const bySeat = seated ? seatName({ row: text('row'), seat: text('seat') }) : undefined;
		const byName = carried.has(text('name'));
		const status = field('status') ?? field('state') ?? field('deliverystatus');
		const failed = failedStatus(status) || isNo(field('delivered'));
		// General Admission tickets all read GA: without a part's name, which one is meant is not known.
		const ga = bySeat === 'GA';
		const ours = byName || (bySeat !== undefined && carried.has(bySeat));
		return ours ? [{ failed, ga, unsure: ga && !byName }] : [];
	});
	// Fewer GA tickets shown delivered than this upload carried is a failure.
	const gaCarried = tickets.filter((ticket) => seatName(ticket) === 'GA').length;
	const gaDelivered = read.filter(({ ga, failed }) => ga && !failed).length;
	const gaFailed = read.some(({ unsure }) => unsure) && gaDelivered < gaCarried;
	const failed = gaFailed || read.some(({ failed, unsure }) => failed && !unsure);
	const said = ['delivered', 'uploaded'].flatMap((name) => namedValues(answer.body, name));
	return showsCreated(answer) && !failed && (listed.length > 0 || !said.some(isNo));
}
