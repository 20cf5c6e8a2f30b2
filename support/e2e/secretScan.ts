/**
 * One scan for secrets over everything the e2e suite leaves behind: n8n's log, every stored execution (output
 * items and error messages included), and the sandbox's inspection output (its state: request log, deliveries and
 * their errors, tokens, subscriptions). It looks for the harness's known secrets, their Basic encodings, and the
 * shape of any token the trigger issues.
 */
import { readFileSync } from 'node:fs';

import { SANDBOX_DEFAULTS } from '../../sandbox/index';
import { CHAT_STAND_IN_TOKEN } from '../harness/chatStandIn';
import {
	credentialsFor,
	LISTING_ASSISTANT_CHAT_LOGIN,
	TICKET_PDF_FORM_LOGIN,
	WRONG_MARKETPLACE_PASSWORD,
} from '../harness/harness';
import { OPENAI_STAND_IN_KEY } from '../harness/openAiStandIn';
import type { E2e } from './helpers';

export interface ScanSource {
	name: string;
	text: string;
}

export interface SecretFinding {
	source: string;
	secret: string;
	/** Where it was found, with the secret itself masked. */
	around: string;
}

export interface KnownSecret {
	label: string;
	/** An exact value, or a pattern for values the suite cannot know in advance (issued tokens). */
	value: string | RegExp;
}

function basicCredentials(id: string, secret: string): string {
	return Buffer.from(`${id}:${secret}`).toString('base64');
}

/** The harness's secrets, as typed and as sent in Basic headers, and the shape of the trigger's tokens. */
export function knownSecrets(e2e: Pick<E2e, 'context'>): KnownSecret[] {
	const [api, callback] = credentialsFor(e2e.context.sandboxUrl).map(
		(credential) => credential.data as Record<string, string>,
	);
	return [
		{ label: 'consumer secret', value: api.consumerSecret },
		{ label: 'marketplace password', value: api.password },
		{ label: 'wrong marketplace password', value: WRONG_MARKETPLACE_PASSWORD },
		{ label: 'developer-portal password', value: SANDBOX_DEFAULTS.developerAccount.password },
		{ label: 'callback client secret', value: callback.clientSecret },
		{
			label: 'consumer Basic credentials',
			value: basicCredentials(api.consumerKey, api.consumerSecret),
		},
		{
			label: 'callback Basic credentials',
			value: basicCredentials(callback.clientId, callback.clientSecret),
		},
		{ label: 'n8n API key', value: e2e.context.apiKey },
		{ label: 'chat stand-in token', value: CHAT_STAND_IN_TOKEN },
		{ label: 'OpenAI stand-in API key', value: OPENAI_STAND_IN_KEY },
		{ label: 'AI chat password', value: LISTING_ASSISTANT_CHAT_LOGIN.password },
		{
			label: 'AI chat Basic credentials',
			value: basicCredentials(
				LISTING_ASSISTANT_CHAT_LOGIN.user,
				LISTING_ASSISTANT_CHAT_LOGIN.password,
			),
		},
		{ label: 'ticket PDF form password', value: TICKET_PDF_FORM_LOGIN.password },
		{
			label: 'ticket PDF form Basic credentials',
			value: basicCredentials(TICKET_PDF_FORM_LOGIN.user, TICKET_PDF_FORM_LOGIN.password),
		},
		// tmt1.<claims>.<HMAC-SHA256>: a signature is 43 base64url characters.
		{
			label: 'trigger access token',
			value: /tmt1\.[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/,
		},
	];
}

export function scanForSecrets(sources: ScanSource[], secrets: KnownSecret[]): SecretFinding[] {
	const findings: SecretFinding[] = [];
	for (const source of sources) {
		for (const secret of secrets) {
			const match =
				typeof secret.value === 'string'
					? (() => {
							const index = source.text.indexOf(secret.value);
							return index < 0 ? undefined : { index, length: secret.value.length };
						})()
					: (() => {
							const found = secret.value.exec(source.text);
							return found ? { index: found.index, length: found[0].length } : undefined;
						})();
			if (!match) continue;
			const before = source.text.slice(Math.max(0, match.index - 60), match.index);
			const after = source.text.slice(match.index + match.length, match.index + match.length + 60);
			findings.push({
				source: source.name,
				secret: secret.label,
				around: `${before}<${secret.label}>${after}`,
			});
		}
	}
	return findings;
}

/** Everything the scan reads, fetched now: n8n's log, every execution of every workflow, the sandbox's state. */
export async function collectScanSources(e2e: E2e): Promise<ScanSource[]> {
	const sources: ScanSource[] = [
		{ name: 'n8n log', text: readFileSync(e2e.context.n8nLogFile, 'utf8') },
	];
	const { data: workflows } = await e2e.n8n.request<{ data: Array<{ id: string; name: string }> }>(
		'GET',
		'/workflows?limit=250',
	);
	for (const workflow of workflows) {
		for (const execution of await e2e.n8n.executions(workflow.id, true)) {
			sources.push({
				name: `execution ${execution.id} of "${workflow.name}"`,
				text: JSON.stringify(execution),
			});
		}
	}
	sources.push({
		name: 'sandbox state (inspection output)',
		text: JSON.stringify(await e2e.sandbox.state()),
	});
	return sources;
}
