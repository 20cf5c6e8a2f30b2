/**
 * Webhook → Subscribe refuses URLs the Ticket Marketplace Trigger can never serve, before anything is sent (each
 * subscription costs 24 to 48 hours of activation and cannot be taken back): swapped, Test URLs, two triggers, one
 * URL twice. URLs not in n8n's shape (a public address behind a proxy, another webhook path) are not judged by it.
 */
import nock from 'nock';
import { NodeOperationError } from 'n8n-workflow';

import { execute } from '../../../../../../../nodes/TicketMarketplace/actions/webhook/subscribe/execute';
import { triggerUrlProblems } from '../../../../../../../nodes/TicketMarketplace/actions/webhook/subscribe/triggerUrls';
import {
	BASE,
	CALLBACK_CREDENTIALS,
	fakeRun,
} from '../../../../../../../support/fakeN8n/actionContext';
import { PARTNER_API_PATHS } from '../../../../../../../nodes/shared/partnerApi/paths';

const N8N = 'https://n8n.example.test';
const ID = '0f3c2f8e-5b7a-4f6e-9a43-1d2c3b4a5e6f';
const OTHER_ID = '7d1e4c2b-0a9f-4e8d-b7c6-5a4b3c2d1e0f';
const url = (path: string, id = ID, segment = 'webhook') => `${N8N}/${segment}/${id}/${path}`;

/** Runs Subscribe with these two URLs against an API that would accept anything; says what was sent. */
async function subscribe(callbackUrl: string, callbackAuthUrl: string) {
	const token = nock(BASE)
		.post(PARTNER_API_PATHS.grant)
		.query(true)
		.reply(200, { access_token: 'tok-urls' });
	const sent: unknown[] = [];
	nock(BASE)
		.post(PARTNER_API_PATHS.webhooks)
		.reply((_uri, body) => {
			sent.push(body);
			return [201, { id: 'sub-1' }];
		});
	const fake = fakeRun({
		parameters: { callbackUrl, callbackAuthUrl, subscriptionKinds: ['listing_sale'], options: {} },
		callbackCredentials: CALLBACK_CREDENTIALS,
	});
	const outcome = await execute.call(fake.context, [{ json: {} }]).then(
		(output) => ({ output, error: undefined }),
		(error: unknown) => ({ output: undefined, error: error as NodeOperationError }),
	);
	return { ...outcome, sent, tokenRequested: token.isDone() };
}

afterEach(() => nock.cleanAll());

describe('Webhook → Subscribe: URLs the trigger can never serve are refused, nothing sent', () => {
	it.each<[string, string, string, string[]]>([
		[
			'the two URLs swapped',
			url('token'),
			url('notifications'),
			[
				"Callback URL ends in /token: that is the trigger's Token URL; use its URL that ends in /notifications (the two URLs are swapped)",
				"Token URL ends in /notifications: that is the trigger's notifications URL; use its URL that ends in /token (the two URLs are swapped)",
			],
		],
		[
			'the Token URL in both fields',
			url('token'),
			url('token'),
			[
				'Token URL is the same as Callback URL: the trigger has two URLs, one ending in /token and one in /notifications',
			],
		],
		[
			'one URL behind a proxy in both fields',
			'https://hooks.example.test/marketplace',
			'https://hooks.example.test/marketplace',
			[
				'Token URL is the same as Callback URL: the trigger has two URLs, one ending in /token and one in /notifications',
			],
		],
		[
			"the editor's Test URLs",
			url('notifications', ID, 'webhook-test'),
			url('token', ID, 'webhook-test'),
			[
				"Callback URL is a Test URL (/webhook-test/), which answers only while the editor listens for a test event: copy the trigger's Production URL (…/webhook/…) and publish its workflow",
				"Token URL is a Test URL (/webhook-test/), which answers only while the editor listens for a test event: copy the trigger's Production URL (…/webhook/…) and publish its workflow",
			],
		],
		[
			'a Test URL in one field only',
			url('notifications'),
			url('token', ID, 'webhook-test'),
			[
				"Token URL is a Test URL (/webhook-test/), which answers only while the editor listens for a test event: copy the trigger's Production URL (…/webhook/…) and publish its workflow",
			],
		],
		[
			'the URLs of two triggers',
			url('notifications'),
			url('token', OTHER_ID),
			[
				`Token URL belongs to another trigger than Callback URL (${OTHER_ID} and ${ID}): copy both URLs from the one Ticket Marketplace Trigger that should receive the sales`,
			],
		],
		[
			'the URLs of two triggers without a webhook ID (workflow and node)',
			`${N8N}/webhook/wf1/ticket%20marketplace%20trigger/notifications`,
			`${N8N}/webhook/wf2/ticket%20marketplace%20trigger/token`,
			[
				'Token URL belongs to another trigger than Callback URL (wf2/ticket%20marketplace%20trigger and wf1/ticket%20marketplace%20trigger): copy both URLs from the one Ticket Marketplace Trigger that should receive the sales',
			],
		],
		[
			'a Token URL on another host whose path names the same trigger',
			url('notifications'),
			`https://other.example.test/webhook/${ID}/token`,
			[
				`Token URL is on another server (https://other.example.test) than Callback URL (${N8N}): the marketplace sends the callback client secret to the Token URL, so both must be the trigger's URLs on the same n8n; copy both from the one trigger`,
			],
		],
		[
			'a Token URL on plain http:// on the same host',
			url('notifications'),
			`http://n8n.example.test/webhook/${ID}/token`,
			[
				"Token URL starts with http:// and the marketplace would send the callback client secret there unencrypted: use the trigger's https:// Production URL (set n8n's public address, WEBHOOK_URL, to https://…); plain http:// is only for the sandbox on this machine",
				`Token URL is on another server (http://n8n.example.test) than Callback URL (${N8N}): the marketplace sends the callback client secret to the Token URL, so both must be the trigger's URLs on the same n8n; copy both from the one trigger`,
			],
		],
	])('%s', async (_name, callbackUrl, tokenUrl, expected) => {
		const { error, sent, tokenRequested } = await subscribe(callbackUrl, tokenUrl);
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error?.message).toBe('Item 1: the subscription is invalid; nothing was sent');
		expect(error?.description).toBe(
			['Fix these fields in the node, then run it again:', ...expected].join('\n'),
		);
		expect(error?.context.itemIndex).toBe(0);
		expect(sent).toEqual([]);
		expect(tokenRequested).toBe(false);
	});

	it.each<[string, string, string]>([
		['the production URLs of one trigger', url('notifications'), url('token')],
		[
			'a trigger without a webhook ID (workflow ID and node name)',
			`${N8N}/webhook/wf1/ticket%20marketplace%20trigger/notifications`,
			`${N8N}/webhook/wf1/ticket%20marketplace%20trigger/token`,
		],
		[
			'a public address with a base path (WEBHOOK_URL)',
			`https://example.test/automation/webhook/${ID}/notifications`,
			`https://example.test/automation/webhook/${ID}/token`,
		],
		[
			'a base path that itself ends in /webhook',
			`https://example.test/webhook/webhook/${ID}/notifications`,
			`https://example.test/webhook/webhook/${ID}/token`,
		],
		[
			'a renamed webhook segment (N8N_ENDPOINT_WEBHOOK)',
			`${N8N}/hooks/${ID}/notifications`,
			`${N8N}/hooks/${ID}/token`,
		],
		[
			'a reverse proxy with paths of its own',
			'https://sales.example.test/marketplace/notify',
			'https://sales.example.test/marketplace/oauth',
		],
		[
			'a proxy whose callback path ends in /token (not n8n shape: where it forwards is unseen)',
			'https://sales.example.test/token',
			'https://sales.example.test/auth',
		],
		['a webhook ID in capitals in one field', url('notifications'), url('token', ID.toUpperCase())],
	])('sends %s', async (_name, callbackUrl, tokenUrl) => {
		const { error, sent } = await subscribe(callbackUrl, tokenUrl);
		expect(error).toBeUndefined();
		expect(sent).toHaveLength(1);
	});

	it('judges URLs in n8n shape only: another segment name is not read as a Test URL or as swapped', () => {
		expect(
			triggerUrlProblems(`${N8N}/hooks/${ID}/token`, `${N8N}/hooks/${ID}/notifications`),
		).toEqual([]);
		expect(
			triggerUrlProblems(
				`${N8N}/webhook-test-2/${ID}/notifications`,
				`${N8N}/webhook-test-2/${ID}/token`,
			),
		).toEqual([]);
	});
});
