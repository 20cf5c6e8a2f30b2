import type { ICredentialDataDecryptedObject, IHttpRequestOptions, INode } from 'n8n-workflow';

import { TicketMarketplaceApi } from '../../credentials/TicketMarketplaceApi.credentials';

/**
 * The part of n8n's CLI CredentialsHelper (packages/cli/src/credentials-helper.ts, 2.8.x) that n8n-core's
 * request helpers call, for our API credential: preAuthentication runs when the expirable token is empty or when
 * the helper says the request failed, and what it returns is saved into `stored`, as n8n saves it into the
 * credential (nothing, when it returns no token).
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
			const output: ICredentialDataDecryptedObject = await credentialType.preAuthentication.call(
				helpers as never,
				credentials,
			);
			// As n8n: an answer without the token field is neither saved nor handed back.
			if (output.accessToken === undefined) return undefined;
			savedTokens.push(output.accessToken as string);
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
