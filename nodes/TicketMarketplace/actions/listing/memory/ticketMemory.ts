/** "One ticket in one listing" across an AI Agent's calls (runs of their own): its listing ID as bits (keptBits.ts). */
import type { IExecuteFunctions } from 'n8n-workflow';

import { bitsNumber, KeptBits, numberBits } from './keptBits';
import { sentListingKey, type MemoryAccount } from './sentListings';

/** External Listing IDs are whole numbers up to 2^53 - 1. */
const ID_BITS = 53;

/** A ticket as compared within a run (read.ts: event, then seat or General Admission ID), and its listing. */
export type HeldTicket = { ticket: string; listingId: number };

function ticketEntry(account: MemoryAccount, ticket: string): string {
	// Under the key of listing 0, which none has; the parts as JSON: a database keeps no NUL in text.
	return `${sentListingKey(account, 0)} ticket ${JSON.stringify(ticket.split('\u0000'))}`;
}

export class TicketMemory {
	private readonly kept: KeptBits;

	constructor(
		context: IExecuteFunctions,
		private readonly account: MemoryAccount,
	) {
		this.kept = new KeptBits(context);
	}

	private valuesOf(held: HeldTicket[]) {
		const entry = (ticket: string) => ticketEntry(this.account, ticket);
		return held.map((t) => ({ entry: entry(t.ticket), bits: numberBits(t.listingId, ID_BITS) }));
	}

	/** The tickets earlier runs listed, with their listing (held twice over a pause: keptBits.ts). */
	async listedBefore(tickets: string[]): Promise<Map<string, number>> {
		const entries = new Map(tickets.map((ticket) => [ticketEntry(this.account, ticket), ticket]));
		const held = await this.kept.held(new Map([...entries.keys()].map((e) => [e, ID_BITS])));
		return new Map([...held].map(([entry, bits]) => [entries.get(entry)!, bitsNumber(bits)]));
	}

	/** Records the tickets before their listings are sent, verified like every write of the memory. */
	async record(held: HeldTicket[]): Promise<void> {
		await this.kept.record(this.valuesOf(held));
	}

	/** Forgets the tickets of listings the API provably did not create, and what this run's looks left. */
	async forget(held: HeldTicket[]): Promise<boolean> {
		return await this.kept.forget(this.valuesOf(held));
	}
}
