/**
 * Pre-deliver's record of the listings Create created (nodes/.../memory/createdListings.ts), kept beside the memory of
 * listings sent: tests of that memory compare it without this record, which tests of their own assert exactly.
 */
export const isCreatedListingEntry = (key: string) =>
	/ account [0-9a-f]{16} marketplace listing( |$)/.test(key);

/** The memory's entries but the record of created listings. */
export const sentListingsOnly = (keys: Iterable<string> = []) =>
	[...keys].filter((key) => !isCreatedListingEntry(key));
