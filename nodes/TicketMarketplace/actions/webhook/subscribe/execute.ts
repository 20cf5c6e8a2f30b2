/** Webhook → Subscribe: every item is checked before the first is sent; each returns the ID to e-mail support. */
import {
	NodeOperationError,
	type ICredentialDataDecryptedObject,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
} from 'n8n-workflow';
import { z } from 'zod';

import {
	CALLBACK_CREDENTIAL_TYPE,
	CALLBACK_FIX,
	readCallbackClient,
} from '../../../../shared/callbackCredential';
import {
	asNodeError,
	listFirst,
	LISTED_IN_MESSAGES,
	withMoreDescription,
} from '../../../helpers/errors';
import { refuseAsAgentTool } from '../../../helpers/agentTool';
import { showsCreated } from '../../../../shared/partnerApi/evidence';
import { asRecord } from '../../../../shared/partnerApi/apiAnswers';
import { PARTNER_API_PATHS } from '../../../../shared/partnerApi/paths';
import { labelIssues, pathKey } from '../../../schemas/listing';
import { apiRequest, buildRequest } from '../../../transport';
import { getBaseUrl } from '../../../transport/tokenRenewal';
import { readsAsV1 } from '../../versions';
import { isLoopbackUrl, triggerUrlProblems, urlOriginProblems } from './triggerUrls';

const NEXT_STEP_WITH_ID = (id: string) =>
	`E-mail the subscription identifier ${id} to the marketplace's API support team and ask for final activation. Activation takes 24 to 48 hours. Create no listings until support confirms that the webhook is active: listings created before then never send sale notifications.`;
export const NEXT_STEP_WITHOUT_ID =
	"No subscription identifier was recognised in the response (looked for subscriptionId, webhookId, id, uuid and the same names under data, subscription, webhook and result). Find the identifier in the response below, e-mail it to the marketplace's API support team for final activation (24 to 48 hours), and create no listings until support confirms that the webhook is active.";

const AGENT_REFUSAL = 'Subscribe cannot run as an AI Agent tool; nothing was sent';
const AGENT_REFUSAL_WHY =
	'Each subscription needs 24 to 48 hours of activation and cannot be taken back, and it tells the marketplace where to send the callback credential.';

const RETRY_REFUSAL = 'Subscribe does not run with Retry On Fail; nothing was sent';
const RETRY_REFUSAL_WHY =
	"n8n's Retry On Fail runs the whole node again after any error, which would send again a subscription the marketplace may have taken, or took for an earlier item. Subscribe retries by itself what is safe to retry (too many requests, service unavailable, a connection that failed before sending). Turn off Settings → Retry On Fail on this node, then run it again.";

const httpUrl = z
	.string()
	.trim()
	.min(1, 'is required')
	.url('must be an absolute URL such as https://n8n.example.com/webhook/…')
	.refine((url) => /^https?:\/\//i.test(url), 'must start with https:// or http://');
const requiredText = z.string().trim().min(1, 'is required');

const subscriptionSchema = z.object({
	callback: z.object({
		url: httpUrl,
		auth: z.object({
			authType: requiredText,
			tokenEndPoint: httpUrl,
			// The client id and secret were checked by readCallbackClient, exactly as the trigger reads them.
			oauthRequest: z.object({
				clientId: z.string(),
				clientSecret: z.string(),
				grantType: requiredText,
			}),
		}),
	}),
	subscription: z.object({
		listing: z.array(requiredText).min(1, 'needs at least one kind, such as listing_sale'),
	}),
});
type Subscription = z.output<typeof subscriptionSchema>;

const SUBSCRIPTION_LABELS: Record<string, string> = {
	'callback.url': 'Callback URL',
	'callback.auth.tokenEndPoint': 'Token URL',
	'callback.auth.authType': 'Options → Auth Type',
	'callback.auth.oauthRequest.grantType': 'Options → Grant Type',
	'subscription.listing': 'Subscription Kinds',
};
const label = (path: Array<string | number>) => SUBSCRIPTION_LABELS[pathKey(path)] ?? pathKey(path);

function kindsFrom(value: unknown): string[] {
	const entries = Array.isArray(value)
		? value.flat()
		: typeof value === 'string'
			? value.split(',')
			: [];
	// Anything but text (an empty cell's null, an object) stays as is, for the schema to refuse.
	return entries
		.map((entry: unknown) => (typeof entry === 'string' ? entry.trim() : entry))
		.filter((entry) => entry !== '') as string[];
}

/** What keeps the URLs from being one trigger's, safe for the secret; plain http:// only for a local sandbox. */
async function urlProblems(this: IExecuteFunctions, { callback }: Subscription) {
	const [url, tokenUrl] = [callback.url, callback.auth.tokenEndPoint];
	const plain = [url, tokenUrl].some((address) => !/^https:/i.test(address));
	const plainHttpAllowed = plain && isLoopbackUrl(await getBaseUrl.call(this));
	return [
		...triggerUrlProblems(url, tokenUrl),
		...urlOriginProblems(url, tokenUrl, plainHttpAllowed),
	].map((problem) => ({ field: label(problem.path), text: problem.text }));
}

async function prepareSubscription(this: IExecuteFunctions, itemIndex: number) {
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	// The callback credential as the trigger reads it: one it would refuse is refused before days of activation.
	const client = readCallbackClient(
		await this.getCredentials<ICredentialDataDecryptedObject>(CALLBACK_CREDENTIAL_TYPE, itemIndex),
	);
	if (typeof client === 'string')
		throw new NodeOperationError(this.getNode(), `${client}; nothing was sent`, {
			description: `The Ticket Marketplace Trigger checks the marketplace against this same credential, so it must be usable there first. ${CALLBACK_FIX}`,
			itemIndex,
		});
	// From 1.1, Auth Type and Grant Type have their one documented value and the kinds are under Options.
	const asV1 = readsAsV1(this);
	const kinds = asV1
		? this.getNodeParameter('subscriptionKinds', itemIndex, ['listing_sale'])
		: (options.subscriptionKinds ?? ['listing_sale']);
	const parsed = subscriptionSchema.safeParse({
		callback: {
			url: this.getNodeParameter('callbackUrl', itemIndex, ''),
			auth: {
				authType: asV1 ? (options.authType ?? 'oauth') : 'oauth',
				tokenEndPoint: this.getNodeParameter('callbackAuthUrl', itemIndex, ''),
				oauthRequest: {
					...client,
					grantType: asV1 ? (options.grantType ?? 'client_credentials') : 'client_credentials',
				},
			},
		},
		subscription: { listing: kindsFrom(kinds) },
	});
	const problems = parsed.success
		? await urlProblems.call(this, parsed.data)
		: labelIssues(parsed.error, label);
	if (parsed.success && problems.length === 0) {
		// What the checks read goes, not the text: another parser must not read another host from it (a backslash).
		const { callback } = parsed.data;
		callback.url = new URL(callback.url).href;
		callback.auth.tokenEndPoint = new URL(callback.auth.tokenEndPoint).href;
		return parsed.data;
	}
	const fixes = problems.map((issue) => `${issue.field} ${issue.text}`);
	const message = `Item ${itemIndex + 1}: the subscription is invalid; nothing was sent`;
	throw new NodeOperationError(this.getNode(), message, {
		description: ['Fix these fields in the node, then run it again:', ...fixes].join('\n'),
		itemIndex,
	});
}

/** The spec says the answer holds a unique identifier but not under which name: these are the likely ones. */
const ID_KEYS =
	'subscriptionId subscription_id webhookId webhook_id id uuid identifier uniqueId'.split(' ');
const CONTAINER_KEYS = ['data', 'subscription', 'webhook', 'result'];

const isId = (value: unknown) =>
	(typeof value === 'string' && value.trim() !== '') ||
	(typeof value === 'number' && Number.isFinite(value));

/** Looks at the top level first, then one level into the usual wrappers (data.id, subscription.id, ...). */
export function findSubscriptionId(
	response: unknown,
): { value: string; field: string } | undefined {
	// A bare text answer counts only if it looks like an identifier (has a digit), not like "Created".
	if (typeof response === 'string' && /^[\w-]{6,}$/.test(response.trim()) && /\d/.test(response))
		return { value: response.trim(), field: '(whole response)' };
	const top = asRecord(response);
	const places = CONTAINER_KEYS.map((key) => [`${key}.`, asRecord(top?.[key])] as const);
	for (const [prefix, place] of [['', top] as const, ...places]) {
		const key = ID_KEYS.find((name) => isId(place?.[name]));
		if (key !== undefined) return { value: String(place![key]), field: `${prefix}${key}` };
	}
	return undefined;
}

async function sendSubscription(
	this: IExecuteFunctions,
	subscription: Subscription,
	itemIndex: number,
): Promise<IDataObject> {
	const secrets = [subscription.callback.auth.oauthRequest.clientSecret];
	const request = buildRequest('POST', PARTNER_API_PATHS.webhooks, { ...subscription });
	// A 2xx that does not show a submitted subscription (a page, an error document) is outcome unknown.
	const sent = { request, itemIndex, secrets, confirmedBy: showsCreated };
	// Redacted and bounded on the way in, the client secret included: a second pass would miscount what was cut.
	const response = await apiRequest.call(this, sent);
	const found = findSubscriptionId(response);
	return {
		subscriptionId: found?.value ?? null,
		subscriptionIdField: found?.field ?? null,
		...(found ? {} : { message: 'No subscription identifier was recognised in the response' }),
		nextStep: found ? NEXT_STEP_WITH_ID(found.value) : NEXT_STEP_WITHOUT_ID,
		response: (response ?? null) as IDataObject['response'],
	};
}

/** A failed item; n8n's error output takes only `{ error }` or `{ error, message }`, so the description goes there. */
function errorItem(error: unknown, itemIndex: number, errorOutput: boolean): INodeExecutionData {
	const failure = error as { message?: string; description?: string | null };
	const message = failure.message ?? String(error);
	const description = failure.description ?? null;
	return {
		json: errorOutput
			? { error: message, ...(description ? { message: description } : {}) }
			: { error: message, description },
		pairedItem: { item: itemIndex },
	};
}

/** Identifiers cannot be read back from the API and the activation e-mail needs them: a failure keeps them. */
function withEarlierIdentifiers(
	error: unknown,
	itemIndex: number,
	results: INodeExecutionData[],
	node: IExecuteFunctions,
) {
	const nodeError = asNodeError(node.getNode(), error, itemIndex);
	const obtained = results
		.map((result, index) => ({ index, id: result.json.subscriptionId }))
		.filter((entry) => typeof entry.id === 'string' && entry.id !== '');
	if (obtained.length === 0) return nodeError;
	const list = listFirst(obtained.map((entry) => `item ${entry.index + 1}: ${String(entry.id)}`));
	const all =
		obtained.length > LISTED_IN_MESSAGES
			? " (this error's data lists all of them, under subscriptionIds)"
			: '';
	const more = `Subscriptions submitted before this failure: e-mail these identifiers to API support for activation, and do not subscribe them again: ${list}${all}.`;
	const withIdentifiers = withMoreDescription(node.getNode(), nodeError, [more], itemIndex);
	withIdentifiers.context.subscriptionIds = obtained.map((entry) => String(entry.id));
	return withIdentifiers;
}

export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	refuseAsAgentTool(this, AGENT_REFUSAL, AGENT_REFUSAL_WHY);
	if (this.getNode().retryOnFail === true)
		throw new NodeOperationError(this.getNode(), RETRY_REFUSAL, { description: RETRY_REFUSAL_WHY });
	const continueOnFail = this.continueOnFail();
	const errorOutput = this.getNode().onError === 'continueErrorOutput';
	// An error item keeps the thrown words: n8n's own error would rewrite some (one holding ENOENT, say).
	const prepared: Array<Subscription | { failure: unknown }> = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			prepared.push(await prepareSubscription.call(this, itemIndex));
		} catch (error) {
			if (!continueOnFail) throw asNodeError(this.getNode(), error, itemIndex);
			prepared.push({ failure: error });
		}
	}
	const results: INodeExecutionData[] = [];
	// The same subscription twice (two rows, a Merge) is sent once: each one sent is one more to activate, for good.
	const sent = new Map<string, { first: number; answer: Promise<IDataObject> }>();
	// Sequential on purpose: each subscription needs its own activation e-mail, and there are only ever a few.
	for (const [itemIndex, entry] of prepared.entries()) {
		try {
			// Only with Continue On Fail: without it, the first failure stopped the run.
			if ('failure' in entry) throw entry.failure;
			const kinds = [...new Set(entry.subscription.listing)].sort();
			const key = JSON.stringify({ ...entry, subscription: { listing: kinds } });
			const { first, answer } = sent.get(key) ?? {
				first: itemIndex,
				answer: sendSubscription.call(this, entry, itemIndex),
			};
			sent.set(key, { first, answer });
			const json = await answer;
			const same = first === itemIndex ? {} : { sameSubscriptionAsItem: first + 1 };
			results.push({ json: { ...json, ...same }, pairedItem: { item: itemIndex } });
		} catch (error) {
			if (!continueOnFail) throw withEarlierIdentifiers(error, itemIndex, results, this);
			results.push(errorItem(error, itemIndex, errorOutput));
		}
	}
	return results;
}
