/** Listing → Create's send stage: skip what this workflow sent before, send the rest through one pacer, remember. */
import type { IExecuteFunctions, IN8nHttpFullResponse } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { namedValues, showsCreated } from '../../../../shared/partnerApi/evidence';
import { oneLine } from '../../../../shared/partnerApi/answerWords';
import { errorText, listFirst } from '../../../helpers/errors';
import { RunMemory, type EarlierOutcome } from '../memory/runMemory';
import { failureOf } from '../memory/memoryFailure';
import {
	beforeSendingError,
	nearCapWords,
	notCreatedStillRememberedLine,
	SentListingsStoreError,
} from '../memory/memoryMessages';
import type { MemoryAccount } from '../memory/sentListings';
import { TicketMemory } from '../memory/ticketMemory';
import { nearCap } from '../memory/verifiedStore';
import { runsAsAgentTool } from '../../../helpers/agentTool';
import {
	runSecrets,
	readRunCredential,
	redactSecrets,
	RequestPacer,
	sendRequest,
	type RunCredential,
} from '../../../transport';
import { seatName, type CreatedListing } from '../memory/createdListings';
import { howMany, validationError } from './output';
import { listingRequest } from './fields';
import type { Listing, Outcome, ReadyListing } from './nouns';
import { outcomeOfRequest, outcomesOf, rememberedAs, stopSummary } from './outcome';
import type { SendSettings } from './settings';
import { refuseTicketsOfEarlierRuns, ticketsOf } from './checkListing';

type Sent = Map<ReadyListing, Outcome>;

/** Sends every ready listing this workflow has not sent before; an invalid one comes out as such. */
export async function sendListings(
	context: IExecuteFunctions,
	listings: Listing[],
	settings: SendSettings,
): Promise<Map<Listing, Outcome>> {
	const anyReady = listings.some((listing) => listing.kind === 'ready');
	const credential = anyReady ? await readRunCredential.call(context) : undefined;
	const account = credential && memoryAccount(credential);
	const memory = settings.skipAlreadySent && account ? new RunMemory(context, account) : undefined;
	// Each tool call is a run of its own: its tickets are checked against earlier calls' too.
	const tickets = memory && runsAsAgentTool(context) && new TicketMemory(context, account!);
	const checked = tickets ? await refuseTicketsOfEarlierRuns(context, tickets, listings) : listings;
	// A ticket an earlier call listed refuses its listing as the read stage refuses one: nothing sent, unless Continue.
	const refused = tickets ? validationError(context, checked) : undefined;
	if (refused) throw refused;
	const ready = checked.filter((listing): listing is ReadyListing => listing.kind === 'ready');
	const alreadySent = memory
		? await recordBeforeSending(context, memory, ready)
		: new Map<number, EarlierOutcome>();
	const toSend = ready.filter((listing) => !alreadySent.has(listing.externalListingId));
	// Nothing is sent when the tickets about to be sent cannot be recorded.
	if (tickets)
		await tickets.record(ticketsOf(toSend)).catch((error: unknown) => {
			const ids = idsOf(toSend);
			throw beforeSendingError(context, failureOf(error), { ids, stillRemembered: ids });
		});
	const sent = credential
		? await sendThroughPacer(context, toSend, settings, credential)
		: new Map<ReadyListing, Outcome>();
	const outcomes = outcomesOf(checked, alreadySent, sent);
	if (memory && toSend.length === 0) await memory.release();
	const memoryError =
		memory && toSend.length > 0
			? await rememberOutcomes(context, memory, sent, outcomes, settings.rememberForPreDeliver)
			: undefined;
	if (settings.rememberForPreDeliver && !memory && sent.size > 0)
		warn(
			context,
			`Not remembered for Pre-Deliver Tickets: Remember Listings for Pre-Deliver needs the memory of sent listings, and Skip Listings Already Sent is off. Turn it on, or in Pre-Deliver Tickets choose Listing → By Marketplace Listing ID and map the id Create output.`,
		);
	// The tickets of listings the API provably did not create are free again.
	const notCreated = sentAs(sent, 'notCreated');
	if (tickets && !(await tickets.forget(ticketsOf(notCreated))))
		warn(
			context,
			`The tickets of listings not created (${idsOf(notCreated).join(', ')}) are still remembered as listed: a later call with them is refused. Clear Sent Listings History (All) forgets them.`,
		);
	if (memoryError && !context.continueOnFail()) throw memoryError;
	if (memoryError) warn(context, `${memoryError.message}. ${memoryError.description}`);
	return outcomes;
}

function warn(context: IExecuteFunctions, message: string): void {
	context.addExecutionHints({ message, location: 'outputPane', type: 'warning' });
}

/** One memory per marketplace account on one API. */
export function memoryAccount(credential: RunCredential): MemoryAccount {
	return { baseUrl: credential.baseUrl, email: String(credential.decrypted.data?.email ?? '') };
}

const sentAs = (sent: Sent, as: ReturnType<typeof rememberedAs>): ReadyListing[] =>
	[...sent].filter(([, outcome]) => rememberedAs(outcome) === as).map(([listing]) => listing);

const idsOf = (listings: ReadyListing[]) => listings.map((listing) => listing.externalListingId);

/** Records the listings before sending (a run dying half-way must not leave a created one unremembered). */
async function recordBeforeSending(
	context: IExecuteFunctions,
	memory: RunMemory,
	ready: ReadyListing[],
): Promise<Map<number, EarlierOutcome>> {
	const { alreadySent, count } = await memory.recordBeforeSending(idsOf(ready));
	// Its words load only then: a row well below the cap runs none of them.
	if (nearCap(count)) warn(context, nearCapWords(count));
	// A green run would hide these listings: the output pane says so.
	const unknown = ready.filter(({ externalListingId: id }) => alreadySent.get(id) === 'unknown');
	if (unknown.length)
		warn(
			context,
			`Skipped, outcome unknown: ${howMany(unknown)} sent by an earlier run that got no answer saying whether the API created them (${listFirst(idsOf(unknown))}). Look them up on the marketplace by External Listing ID; forget those that are not there with Listing → Clear Sent Listings History, then run the workflow again.`,
		);
	return alreadySent;
}

/** Forgets the listings provably not created, so a later run sends them; its error names those still held. */
async function rememberOutcomes(
	context: IExecuteFunctions,
	memory: RunMemory,
	sent: Sent,
	outcomes: Map<Listing, Outcome>,
	forPreDeliver: boolean,
): Promise<SentListingsStoreError | undefined> {
	const notCreated = sentAs(sent, 'notCreated');
	const { error, notForgotten } = await memory.afterSending(
		idsOf(sentAs(sent, 'created')),
		idsOf(sentAs(sent, 'unknown')),
		idsOf(notCreated),
		forPreDeliver ? await createdRecord(context, memory, sent) : [],
	);
	if (!error) return undefined;
	const stillRemembered = idsOf(notCreated).filter((id) => notForgotten.includes(id));
	const description = [
		error.description,
		stillRemembered.length > 0 && notCreatedStillRememberedLine(stillRemembered),
		stopSummary(outcomes, false),
	];
	return new SentListingsStoreError(context.getNode(), error.message, {
		description: description.filter(Boolean).join('\n'),
	});
}

/** The listings created with evidence, with the marketplace's ID and their seats, if the memory has room for them. */
async function createdRecord(
	context: IExecuteFunctions,
	memory: RunMemory,
	sent: Sent,
): Promise<CreatedListing[]> {
	const created = [...sent].flatMap(([{ externalListingId, products }, outcome]) => {
		const marketplaceId = outcome.kind === 'created' ? marketplaceIdOf(outcome.body) : undefined;
		const seats = products.flatMap(({ product }) => seatName(product) ?? []);
		return marketplaceId ? [{ externalListingId, marketplaceId, seats }] : [];
	});
	if (created.length === 0 || (await memory.fitsCreated(created))) return created;
	warn(
		context,
		`Not remembered for Pre-Deliver Tickets: the memory has no room left for the ${howMany(created)} this run created. Pre-Deliver Tickets cannot find them by External Listing ID: choose Listing → By Marketplace Listing ID there and map the id Create output, or forget listings you no longer list with Clear Sent Listings History.`,
	);
	return [];
}

async function sendThroughPacer(
	context: IExecuteFunctions,
	listings: ReadyListing[],
	{ mode, maxConcurrency }: SendSettings,
	credential: RunCredential,
): Promise<Sent> {
	const stopOnFailure = !context.continueOnFail();
	const pacer = new RequestPacer(mode, maxConcurrency, stopOnFailure, credential.renewal.tokenHeld);
	// Stop during a pause (a per-second limit's Retry-After) ends the waiting at once: they come out not sent.
	const unsubscribe = pacer.closeOn(context.getExecutionCancelSignal?.());
	const sendOne = async (listing: ReadyListing): Promise<Outcome> => {
		const { externalListingId } = listing;
		const itemIndex = listing.rows[0];
		try {
			// Without Continue On Fail a failure closes the pacer: requests in flight finish and are reported.
			const answer = await sendRequest.call(context, {
				request: listingRequest(listing),
				itemIndex,
				pacer,
				credential,
				confirmedBy: (response) => showsListingCreated(response, externalListingId),
				createsId: externalListingId,
			});
			return outcomeOfRequest(answer);
		} catch (thrown) {
			// Handling it failed, maybe after its request went: unknown; the others, memory and summary still get their turn.
			if (stopOnFailure) pacer.close();
			const said = redactSecrets(errorText(thrown), runSecrets(credential));
			const message = `Outcome unknown: handling External Listing ID ${externalListingId} failed unexpectedly`;
			const description = `n8n said: ${oneLine(said)}. The request may have reached the API: the listing may or may not have been created. Look it up on the marketplace by its External Listing ID before sending it again.`;
			const error = new NodeOperationError(context.getNode(), message, { description, itemIndex });
			return { kind: 'unknown', error };
		}
	};
	const outcomes = listings.map(async (listing) => [listing, await sendOne(listing)] as const);
	return new Map(await Promise.all(outcomes).finally(unsubscribe));
}

/** The API's evidence of a request done (apiAnswers.ts), in an answer that names no other External Listing ID. */
function showsListingCreated(answer: IN8nHttpFullResponse, externalListingId: number): boolean {
	if (!showsCreated(answer)) return false;
	// Wherever it names one and however spelt; a value that is not an ID names no ID of this listing either.
	return namedValues(answer.body, 'externallistingid').every(
		(named) =>
			named === null ||
			(['string', 'number'].includes(typeof named) &&
				String(named).trim() === String(externalListingId)),
	);
}

/** The marketplace's ID of a created listing (`id`, as Create outputs it): text or a whole number, never guessed. */
function marketplaceIdOf(body: unknown): string | undefined {
	const id = (body as Record<string, unknown> | null)?.id;
	if (typeof id === 'number' && Number.isSafeInteger(id)) return String(id);
	return typeof id === 'string' && id.trim() !== '' ? id.trim() : undefined;
}
