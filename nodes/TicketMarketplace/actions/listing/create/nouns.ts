/**
 * What Listing → Create reads an item into: a row, the listing its rows make (ready to send, or refused), and the
 * problems said about them. Types only, so that every stage can name them without depending on another stage.
 */
import type { IDataObject } from 'n8n-workflow';

import type { FieldLabeller } from '../../../schemas/listing';

/** Something wrong with a value, in a sheet user's words; rows are said as ranges (problems.ts). */
export interface Problem {
	/** The node's field label ("Price Amount"), or '' for a problem of the listing as a whole. */
	field: string;
	/** What is wrong, written to follow the label: `"49,90" is not a number: write 49.90, ...`. */
	text: string;
	/** The input items (0-based, as n8n counts them) the problem concerns. */
	itemIndexes: number[];
}

/** The fields an item gives, read once, keyed by the node's parameter names. */
export type RowFields = Record<string, unknown>;

/** One input item as read: never thrown, every problem kept with its row. */
export interface ListingRow {
	itemIndex: number;
	/** The External Listing ID as read, for grouping: its number when usable, and its text as given. */
	listingId: { id?: number; text: string };
	/** Every field the item gives, unchecked; absent when the parameters could not be read at all. */
	fields?: RowFields;
	/** That the parameters could not be read; empty otherwise. */
	problems: Problem[];
	/**
	 * Set when the External Listing ID itself could not be read (its expression failed), so the listing the row
	 * belongs to is unknown: with its Event ID when that could be read and is valid.
	 */
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

/**
 * A product of a listing with where it came from, so that it never parts from its origin: `product` is as its
 * source gave it (`unknown`) until it is valid.
 */
export interface ListedProduct<P = Product> {
	product: P;
	itemIndex: number;
	/** Its place among its item's products. */
	index: number;
	/** Typed as JSON: checked for unknown keys. */
	fromJson: boolean;
	/** How a problem names its values. */
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
	/** The listing-level fields, valid (listingRequest.ts makes them a request). */
	level: ListingLevel;
	products: ListedProduct[];
}

export interface InvalidListing extends ListingBase {
	kind: 'invalid';
	/** Known when the id itself was valid. */
	externalListingId?: number;
	problems: Problem[];
}

export type Listing = ReadyListing | InvalidListing;
