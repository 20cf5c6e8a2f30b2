/** What Listing → Create reads an item into. Types only, so every stage names them without another stage. */
import type { IDataObject, NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { FieldLabeller } from '../../../schemas/listing';
import type { Effect } from '../../../transport';
import type { EarlierOutcome } from '../memory/runMemory';

/** Something wrong with a value, in a sheet user's words; `field` is its label, or '' for the whole listing. */
export interface Problem {
	field: string;
	text: string;
	itemIndexes: number[];
}

/** One input item as read and checked on its own: never thrown, every problem kept with its row. */
export interface ListingRow {
	itemIndex: number;
	/** The External Listing ID, for grouping: its number when usable, and its text as given. */
	listingId: { id?: number; text: string };
	/** The listing's own fields, when this row's are valid. */
	level?: ListingLevel;
	/** Its tickets, unchecked; absent when they (or the row's parameters) could not be read. */
	products?: Array<ListedProduct<unknown>>;
	problems: Problem[];
	/** The External Listing ID's expression failed: its listing is unknown (with its Event ID when valid). */
	unknownListing?: { error: string; eventId?: number };
}

/** A listing's own fields, valid, in the API's shape (with the language its header carries). */
export type ListingLevel = IDataObject & { eventId: number; externalListingId: number };

/** A ticket, valid, in the API's shape: a row and seat, unless it is General Admission. */
export type Product = IDataObject & {
	externalId: string;
	row?: string;
	seat?: string;
	ga: boolean;
};

/** A product with where it came from; `product` is `unknown` until it is valid. */
export interface ListedProduct<P = Product> {
	product: P;
	itemIndex: number;
	index: number;
	fromJson: boolean;
	label: FieldLabeller;
}

interface ListingBase {
	/** The input items (0-based) the listing came from, in input order. */
	rows: number[];
	/** How messages name the listing: "row 3", "listing 7001 (rows 1–5)". */
	label: string;
}

export interface ReadyListing extends ListingBase {
	kind: 'ready';
	externalListingId: number;
	level: ListingLevel;
	products: ListedProduct[];
}

export interface InvalidListing extends ListingBase {
	kind: 'invalid';
	externalListingId?: number;
	problems: Problem[];
}

export type Listing = ReadyListing | InvalidListing;

/** A request that did not create the listing in this run; `apiCode` is kept beside the words for support. */
export interface Failure {
	kind: Exclude<Effect, 'created'>;
	error: NodeApiError | NodeOperationError;
	apiCode?: string;
}

export type Outcome =
	| { kind: 'created'; /** The API's answer, secrets redacted. */ body: unknown }
	| Failure
	| { kind: 'notSent' }
	/** `earlier`: what the memory knows of the earlier run's outcome. */
	| { kind: 'skipped'; earlier: EarlierOutcome }
	| { kind: 'invalid' };
