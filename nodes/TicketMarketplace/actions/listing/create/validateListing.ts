/** The listing nouns under the name the send and output stages import them by; they live in nouns.ts. */
export type { InvalidListing, Listing, ReadyListing } from './nouns';
