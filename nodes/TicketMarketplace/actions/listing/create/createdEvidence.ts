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
