import type { ICredentialDataDecryptedObject } from 'n8n-workflow';

import { refreshTokenFieldAfter } from '../../nodes/shared/partnerApi/pastN8n';

/**
 * The credential as n8n keeps it after a login: the access token, and the hidden field that says which login it came
 * from (the credential sends a token only for its own login).
 */
export function withTokenIssued<T extends ICredentialDataDecryptedObject>(
	credentials: T,
	accessToken: string,
): T & { accessToken: string; refreshToken: string } {
	return {
		...credentials,
		accessToken,
		refreshToken: refreshTokenFieldAfter(credentials, {}, undefined, Date.now()),
	};
}
