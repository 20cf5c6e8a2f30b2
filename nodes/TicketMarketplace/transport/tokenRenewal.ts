/** The credential as a run uses it, and one renewal of its token at a time (n8n has no single flight): the first
 * request to meet an expired token empties the field (n8n then logs in), the others wait for it. A 401 to a token just
 * issued, or a refused login, stops sending (failed logins could lock the account). */
import type {
	ICredentialDataDecryptedObject,
	ICredentialsDecrypted,
	IExecuteFunctions,
	IN8nHttpFullResponse,
} from 'n8n-workflow';

import {
	basicAuthorization,
	loginValues,
	normalizeBaseUrl,
} from '../../shared/partnerApi/partnerApi';
import {
	accessTokenExpired,
	accessTokenForThisLogin,
	anyKeptRefreshToken,
	carryCancelSignal,
	failedTokenExchange,
	forgetTokenExchange,
} from '../../shared/partnerApi/pastN8n';
import { meaningOfDiagnosis } from '../../shared/partnerApi/tokenDiagnosis';
import { answerMeaning, UnreadableFileError } from './attempt';
import type { Answer, AuthenticatedAnswer, AuthenticatedSendOptions } from './attempt';
import { parseRetryAfter, retryWait, RETRY_POLICY } from './retryAfter';
import { onAborted, stoppedWhileWaiting, unlessAborted } from './waitOrStop';

export const CREDENTIAL_NAME = 'ticketMarketplaceApi';

/** More means something else keeps invalidating the token (another workflow renewing it), and each is a login. */
export const MAX_RENEWALS_PER_RUN = 3;

/** Read once for a run: n8n would decrypt it for each request, and one object carries a renewed token to all. */
export interface RunCredential {
	baseUrl: string;
	decrypted: ICredentialsDecrypted;
	renewal: TokenRenewal;
}

export async function readRunCredential(this: IExecuteFunctions): Promise<RunCredential> {
	const data = await this.getCredentials(CREDENTIAL_NAME);
	const reference = this.getNode().credentials?.[CREDENTIAL_NAME];
	return {
		baseUrl: normalizeBaseUrl(data.baseUrl),
		decrypted: {
			id: reference?.id ?? '',
			name: reference?.name ?? '',
			type: CREDENTIAL_NAME,
			data,
		},
		renewal: new TokenRenewal(data, this.getExecutionCancelSignal?.()),
	};
}

export async function getBaseUrl(this: IExecuteFunctions): Promise<string> {
	return normalizeBaseUrl((await this.getCredentials(CREDENTIAL_NAME)).baseUrl);
}

/** Never echoed into an output: the credential's values, and every token the run's requests carried. */
export function runSecrets({ decrypted, renewal }: RunCredential): string[] {
	return [...new Set([...credentialSecrets(decrypted.data), ...renewal.carried])].filter(long);
}

/** Every value an answer could echo (the Basic key:secret and refresh token too), read when asked. */
export function credentialSecrets(data: ICredentialDataDecryptedObject | undefined): string[] {
	if (!data) return [];
	const values = ['consumerKey', 'consumerSecret', 'email', 'password', 'accessToken']
		.map((key) => data[key])
		.filter((value): value is string => typeof value === 'string');
	// As sent, too (trimmed).
	const basic = basicAuthorization(data.consumerKey, data.consumerSecret).slice('Basic '.length);
	values.push(...Object.values(loginValues(data)), basic, ...anyKeptRefreshToken(data));
	return [...new Set(values)].filter(long);
}

/** Shorter values are not redacted: they would blank out ordinary words and numbers. */
const long = (value: string) => value.length >= 4;

const READ_ALONE = (response: IN8nHttpFullResponse) =>
	answerMeaning(response, { path: '' }, () => []);

/** One request through the renewal: whether it carries the renewal under way, the API's last 401 to it, its retries. */
interface Attempt {
	renewing: boolean;
	refusal?: Answer;
	rateLimitRetries: number;
	connectionRetries: number;
}

export class TokenRenewal {
	private underWay?: { done: Promise<void>; end: () => void };
	/** Why renewing is hopeless, once it is: nothing more is sent. */
	private gaveUp?: 'login' | 'freshTokenRefused' | 'renewalsExhausted';
	/** A token this run obtained that no answer has accepted yet. */
	private unconfirmed?: string;
	private renewals = 0;
	/** Every token this run's requests carried: an answer read after a renewal may echo the one it replaced. */
	readonly carried = new Set<string>();

	constructor(
		/** n8n reads the token from it and writes a new one into it. */
		private readonly credential: ICredentialDataDecryptedObject,
		private readonly cancel?: AbortSignal,
	) {
		carryCancelSignal(credential, cancel);
	}

	private get token(): string {
		const token = this.credential.accessToken;
		return typeof token === 'string' ? token : '';
	}

	/** The next request goes with the token held, no login first (a 401 to it is still renewed once). */
	get tokenHeld(): boolean {
		// Not another login's token (the credential was edited), nor an expired one while renewals are left.
		if (this.token === '' || accessTokenForThisLogin(this.credential) === '') return false;
		if (this.renewals >= MAX_RENEWALS_PER_RUN) return true;
		return !accessTokenExpired(this.credential, Date.now());
	}

	private begin(attempt: Attempt): void {
		attempt.renewing = true;
		this.credential.accessToken = '';
		this.renewals++;
		forgetTokenExchange(this.credential);
		let end = () => {};
		const done = new Promise<void>((resolve) => (end = resolve));
		this.underWay = { done, end };
	}

	/** Ends the renewal under way; `confirmed` when an answer other than 401 has accepted the new token. */
	private end(givenUp: boolean, confirmed = false): void {
		if (givenUp) this.gaveUp ??= 'login';
		else this.unconfirmed = confirmed || this.token === '' ? undefined : this.token;
		this.underWay?.end();
		this.underWay = undefined;
	}

	/** Sends through n8n's httpRequestWithAuthentication (which logs in when the field is empty), renewing as above. */
	async send(
		sendOnce: () => Promise<IN8nHttpFullResponse>,
		{ onResend, closed, meaningOf = READ_ALONE }: AuthenticatedSendOptions = {},
	): Promise<AuthenticatedAnswer> {
		const attempt: Attempt = { renewing: false, rateLimitRetries: 0, connectionRetries: 0 };
		for (;;) {
			const turn = attempt.renewing || (await this.takeTurn(attempt));
			if (!turn || closed?.aborted) return this.notSent(attempt);
			const tokenAtSend = this.token;
			if (tokenAtSend !== '') this.carried.add(tokenAtSend);
			// Stopped during the login: the field, still empty then, shows the request never left.
			let stoppedBeforeToken = false;
			const onAbort = () => (stoppedBeforeToken ||= attempt.renewing && this.token === '');
			const unsubscribe = this.cancel && onAborted(this.cancel, onAbort);
			let response: IN8nHttpFullResponse;
			try {
				response = await sendOnce();
			} catch (error) {
				if (!attempt.renewing) return { kind: 'thrown', error };
				// Its body could not start (a file gone): no login was tried, so the next request renews instead.
				if (error instanceof UnreadableFileError) {
					this.end(false);
					return { kind: 'thrown', error };
				}
				if (stoppedBeforeToken) return this.notSent(attempt);
				const failed = await this.afterFailedLogin(error, attempt, closed);
				if (failed) return failed;
				continue;
			} finally {
				unsubscribe?.();
				// A renewing request went with the token n8n has just written.
				if (this.token !== '') this.carried.add(this.token);
			}
			let meaning: Answer['meaning'] | undefined;
			try {
				meaning = meaningOf(response);
			} finally {
				// Its reading threw (an answer no rule foresaw): the renewal it carried ends, so no other waits on it.
				if (meaning === undefined && attempt.renewing) this.end(false);
			}
			const answered = this.afterAnswer({ response, meaning }, tokenAtSend, attempt);
			if (answered) return answered;
			onResend?.();
		}
	}

	/** Waits out a renewal under way, and begins one when the token must be renewed; false: send nothing. */
	private async takeTurn(attempt: Attempt): Promise<boolean> {
		while (this.underWay) {
			const settled = this.underWay.done.then(() => true);
			if (!(await unlessAborted(settled, this.cancel, () => false))) return false;
		}
		if (this.gaveUp || this.cancel?.aborted) return false;
		if (!this.tokenHeld) this.begin(attempt);
		return true;
	}

	/** The renewing request threw. A login that may pass later is retried after a wait (undefined: go on). */
	private async afterFailedLogin(
		error: unknown,
		attempt: Attempt,
		closed?: AbortSignal,
	): Promise<AuthenticatedAnswer | undefined> {
		const exchange = this.token === '' ? failedTokenExchange(this.credential) : undefined;
		if (exchange === undefined) {
			this.end(this.token === '');
			return { kind: 'thrown', error };
		}
		// A login the token endpoint may accept later goes again after a wait, as its row says, within budget.
		const retry = meaningOfDiagnosis(exchange.diagnosis)?.retry;
		const said = retry === 'rateLimit' ? exchange.answer.retryAfter : undefined;
		const retryAfterMs = parseRetryAfter(said, Date.now());
		const tooLong = retryAfterMs !== undefined && retryAfterMs > RETRY_POLICY.maxRetryAfterMs;
		const waitMs = tooLong ? undefined : retryWait(retry, attempt, retryAfterMs);
		if (waitMs === undefined) {
			this.end(true);
			return { kind: 'thrown', error: exchange.error };
		}
		if (await stoppedWhileWaiting(waitMs, this.cancel, closed)) return this.notSent(attempt);
		forgetTokenExchange(this.credential);
		return undefined;
	}

	/** The answer, unless a renewed token may mend it (undefined: the request goes again). */
	private afterAnswer(
		answer: Answer,
		tokenAtSend: string,
		attempt: Attempt,
	): AuthenticatedAnswer | undefined {
		if (answer.meaning.retry !== 'renewToken') {
			if (attempt.renewing) this.end(false, true);
			else if (tokenAtSend === this.unconfirmed) this.unconfirmed = undefined;
			return { kind: 'response', ...answer, refusedAfterRenewal: false };
		}
		if (attempt.renewing || (tokenAtSend !== '' && tokenAtSend === this.unconfirmed)) {
			this.gaveUp = 'freshTokenRefused';
			if (attempt.renewing) this.end(true);
			return { kind: 'response', ...answer, refusedAfterRenewal: true };
		}
		const replaced = this.underWay !== undefined || tokenAtSend !== this.token;
		if (!replaced && this.renewals >= MAX_RENEWALS_PER_RUN) {
			// A fresh token refused says more: it stays the reason.
			if (this.gaveUp !== 'freshTokenRefused') this.gaveUp = 'renewalsExhausted';
			const renewalsExhausted = this.renewals;
			return { kind: 'response', ...answer, refusedAfterRenewal: false, renewalsExhausted };
		}
		attempt.refusal = answer;
		// The token in use has expired (no other request replaced it): this request renews it.
		if (!replaced) this.begin(attempt);
		return undefined;
	}

	/** Not sent (again), ending the renewal it carried: the API's last 401 to it, if any, is what became of it. */
	private notSent({ renewing, refusal }: Attempt): AuthenticatedAnswer {
		if (renewing) this.end(false);
		if (!refusal) return { kind: 'notSent' };
		const refusedAfterRenewal = this.gaveUp === 'freshTokenRefused';
		const exhausted = this.gaveUp === 'renewalsExhausted' && { renewalsExhausted: this.renewals };
		return { kind: 'response', ...refusal, refusedAfterRenewal, ...exhausted };
	}
}
