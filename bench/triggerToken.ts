/** A token from a running trigger's token endpoint, as the marketplace gets one (the sandbox's callback client). */
import { basicClientAuthorization } from '../sandbox/index';
import { SANDBOX_CALLBACK_CLIENT } from '../support/harness/harness';

export async function triggerAccessToken(baseUrl: string, webhookId: string): Promise<string> {
	const response = await fetch(`${baseUrl}/webhook/${webhookId}/token`, {
		method: 'POST',
		headers: {
			Authorization: basicClientAuthorization(
				SANDBOX_CALLBACK_CLIENT.clientId,
				SANDBOX_CALLBACK_CLIENT.clientSecret,
			),
			'Content-Type': 'application/x-www-form-urlencoded',
		},
		body: 'grant_type=client_credentials',
	});
	if (response.status !== 200)
		throw new Error(`the token endpoint at ${baseUrl} answered ${response.status}`);
	return ((await response.json()) as { access_token: string }).access_token;
}
