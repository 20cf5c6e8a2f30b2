/**
 * "One ticket in one listing" across an AI Agent's calls (each a run of its own), in the store of listings sent.
 * The store answers only "held or not", so a ticket's listing is kept as the bits of its ID: a ticket's entry and
 * one per bit set, read back by a look naming every bit (docs/sent-listings-memory.md).
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import { MemoryFailureError } from './memoryFailure';
import { sentListingKey, type MemoryAccount } from './sentListings';
import { MARKERS_PER_WRITE, SENT_LISTINGS_CAP, VerifiedStore } from './verifiedStore';

/** External Listing IDs are whole numbers up to 2^53 - 1. */
const ID_BITS = 53;

/** A ticket as compared within a run (read.ts: event, then seat or General Admission ID), and its listing. */
export type HeldTicket = { ticket: string; listingId: number };

function ticketEntry(account: MemoryAccount, ticket: string): string {
	// Under the key of listing 0, which none has; the parts as JSON: a database keeps no NUL in text.
	return `${sentListingKey(account, 0)} ticket ${JSON.stringify(ticket.split('\u0000'))}`;
}

const bitEntry = (entry: string, bit: number) => `${entry} listing bit ${bit}`;
const ALL_BITS = Array.from({ length: ID_BITS }, (_, bit) => bit);
const bitsOf = (id: number) => ALL_BITS.filter((bit) => Math.floor(id / 2 ** bit) % 2 === 1);

export class TicketMemory {
	private readonly store: VerifiedStore;
	/** The keys this run's records wrote, which its looks' leftovers must not take out. */
	private readonly recorded = new Set<string>();

	constructor(
		context: IExecuteFunctions,
		private readonly account: MemoryAccount,
	) {
		this.store = new VerifiedStore(context);
	}

	private keysOf(held: HeldTicket): string[] {
		const entry = ticketEntry(this.account, held.ticket);
		return [entry, ...bitsOf(held.listingId).map((bit) => bitEntry(entry, bit))];
	}

	/** A write (a look writes too) that would not fit under the cap is refused, as the record of listings is. */
	private async ensureRoom(keys: number): Promise<void> {
		const held = await this.store.count();
		const needed = keys + MARKERS_PER_WRITE;
		if (held !== undefined && held + needed > SENT_LISTINGS_CAP)
			throw new MemoryFailureError({ kind: 'full', held, needed, cap: SENT_LISTINGS_CAP });
	}

	/** One look at the tickets and every bit of their listings: the listing of each ticket held. */
	private async lookOnce(tickets: string[]): Promise<Map<string, number>> {
		const entries = tickets.map((ticket) => ticketEntry(this.account, ticket));
		const bits = entries.flatMap((entry) => ALL_BITS.map((bit) => bitEntry(entry, bit)));
		await this.ensureRoom(entries.length + bits.length);
		const found = await this.store.look([...entries, ...bits]);
		// A look that failed tells nothing: no ticket may then be taken for one not listed before.
		if (found === undefined) throw new MemoryFailureError({ kind: 'unconfirmed' });
		const held = new Map<string, number>();
		tickets.forEach((ticket, index) => {
			if (!found.has(entries[index])) return;
			let id = 0;
			for (let bit = ID_BITS - 1; bit >= 0; bit--)
				id = id * 2 + (found.has(bitEntry(entries[index], bit)) ? 1 : 0);
			held.set(ticket, id);
		});
		return held;
	}

	/** The tickets earlier runs listed, with their listing: held both times, across a pause (a look writes too). */
	async listedBefore(tickets: string[]): Promise<Map<string, number>> {
		if (tickets.length === 0) return new Map();
		const first = await this.lookOnce(tickets);
		if (first.size === 0) return first;
		await this.store.pause();
		const second = await this.lookOnce([...first.keys()]);
		return new Map([...second].filter(([ticket, id]) => first.get(ticket) === id));
	}

	/** Records the tickets before sending, verified; then looks after a pause, as another run's look may remove them. */
	async record(held: HeldTicket[]): Promise<void> {
		let toWrite = held;
		for (let attempt = 1; toWrite.length > 0; attempt++) {
			const keys = toWrite.flatMap((ticket) => this.keysOf(ticket));
			await this.ensureRoom(keys.length);
			// A look's leftovers would read back as another listing: taken out first, or the look below fails.
			const leftovers = this.store.leftovers.filter(
				(key) => !keys.includes(key) && !this.recorded.has(key),
			);
			if (leftovers.length > 0) await this.store.removeOnce(leftovers);
			const written = await this.store.record(keys);
			keys.forEach((key) => this.recorded.add(key));
			if (!written.ok) throw new MemoryFailureError(written.failure);
			await this.store.pause();
			const found = await this.lookOnce(toWrite.map((ticket) => ticket.ticket));
			toWrite = toWrite.filter((ticket) => found.get(ticket.ticket) !== ticket.listingId);
			if (toWrite.length > 0 && attempt === MARKERS_PER_WRITE - 1)
				throw new MemoryFailureError({ kind: 'contended', attempts: attempt });
		}
	}

	/** Forgets tickets of listings not created, the run's markers, and the looks' leftovers (they would misread). */
	async forget(held: HeldTicket[]): Promise<boolean> {
		const keys = held.flatMap((ticket) => this.keysOf(ticket));
		const leftovers = this.store.leftovers.filter((key) => !this.recorded.has(key));
		return (await this.store.forget([...new Set([...keys, ...leftovers])])).ok;
	}
}
