/** "One ticket in one listing" across an AI Agent's calls (runs of their own): its listing ID as bits (verifiedStore.ts). */
import type { IExecuteFunctions } from 'n8n-workflow';

import { MemoryFailureError } from './memoryFailure';
import { sentListingKey, type MemoryAccount } from './sentListings';
import { bitsNumber, keysOf, MARKERS_PER_WRITE, numberBits, VerifiedStore } from './verifiedStore';

/** External Listing IDs are whole numbers up to 2^53 - 1. */
const ID_BITS = 53;

/** A ticket as compared within a run (read.ts: event, then seat or General Admission ID), and its listing. */
export type HeldTicket = { ticket: string; listingId: number };

function ticketEntry(account: MemoryAccount, ticket: string): string {
	// Under the key of listing 0, which none has; the parts as JSON: a database keeps no NUL in text.
	return `${sentListingKey(account, 0)} ticket ${JSON.stringify(ticket.split('\u0000'))}`;
}

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

	private valuesOf(held: HeldTicket[]) {
		const entry = (ticket: string) => ticketEntry(this.account, ticket);
		return held.map((t) => ({ entry: entry(t.ticket), bits: numberBits(t.listingId, ID_BITS) }));
	}

	/** The tickets earlier runs listed, with their listing (held twice over a pause: verifiedStore.ts). */
	async listedBefore(tickets: string[]): Promise<Map<string, number>> {
		const entries = new Map(tickets.map((ticket) => [ticketEntry(this.account, ticket), ticket]));
		const held = await this.store.held(new Map([...entries.keys()].map((e) => [e, ID_BITS])));
		return new Map([...held].map(([entry, bits]) => [entries.get(entry)!, bitsNumber(bits)]));
	}

	/** Records the tickets before sending, verified, then looks after a pause: another run's look may remove them. */
	async record(held: HeldTicket[]): Promise<void> {
		let toWrite = this.valuesOf(held);
		for (let attempt = 1; toWrite.length > 0; attempt++) {
			const keys = toWrite.flatMap(({ entry, bits }) => keysOf(entry, bits));
			await this.store.ensureRoom(keys.length);
			// A look's leftovers would read back as another value: taken out first, or the look below fails.
			const leftovers = this.store.leftovers.filter(
				(key) => !keys.includes(key) && !this.recorded.has(key),
			);
			if (leftovers.length > 0) await this.store.removeOnce(leftovers);
			const written = await this.store.record(keys);
			keys.forEach((key) => this.recorded.add(key));
			if (!written.ok) throw new MemoryFailureError(written.failure);
			await this.store.pause();
			const found = await this.store.lookOnce(new Map(toWrite.map((v) => [v.entry, ID_BITS])));
			toWrite = toWrite.filter(({ entry, bits }) => String(found.get(entry)) !== String(bits));
			if (toWrite.length > 0 && attempt === MARKERS_PER_WRITE - 1)
				throw new MemoryFailureError({ kind: 'contended', attempts: attempt });
		}
	}

	/** Forgets the tickets of listings the API provably did not create, the run's markers, and the looks' leftovers. */
	async forget(held: HeldTicket[]): Promise<boolean> {
		const keys = this.valuesOf(held).flatMap(({ entry, bits }) => keysOf(entry, bits));
		const leftovers = this.store.leftovers.filter((key) => !this.recorded.has(key));
		return (await this.store.forget([...new Set([...keys, ...leftovers])])).ok;
	}
}
