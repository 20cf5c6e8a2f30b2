/** Values in n8n's deduplication store, which answers only "held or not": an entry per name and per bit set. */
import type { IExecuteFunctions } from 'n8n-workflow';

import { MemoryFailureError } from './memoryFailure';
import { MARKERS_PER_WRITE, SENT_LISTINGS_CAP, VerifiedStore } from './verifiedStore';

/** A name's entry and its value's bits, lowest first. */
export interface KeptValue {
	entry: string;
	bits: boolean[];
}

/** The wording of the first values kept (a ticket's listing), so that what earlier versions kept reads back. */
const bitEntry = (entry: string, bit: number) => `${entry} listing bit ${bit}`;
/** Entries one look writes at most (it takes them out again): a look needs this much room, whatever it names. */
const LOOK_ENTRIES = 100;
/** A look for a created listing writes this many at a time, so that runs looking at once share the room. */
const SMALL_LOOK_ENTRIES = 20;
/** The room Create keeps beside its record for two of Pre-deliver's looks at once. */
export const LOOK_ROOM = 2 * SMALL_LOOK_ENTRIES + MARKERS_PER_WRITE;

export const everyBit = (entry: string, width: number) =>
	Array.from({ length: width }, (_, bit) => bitEntry(entry, bit));

/** A whole number's `width` lowest bits, lowest first. */
export function numberBits(value: number, width: number): boolean[] {
	return Array.from({ length: width }, (_, bit) => Math.floor(value / 2 ** bit) % 2 === 1);
}

export function bitsNumber(bits: boolean[]): number {
	return bits.reduceRight((value, set) => value * 2 + (set ? 1 : 0), 0);
}

/** The entries that keep a value: its name's, and one per bit set. */
export function keysOf({ entry, bits }: KeptValue): string[] {
	return [entry, ...bits.flatMap((set, bit) => (set ? [bitEntry(entry, bit)] : []))];
}

export class KeptBits {
	readonly store: VerifiedStore;
	constructor(context: IExecuteFunctions) {
		this.store = new VerifiedStore(context);
	}

	/** A write (a look writes too) that would not fit under the cap is refused, as the record of listings is. */
	protected async ensureRoom(keys: number): Promise<void> {
		const held = await this.store.count();
		const needed = keys + MARKERS_PER_WRITE;
		if (held !== undefined && held + needed > SENT_LISTINGS_CAP)
			throw new MemoryFailureError({ kind: 'full', held, needed, cap: SENT_LISTINGS_CAP });
	}

	/** One look at the entries (each with the width of its value): the bits of each entry held. */
	protected async lookOnce(
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
			const held = await this.store.look(keys.slice(at, at + chunk));
			// A look that failed tells nothing: nothing may then be taken for absent.
			if (held === undefined) throw new MemoryFailureError({ kind: 'unconfirmed' });
			held.forEach((key) => found.add(key));
		}
		const held = [...widths].filter(([entry]) => found.has(entry));
		return new Map(held.map(([entry, width]) => [entry, everyBit(entry, width).map(has)]));
	}

	/** One look, a few entries at a time, for values with their own check; `cleanedUp` false: some of it stayed. */
	async readOnce(
		widths: Map<string, number>,
	): Promise<{ held: Map<string, boolean[]>; cleanedUp: boolean }> {
		const before = this.store.leftovers.length;
		const held = await this.lookOnce(widths, SMALL_LOOK_ENTRIES);
		return { held, cleanedUp: this.store.leftovers.length === before };
	}

	/** The entries held, with their values: held both times, alike, across a pause (a look writes too). */
	async held(widths: Map<string, number>): Promise<Map<string, boolean[]>> {
		const first = await this.lookOnce(widths);
		if (first.size === 0) return first;
		await this.store.pause();
		const second = await this.lookOnce(new Map([...first.keys()].map((e) => [e, widths.get(e)!])));
		const same = (entry: string, bits: boolean[]) => String(first.get(entry)) === String(bits);
		return new Map([...second].filter(([entry, bits]) => same(entry, bits)));
	}
}
