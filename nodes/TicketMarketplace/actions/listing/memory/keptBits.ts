/**
 * Values kept in n8n's deduplication store, which keeps values only and answers only "held or not" for values named
 * exactly: a name is an entry of its own, and its value one entry per bit set beside it. A look names the entry and
 * every bit it may have, and reads the value back. The tickets an agent's runs list (ticketMemory.ts) and the
 * listings Create created (createdListings.ts) are kept so.
 */
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
	private readonly store: VerifiedStore;
	/** The keys this run's records wrote, which its looks' leftovers must not take out. */
	private readonly recorded = new Set<string>();

	constructor(context: IExecuteFunctions) {
		this.store = new VerifiedStore(context);
	}

	/**
	 * Past its cap n8n drops the oldest entries, whose listings later runs would send again: a write (a look writes
	 * too, for a moment) that would not fit is refused, as the record of listings is.
	 */
	private async ensureRoom(keys: number): Promise<void> {
		const held = await this.store.count();
		const needed = keys + MARKERS_PER_WRITE;
		if (held !== undefined && held + needed > SENT_LISTINGS_CAP)
			throw new MemoryFailureError({ kind: 'full', held, needed, cap: SENT_LISTINGS_CAP });
	}

	/** One look at the entries (each with the width of its value): the bits of each entry held. */
	private async lookOnce(widths: Map<string, number>): Promise<Map<string, boolean[]>> {
		const bits = [...widths].flatMap(([entry, width]) => everyBit(entry, width));
		await this.ensureRoom(widths.size + bits.length);
		const found = await this.store.look([...widths.keys(), ...bits]);
		// A look that failed tells nothing: nothing may then be taken for absent.
		if (found === undefined) throw new MemoryFailureError({ kind: 'unconfirmed' });
		const held = new Map<string, boolean[]>();
		for (const [entry, width] of widths)
			if (found.has(entry))
				held.set(
					entry,
					everyBit(entry, width).map((key) => found.has(key)),
				);
		return held;
	}

	/**
	 * The entries held, with their values. Another run's look writes for a moment, so what is found held is looked
	 * at again after a pause, and only what is held both times, with the same value, counts.
	 */
	async held(widths: Map<string, number>): Promise<Map<string, boolean[]>> {
		if (widths.size === 0) return new Map();
		const first = await this.lookOnce(widths);
		if (first.size === 0) return first;
		await this.store.pause();
		const second = await this.lookOnce(new Map([...first.keys()].map((e) => [e, widths.get(e)!])));
		const same = (entry: string, bits: boolean[]) => String(first.get(entry)) === String(bits);
		return new Map([...second].filter(([entry, bits]) => same(entry, bits)));
	}

	/**
	 * Records the values, verified like every write of the memory; then looks at them after a pause, since another
	 * run's look that wrote an entry just before takes it out again just after.
	 */
	async record(values: KeptValue[]): Promise<void> {
		let toWrite = values;
		for (let attempt = 1; toWrite.length > 0; attempt++) {
			const keys = toWrite.flatMap((value) => keysOf(value));
			await this.ensureRoom(keys.length);
			// A look's leftovers would read back as another value: taken out first, or the look below fails.
			const leftovers = this.store.leftovers.filter(
				(key) => !keys.includes(key) && !this.recorded.has(key),
			);
			if (leftovers.length > 0) await this.store.removeOnce(leftovers);
			const written = await this.store.record(keys);
			keys.forEach((key) => this.recorded.add(key));
			if (!written.ok) throw new MemoryFailureError(written.failure);
			await this.store.pause();
			const found = await this.lookOnce(new Map(toWrite.map((v) => [v.entry, v.bits.length])));
			toWrite = toWrite.filter(({ entry, bits }) => String(found.get(entry)) !== String(bits));
			if (toWrite.length > 0 && attempt === MARKERS_PER_WRITE - 1)
				throw new MemoryFailureError({ kind: 'contended', attempts: attempt });
		}
	}

	/**
	 * Forgets the values, the run's markers, and what a look wrote and could not take out (left, a look's bits would
	 * read back as another value).
	 */
	async forget(values: KeptValue[]): Promise<boolean> {
		const keys = values.flatMap((value) => keysOf(value));
		const leftovers = this.store.leftovers.filter((key) => !this.recorded.has(key));
		const done = await this.store.forget([...new Set([...keys, ...leftovers])]);
		return done.ok;
	}
}
