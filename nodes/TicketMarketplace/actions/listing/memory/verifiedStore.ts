/** n8n's deduplication store has no lock: a write's marker is looked for after a pause, and written again if erased. */
import type { IDeduplicationOutput, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError, randomInt, randomString, sleep } from 'n8n-workflow';

import { MemoryFailureError, type StoreFailure } from './memoryFailure';

export const SCOPE = 'workflow';
/** n8n's store drops the oldest entries beyond this. */
export const SENT_LISTINGS_CAP = 100_000;
/** Whether the memory holds most of what n8n keeps (false when it could not count): from 90% on. */
export const nearCap = (count: number | undefined): count is number =>
	count !== undefined && count >= SENT_LISTINGS_CAP * 0.9;
export const STORE_OPTIONS = { mode: 'entries', maxEntries: SENT_LISTINGS_CAP } as const;

/** A pause outlasts another run's store call, and three times the run's slowest (a large memory is slower). */
const SETTLE_MIN_MS = 50;
/** Writes tried before a run gives up with an error (another run kept rewriting the memory at the same moments). */
const WRITE_ATTEMPTS = 4;
/** Entries a write adds beside its keys: a marker, a token per further look, a guard. */
export const MARKERS_PER_WRITE = WRITE_ATTEMPTS + 1;
/** Entries one look writes at most (it takes them out again): a look needs this much room, whatever it names. */
const LOOK_ENTRIES = 100;
/** A look for a created listing writes this many at a time, so that runs looking at once share the room. */
export const SMALL_LOOK_ENTRIES = 20;
/** The room Create keeps beside its record for two of Pre-deliver's looks at once. */
export const LOOK_ROOM = 2 * SMALL_LOOK_ENTRIES + MARKERS_PER_WRITE;

export type Failed = { ok: false; failure: StoreFailure };
export type Done = { ok: true } | Failed;
/** `unproven`: the answer of a write no look proved erased (an erased write's new keys held now are another run's). */
type RecordOutcome = { unproven?: IDeduplicationOutput } & (
	| { ok: true; stood: IDeduplicationOutput }
	| Failed
);

const DONE: Done = { ok: true };

export class VerifiedStore {
	private readonly markerPrefix: string;
	/** Every marker this run wrote, oldest first; they leave with its last removal. */
	private readonly markers: string[] = [];
	/** One per write, beside its markers: removed with the keys written only to look (forgetAhead). */
	private guards: string[] = [];
	private slowestCallMs = 0;
	/** Keys a look added and could not remove again: the caller's last removal takes them (TicketMemory.forget). */
	readonly leftovers: string[] = [];
	/** Keys written only to look whose removal forgetAhead could not verify: the run's last removal takes them. */
	lookedOnly: string[] = [];
	constructor(private readonly context: IExecuteFunctions) {
		this.markerPrefix = `ticket-marketplace run ${String(context.getExecutionId?.() ?? '')} ${randomString(12)}`;
	}

	private async timed<T>(call: () => Promise<T>): Promise<T> {
		const started = Date.now();
		try {
			return await call();
		} finally {
			this.slowestCallMs = Math.max(this.slowestCallMs, Date.now() - started);
		}
	}

	/** Tried again after a short pause: two runs writing a new memory at once both insert its row, one refused. */
	private async callTwice<T>(
		call: () => Promise<T>,
	): Promise<{ answer: T; firstFailure?: { error: unknown } }> {
		try {
			return { answer: await this.timed(call) };
		} catch (error) {
			await sleep(SETTLE_MIN_MS + randomInt(SETTLE_MIN_MS));
			return { answer: await this.timed(call), firstFailure: { error } };
		}
	}

	private async storeRecord(keys: string[]): Promise<IDeduplicationOutput> {
		return await this.context.helpers.checkProcessedAndRecord(keys, SCOPE, STORE_OPTIONS);
	}

	async count(): Promise<number | undefined> {
		return await this.context.helpers
			.getProcessedDataCount(SCOPE, STORE_OPTIONS)
			.catch(() => undefined);
	}

	/** Records the keys once, unverified: another run's write may take them out again. */
	async recordOnce(keys: string[]): Promise<Done> {
		const call = this.callTwice(async () => await this.storeRecord(keys));
		return await call.then(() => DONE, storeFailed);
	}

	/** Removes the keys once, unverified: another run's stale write may bring them back. */
	async removeOnce(keys: string[]): Promise<Done> {
		const call = this.callTwice(
			async () => await this.context.helpers.removeProcessed(keys, SCOPE, STORE_OPTIONS),
		);
		return await call.then(() => DONE, storeFailed);
	}

	/** Records the keys with a new marker, unverified (`forget` takes the marker too). */
	async recordMarked(
		keys: string[],
	): Promise<{ ok: true; tokens: string[]; answer: IDeduplicationOutput } | Failed> {
		const marker = `${this.markerPrefix} write ${this.markers.length + 1}`;
		// One token per look: a failed look may have put its token back, so the next looks for an untouched one.
		const looks = Array.from({ length: WRITE_ATTEMPTS - 1 }, (_, i) => `${marker} look ${i + 2}`);
		const tokens = [marker, ...looks];
		this.markers.push(...tokens);
		const guard = `${marker} guard`;
		this.guards.push(guard);
		try {
			const { answer, firstFailure } = await this.callTwice(
				async () => await this.storeRecord([...tokens, guard, ...keys]),
			);
			// The retry found the failed call's marker: that call wrote, and which keys were new is lost.
			if (firstFailure && answer.processed.map(String).includes(marker)) {
				const error = new NodeOperationError(this.context.getNode(), firstFailure.error as Error);
				return storeFailed(error, true);
			}
			return { ok: true, tokens, answer };
		} catch (error) {
			// Both failed, but the first may have written: its marker tells, after the pause.
			await this.pause();
			const wrote = (await this.look([marker]))?.has(marker) ?? true;
			return storeFailed(new NodeOperationError(this.context.getNode(), error as Error), wrote);
		}
	}

	/** Random up to twice the least, so that collided runs do not stay in step. */
	async pause(): Promise<void> {
		const least = Math.max(SETTLE_MIN_MS, 3 * this.slowestCallMs);
		await sleep(least + randomInt(least));
	}

	/** The keys held, by a record whose new keys leave again; not retried (a retry would find its own keys). */
	async look(keys: string[]): Promise<Set<string> | undefined> {
		const call = this.timed(async () => await this.storeRecord(keys));
		const answer = await call.catch(() => undefined);
		if (answer === undefined) return undefined;
		const added = answer.new.map(String);
		if (added.length > 0 && !(await this.removeOnce(added)).ok) this.leftovers.push(...added);
		return new Set(answer.processed.map(String));
	}

	/** Records the keys with a new marker until the write provably stands, or gives up after WRITE_ATTEMPTS looks. */
	async record(keys: string[]): Promise<RecordOutcome> {
		let looks = 0;
		for (;;) {
			const written = await this.recordMarked(keys);
			if (!written.ok) return written;
			// Written again only once a look proved it erased: after a failed look it could resurrect removed keys.
			for (const token of written.tokens) {
				await this.pause();
				const present = await this.look([token]);
				const unproven = present ? undefined : written.answer;
				if (present?.has(token))
					return { ok: true, stood: written.answer, unproven: written.answer };
				if (++looks === WRITE_ATTEMPTS) return { ok: false, failure: gaveUp(present), unproven };
				if (present !== undefined) break;
			}
		}
	}

	/** Removes the keys and the markers (every one), again while a marker is back (or unseen) after the pause. */
	async forget(keys: string[], markers = [...this.markers, ...this.guards]): Promise<Done> {
		for (let attempt = 1; ; attempt++) {
			const removed = await this.removeOnce([...markers, ...keys]);
			if (!removed.ok) return removed;
			if (keys.length === 0) return DONE;
			await this.pause();
			const present = await this.look(markers);
			if (present?.size === 0) return DONE;
			if (attempt === WRITE_ATTEMPTS) return { ok: false, failure: gaveUp(present) };
		}
	}

	/** Removes keys written only to look, verified by the guards (markers stay for the rest); false: unverified. */
	async forgetAhead(keys: string[]): Promise<boolean> {
		if (keys.length === 0) return true;
		this.lookedOnly.push(...keys);
		const guards = [...this.guards];
		if (!(await this.forget(keys, guards)).ok) return false;
		this.guards = this.guards.filter((guard) => !guards.includes(guard));
		this.lookedOnly = this.lookedOnly.filter((key) => !keys.includes(key));
		return true;
	}

	/** A write (a look writes too) that would not fit under the cap is refused, as the record of listings is. */
	async ensureRoom(keys: number): Promise<void> {
		const held = await this.count();
		const needed = keys + MARKERS_PER_WRITE;
		if (held !== undefined && held + needed > SENT_LISTINGS_CAP)
			throw new MemoryFailureError({ kind: 'full', held, needed });
	}

	/** One look at the entries (each with the width of its value): the bits of each entry held. */
	async lookOnce(
		widths: Map<string, number>,
		chunk = LOOK_ENTRIES,
	): Promise<Map<string, boolean[]>> {
		const bits = [...widths].flatMap(([entry, width]) => everyBit(entry, width));
		const keys = [...widths.keys(), ...bits];
		const found = new Set<string>();
		const has = (key: string) => found.has(key);
		for (let at = 0; at < keys.length; at += chunk) {
			// Counted before each write: other runs' looks may have taken room meanwhile.
			await this.ensureRoom(Math.min(keys.length - at, chunk));
			const held = await this.look(keys.slice(at, at + chunk));
			// A look that failed tells nothing: nothing may then be taken for absent.
			if (held === undefined) throw new MemoryFailureError({ kind: 'unconfirmed' });
			held.forEach((key) => found.add(key));
		}
		const held = [...widths].filter(([entry]) => found.has(entry));
		return new Map(held.map(([entry, width]) => [entry, everyBit(entry, width).map(has)]));
	}

	/** The entries held, with their values: held both times, alike, across a pause (a look writes too). */
	async held(widths: Map<string, number>): Promise<Map<string, boolean[]>> {
		const first = await this.lookOnce(widths);
		if (first.size === 0) return first;
		await this.pause();
		const second = await this.lookOnce(new Map([...first.keys()].map((e) => [e, widths.get(e)!])));
		const same = (entry: string, bits: boolean[]) => String(first.get(entry)) === String(bits);
		return new Map([...second].filter(([entry, bits]) => same(entry, bits)));
	}
}

function storeFailed(error: unknown, possiblyWritten = false): Failed {
	return { ok: false, failure: { kind: 'storeFailed', error, possiblyWritten } };
}

/** After the last attempt: the store did not confirm (last look failed), or another run kept undoing it. */
function gaveUp(lastLook: Set<string> | undefined): StoreFailure {
	return lastLook === undefined
		? { kind: 'unconfirmed' }
		: { kind: 'contended', attempts: WRITE_ATTEMPTS };
}

// Values as bits: n8n's store answers only "held or not", so a value is an entry per name and per bit set.
/** Worded as the first values kept (a ticket's listing) were, so that what earlier versions kept reads back. */
export const everyBit = (entry: string, width: number) =>
	Array.from({ length: width }, (_, bit) => `${entry} listing bit ${bit}`);

export function numberBits(value: number, width: number): boolean[] {
	return Array.from({ length: width }, (_, bit) => Math.floor(value / 2 ** bit) % 2 === 1);
}

export function bitsNumber(bits: boolean[]): number {
	return bits.reduceRight((value, set) => value * 2 + (set ? 1 : 0), 0);
}

/** The keys that keep the value: its entry and each bit set (bits lowest first). */
export function keysOf(entry: string, bits: boolean[]): string[] {
	return [entry, ...everyBit(entry, bits.length).filter((_, bit) => bits[bit])];
}
