import type { IN8nHttpFullResponse } from 'n8n-workflow';

import { showsCreated } from '../../../helpers/answerEvidence';

/**
 * The evidence of a created listing: the Partner API's evidence of a request done (helpers/answerEvidence.ts), in
 * an answer that names no other External Listing ID.
 */
export function showsListingCreated(
	answer: IN8nHttpFullResponse,
	externalListingId: number,
): boolean {
	if (!showsCreated(answer)) return false;
	const namedId = (answer.body as Record<string, unknown>).externalListingId;
	return (
		namedId === undefined ||
		namedId === null ||
		String(namedId).trim() === String(externalListingId)
	);
}

/**
 * The marketplace's ID of a created listing, read defensively from its answer (`id`, as Create outputs it): text
 * or a whole number, never guessed; undefined otherwise.
 */
export function marketplaceIdOf(body: unknown): string | undefined {
	const id = (body as Record<string, unknown> | null)?.id;
	if (typeof id === 'number' && Number.isSafeInteger(id)) return String(id);
	return typeof id === 'string' && id.trim() !== '' ? id.trim() : undefined;
}
