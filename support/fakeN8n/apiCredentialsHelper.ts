import type { ICredentialDataDecryptedObject, IHttpRequestOptions, INode } from 'n8n-workflow';

import { TicketMarketplaceApi } from '../../credentials/TicketMarketplaceApi.credentials';

/**
 * The part of n8n's CLI CredentialsHelper (packages/cli/src/credentials-helper.ts, 2.8.x) that n8n-core's
 * httpRequestWithAuthentication calls, for our API credential: preAuthentication runs when the expirable token is
 * empty or after a 401, and what it returns is saved into `stored`, as n8n saves it into the credential.
 */
export function apiCredentialsHelper(stored: ICredentialDataDecryptedObject) {
	const credentialType = new TicketMarketplaceApi();
	const savedTokens: string[] = [];
	const credentialsHelper = {
		getParentTypes: () => [],
		async preAuthentication(
			helpers: unknown,
			credentials: ICredentialDataDecryptedObject,
			_type: string,
			_node: INode,
			expired: boolean,
		) {
			if (!expired && credentials.accessToken) return undefined;
			const output = await credentialType.preAuthentication.call(helpers as never, credentials);
			savedTokens.push(output.accessToken);
			// n8n saves every field it returns (the hidden refresh token field too), as it saves the token.
			Object.assign(stored, output);
			return Object.assign(credentials, output);
		},
		async authenticate(
			credentials: ICredentialDataDecryptedObject,
			_type: string,
			request: IHttpRequestOptions,
		) {
			return await credentialType.authenticate(credentials, request);
		},
	};
	return { credentialsHelper, savedTokens };
}
