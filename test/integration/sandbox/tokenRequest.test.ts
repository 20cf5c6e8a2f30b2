/**
 * The token request the sandbox sends as the marketplace, in each spelling (--delivery-auth): exactly the headers
 * and body of that spelling, to a loopback endpoint that records them.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

import { startSandbox } from '../../../sandbox/index';
import type { ClientAuthMethod, Sandbox } from '../../../sandbox/index';

const CLIENT = { clientId: 'market place/1', clientSecret: 's3cr&t:=+' };

interface Recorded {
	contentType?: string;
	authorization?: string;
	body: string;
}

let sandbox: Sandbox | undefined;
let server: http.Server | undefined;

afterEach(async () => {
	await sandbox?.stop();
	await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
	sandbox = undefined;
	server = undefined;
});

/** A token endpoint and a callback on loopback; the token requests are recorded as sent. */
async function startPartner(): Promise<{ url: string; tokenRequests: Recorded[] }> {
	const tokenRequests: Recorded[] = [];
	server = http.createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => {
			if (req.url === '/token')
				tokenRequests.push({
					contentType: req.headers['content-type'],
					authorization: req.headers.authorization,
					body: Buffer.concat(chunks).toString('utf8'),
				});
			res.writeHead(200, { 'Content-Type': 'application/json' });
			res.end(req.url === '/token' ? '{"access_token":"t","token_type":"Bearer"}' : '{}');
		});
	});
	await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return { url: `http://127.0.0.1:${port}`, tokenRequests };
}

const EXPECTED: Record<ClientAuthMethod, Recorded> = {
	basic: {
		contentType: 'application/x-www-form-urlencoded',
		// RFC 6749 2.3.1: id and secret form-encoded, then joined and base64-encoded.
		authorization: `Basic ${Buffer.from('market+place%2F1:s3cr%26t%3A%3D%2B').toString('base64')}`,
		body: 'grant_type=client_credentials',
	},
	client_secret_post: {
		contentType: 'application/x-www-form-urlencoded',
		body: 'grant_type=client_credentials&client_id=market+place%2F1&client_secret=s3cr%26t%3A%3D%2B',
	},
	client_secret_json: {
		contentType: 'application/json',
		body: JSON.stringify({
			grant_type: 'client_credentials',
			client_id: CLIENT.clientId,
			client_secret: CLIENT.clientSecret,
		}),
	},
	subscription_json: {
		contentType: 'application/json',
		body: JSON.stringify({ ...CLIENT, grantType: 'client_credentials' }),
	},
};

describe('the token request the sandbox sends, in each spelling', () => {
	it.each(Object.keys(EXPECTED) as ClientAuthMethod[])(
		'%s: exactly its headers and body',
		async (clientAuth) => {
			const partner = await startPartner();
			sandbox = await startSandbox({ deliveryAuth: clientAuth });
			const sample = sandbox.deliverSampleSale({
				tokenEndPoint: `${partner.url}/token`,
				callbackUrl: `${partner.url}/callback`,
				...CLIENT,
			});
			expect(await sample.delivery).toMatchObject({ status: 'delivered', clientAuth });
			const [sent] = partner.tokenRequests;
			expect(partner.tokenRequests).toHaveLength(1);
			expect({ ...sent, authorization: sent.authorization ?? undefined }).toEqual({
				authorization: undefined,
				...EXPECTED[clientAuth],
			});
		},
	);

	it('defaults to basic; the delivery settings switch the spelling, and refuse an unknown one', async () => {
		sandbox = await startSandbox();
		expect(sandbox.state().settings.clientAuth).toBe('basic');
		sandbox.configureDelivery({ clientAuth: 'subscription_json' });
		expect(sandbox.state().settings.clientAuth).toBe('subscription_json');
		expect(() => sandbox!.configureDelivery({ clientAuth: 'json' as ClientAuthMethod })).toThrow(
			'clientAuth must be one of basic, client_secret_post, client_secret_json, subscription_json',
		);
	});
});
