/**
 * The fault oracle's invariants, checked after every scenario over one run or two overlapping runs.
 * A broken one throws, naming it. Where n8n's store (one row, read and rewritten whole, no lock) makes a promise
 * impossible for overlapping runs, the exception is precise and counted: see `Window`.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { sentListingKey } from '../../nodes/TicketMarketplace/actions/listing/memory/sentListings';
import { RETRY_POLICY } from '../../nodes/TicketMarketplace/transport';
import { MEMORY_ACCOUNT } from '../fakeN8n/actionContext';
import type { SharedRowStore } from '../fakeN8n/sharedRowStore';
import type { FakePartnerApi } from './fakePartnerApi';
import type { RunResult, RunSettings } from './oracleRun';

/** `skippedUnknown`: not sent, because an earlier (or overlapping) run sent it and its outcome is not known. */
export type State = 'created' | 'skipped' | 'skippedUnknown' | 'refused' | 'unknown' | 'notSent';

/** How often overlapping runs hit what the store cannot prevent (each excused only where it happened). */
export interface Window {
	/** A listing two runs both sent and the API created twice. */
	createdTwice: number;
	/** A created or possibly created listing erased from the memory after its run's last record of it. */
	erasedForGood: number;
	/** A listing the API did not create brought back into the memory by a stale write after it was forgotten. */
	resurrected: number;
}

export interface World {
	api: FakePartnerApi;
	store: SharedRowStore;
	results: RunResult[];
	rememberedBefore: number[];
	/** Every wait asked of sleepWithAbort: how long, and whether it can be ended by Stop. */
	waits: Array<{ ms: number; abortable: boolean }>;
}

/** Attempts of one listing: each may be answered 401 and sent once more after n8n renews the token. */
export const MAX_ATTEMPTS =
	2 * (1 + RETRY_POLICY.maxRateLimitRetries + RETRY_POLICY.maxConnectionRetries);

function fail(invariant: string, detail: string): never {
	throw new Error(`${invariant} broken: ${detail}`);
}

/** The memory of the oracle's one account on its one API. */
const key = (id: number) => sentListingKey(MEMORY_ACCOUNT, id);

/** Each listing's state as the output items say it (per listing, per row, or the error output's words). */
export function stateOf(json: IDataObject, settings: RunSettings): State {
	if (
		settings.onError === 'continueErrorOutput' &&
		Object.keys(json).sort().join() === 'error,message'
	) {
		const message = String(json.message);
		if (message.startsWith('Not sent, outcome unknown')) return 'skippedUnknown';
		if (message.includes('may have been created')) return 'unknown';
		if (message.includes('not sent: the run stopped')) return 'notSent';
		return 'refused';
	}
	const detail = (settings.output === 'row' ? json.listingError : json) as IDataObject | undefined;
	if (settings.output === 'row') {
		if (json.listingStatus === 'created') return 'created';
		if (json.listingStatus === 'skipped') return 'skipped';
		// "unknown" is also the status of a request of unknown outcome in this run: that one carries its error.
		if (json.listingStatus === 'unknown' && detail?.error === undefined) return 'skippedUnknown';
	} else {
		if (json.status === 'skipped') return 'skipped';
		if (json.status === 'unknown') return 'skippedUnknown';
		if (json.listingId !== undefined) return 'created';
	}
	if (String(detail?.error).startsWith('Not sent')) return 'notSent';
	return detail?.mayHaveBeenCreated === true ? 'unknown' : 'refused';
}

/** Everything a run showed the user: output items, the error, the notices. */
function shown(result: RunResult): string {
	return (
		JSON.stringify(result.output ?? null) +
		String(result.thrown?.message) +
		String(result.thrown?.description) +
		result.hints.map((hint) => hint.message).join('\n')
	);
}

class StoreHistory {
	constructor(private readonly store: SharedRowStore) {}

	private calls(run: string, method: string) {
		return this.store.log.filter((call) => call.caller === run && call.method === method);
	}

	/** A store call of the run failed after its record before sending stood. */
	failedAfterSending(run: string, api: FakePartnerApi): boolean {
		return (
			api.seenBy(run).size > 0 && this.store.log.some((call) => call.caller === run && call.failed)
		);
	}

	/** When a run last wrote the ID into the memory (its record before sending, or its second look). */
	lastRecorded(run: string, id: number): number {
		return Math.max(
			-1,
			...this.calls(run, 'checkProcessedAndRecord')
				.filter((call) => !call.failed && call.values.includes(key(id)))
				.map((call) => call.writeAt ?? -1),
		);
	}

	forgotten(run: string, id: number): number | undefined {
		return this.calls(run, 'removeProcessed').find(
			(call) => !call.failed && call.values.includes(key(id)),
		)?.writeAt;
	}

	erasedAfter(id: number, at: number): boolean {
		return this.store.lostUpdates.some((lost) => lost.at > at && lost.erased.includes(key(id)));
	}

	resurrectedAfter(id: number, at: number): boolean {
		return this.store.lostUpdates.some(
			(lost) => lost.at > at && lost.resurrected.includes(key(id)),
		);
	}
}

function checkRun(world: World, result: RunResult): Map<number, State> {
	const { api } = world;
	const { run, settings, output } = result;
	const text = shown(result);
	for (const secret of api.secrets()) {
		if (text.includes(secret))
			fail('I4 (no secret in outputs)', `run ${run}: "${secret.slice(0, 6)}…" appears`);
	}
	if (!output) {
		// The memory failed before anything was sent: the run stops, whatever On Error says.
		const storeRefused = String(result.thrown?.description).startsWith('Nothing was sent.');
		if (settings.onError !== 'stop' && !storeRefused)
			fail('I1', `run ${run} threw with Continue: ${result.thrown?.message}`);
		if (storeRefused && api.seenBy(run).size > 0)
			fail('I2 (store failed before sending ⇒ nothing sent)', `run ${run}`);
		return new Map();
	}
	if (output.length !== settings.ids.length)
		fail('I6 (paired items)', `run ${run}: ${output.length} items`);
	output.forEach((item, index) => {
		const paired = JSON.stringify(item.pairedItem);
		if (paired !== JSON.stringify([{ item: index }]) && paired !== JSON.stringify({ item: index }))
			fail('I6 (paired items)', `run ${run} item ${index} paired with ${paired}`);
	});
	const states = new Map(
		output.map((item: INodeExecutionData, index) => [
			settings.ids[index],
			stateOf(item.json, settings),
		]),
	);
	for (const [id, state] of states) {
		const seen = api.seenBy(run).has(id);
		const created = api.createdBy(run).has(id);
		const where = `run ${run}, listing ${id}`;
		if (state === 'created' && !created) fail('I2 (created ⇒ held)', where);
		if ((state === 'skipped' || state === 'skippedUnknown' || state === 'notSent') && seen)
			fail(`I2 (${state} ⇒ never seen)`, where);
		if (state === 'refused' && created) fail('I2 (refused ⇒ not held)', where);
		// Refused means the API (or the token endpoint) answered no: a listing it never saw was not sent.
		if (state === 'refused' && !seen && !api.loginRefused)
			fail('I2 (refused ⇒ answered)', `${where}: never reached the API`);
		// A request in flight when the run is stopped is aborted by n8n: whether its bytes left cannot be known
		// (the fake API may not have read it yet), so it is reported unknown, the safe side.
		if (state === 'unknown' && !seen && !result.cancelled) fail('I2 (unknown ⇒ it left)', where);
	}
	if (settings.onError === 'continueErrorOutput') {
		output.forEach((item, index) => {
			const routed = Object.keys(item.json).sort().join() === 'error,message';
			const state = states.get(settings.ids[index]);
			if (routed !== (state !== 'created' && state !== 'skipped'))
				fail('I7 (error output)', `run ${run}, item ${index} (${String(state)}) routed: ${routed}`);
		});
	}
	return states;
}

/** Checks every invariant; returns what the store's window let through (always zero for a single run). */
export function checkInvariants(world: World): Window {
	const { api, store, results, rememberedBefore } = world;
	const history = new StoreHistory(store);
	const window: Window = { createdTwice: 0, erasedForGood: 0, resurrected: 0 };
	const states = new Map(results.map((result) => [result, checkRun(world, result)]));

	// I5: no wait beyond the cap, each one ended by Stop; bounded attempts per listing.
	for (const { ms, abortable } of world.waits) {
		if (ms > RETRY_POLICY.maxRetryAfterMs) fail('I5 (bounded waits)', `waited ${ms} ms`);
		if (!abortable)
			fail('I5 (Stop ends every wait)', `a wait of ${ms} ms without the cancel signal`);
	}
	for (const { run } of results) {
		for (const [id, count] of api.seenBy(run)) {
			if (count > MAX_ATTEMPTS)
				fail('I5 (bounded attempts)', `run ${run}: listing ${id} sent ${count} times`);
		}
		// I8: a refused login is tried once a run, not once a listing (which could lock the seller's account).
		if (api.loginRefused && (api.logins.get(run) ?? 0) > 1)
			fail(
				'I8 (one refused login a run)',
				`run ${run} asked for a token ${api.logins.get(run)} times`,
			);
	}
	// I4: the token goes to the Base URL only: no redirect is followed.
	if (api.elsewhere.length > 0) fail('I4 (no request elsewhere)', api.elsewhere.join(', '));

	const ids = new Set([...rememberedBefore, ...results.flatMap((result) => result.settings.ids)]);
	const memory = store.entries.get('workflow') ?? new Set<string>();
	// Both runs sent it after a stale write erased one's record of it: what the verified writes could not catch.
	const sentByBoth = (id: number) =>
		results.length > 1 &&
		results.every(({ run }) => api.seenBy(run).has(id)) &&
		store.lostUpdates.some((lost) => lost.erased.includes(key(id)));
	for (const id of ids) {
		const held = api.held().get(id) ?? 0;
		const runStates = results.map((result) => states.get(result)?.get(id));
		if (held > 1) {
			if (!sentByBoth(id))
				fail('I2 (nothing created twice)', `listing ${id} created ${held} times`);
			window.createdTwice++;
		}

		// I3: a created or possibly created listing stays remembered, so no later run sends it again.
		const keepers = results.filter(
			(result) => api.createdBy(result.run).has(id) || states.get(result)?.get(id) === 'unknown',
		);
		if (keepers.length > 0 && !memory.has(key(id))) {
			const excused =
				sentByBoth(id) ||
				keepers.some(
					({ run }) =>
						history.erasedAfter(id, history.lastRecorded(run, id)) ||
						history.failedAfterSending(run, api),
				);
			if (!excused) fail('I3 (created or unknown ⇒ remembered)', `listing ${id} forgotten`);
			window.erasedForGood++;
		}

		// I3: a listing no run created, none may have created and none threw over is forgotten, so it is sent later.
		const mayExist =
			keepers.length > 0 ||
			rememberedBefore.includes(id) ||
			results.some((result) => !result.output && api.seenBy(result.run).has(id));
		if (!mayExist && memory.has(key(id))) {
			// Runs that forgot it: they reported it refused or not sent, or they threw after claiming it.
			const forgetters = results.filter(
				(result) =>
					['refused', 'notSent'].includes(String(states.get(result)?.get(id))) ||
					(!result.output && history.forgotten(result.run, id) !== undefined),
			);
			// The user was told (the memory failed while forgetting it). A list names its first IDs and counts the
			// rest ("1, 2, …, 10 and 390 more"): a count names no ID.
			const named = results.some((result) =>
				[...shown(result).matchAll(/still remembered as sent[^:]*: ([^.]*)/g)].some(([, list]) =>
					new RegExp(`\\b${id}\\b`).test(list.replace(/\band \d+ more\b/g, '')),
				),
			);
			const resurrected = forgetters.some(({ run }) =>
				history.resurrectedAfter(id, history.forgotten(run, id) ?? Infinity),
			);
			if (!named && !resurrected)
				fail(
					'I3 (not created ⇒ forgotten)',
					`listing ${id} (${runStates.join('/')}) is still remembered`,
				);
			if (resurrected && !named) window.resurrected++;
		}
	}
	return window;
}
