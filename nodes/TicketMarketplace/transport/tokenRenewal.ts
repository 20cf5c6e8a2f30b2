/**
 * One renewal of the access token at a time for a whole run: n8n has no single flight, so every listing in flight
 * that met an expired token would log in with the seller's password. The first request to meet it empties the field
 * (n8n logs in before re-sending it); the others wait for its answer. A 401 to a token just issued, or a refused
 * login, stops sending (failed logins could lock the account); a token endpoint's 429 or 5xx is retried, bounded.
 */
import type { ICredentialDataDecryptedObject, IN8nHttpFullResponse } from 'n8n-workflow';

import { stoppedWhileWaiting } from './waitOrStop';

import {
	accessTokenExpired,
	accessTokenForThisLogin,
	carryCancelSignal,
	failedTokenExchange,
	forgetTokenExchange,
} from '../../shared/partnerApi/pastN8n';
import { meaningOfDiagnosis } from '../../shared/partnerApi/tokenDiagnosis';
import type { AnswerMeaning } from '../../shared/partnerApi/answerTable';
import type { FailedTokenExchange } from '../../shared/partnerApi/pastN8n';
import { answerMeaning } from './httpFailure';
import { settledOrStopped } from './request';
import type { AuthenticatedAnswer, AuthenticatedSendOptions } from './request';
import { backoffMs, parseRetryAfter, rateRetryWaitMs, RETRY_POLICY } from './retryAfter';

/** More means something else keeps invalidating the token (another workflow renewing it), and each is a login. */
export const MAX_RENEWALS_PER_RUN = 3;

const READ_ALONE = (response: IN8nHttpFullResponse) =>
	answerMeaning(response, { path: '' }, () => []);

interface Attempt {
	/** This request carries the renewal under way. */
	renewing: boolean;
	/** The API's last refusal of this request's token. */
	refusal?: { response: IN8nHttpFullResponse; meaning: AnswerMeaning };
	rateLimitRetries: number;
	serverErrorRetries: number;
}

export class TokenRenewal {
	/** Settles when the renewal under way ends. */
	private underWay?: Promise<void>;
	private endRenewal = () => {};
	/** Renewing is hopeless (login refused, fresh token refused, renewals exhausted): nothing more is sent. */
	private givenUp = false;
	private freshTokenRefused = false;
	private renewalsExhausted = false;
	/** A token this run obtained that no answer has accepted yet. */
	private unconfirmed?: string;
	private renewals = 0;
	/** Every token this run's requests carried: an answer read after a renewal may echo the one it replaced. */
	private readonly carried = new Set<string>();

	constructor(
		/** n8n reads the token from it and writes a new one into it. */
		private readonly credential: ICredentialDataDecryptedObject,
		cancel?: AbortSignal,
	) {
		carryCancelSignal(credential, cancel);
	}

	tokensCarried(): string[] {
		return [...this.carried];
	}

	private get token(): string {
		const token = this.credential.accessToken;
		return typeof token === 'string' ? token : '';
	}

	private begin(): void {
		this.renewals++;
		forgetTokenExchange(this.credential);
		this.underWay = new Promise<void>((resolve) => {
			this.endRenewal = resolve;
		});
	}

	/** Ends the renewal under way; `confirmed` when an answer other than 401 has accepted the new token. */
	private end({ givenUp, confirmed = false }: { givenUp: boolean; confirmed?: boolean }): void {
		if (givenUp) this.givenUp = true;
		else this.unconfirmed = confirmed || this.token === '' ? undefined : this.token;
		this.underWay = undefined;
		this.endRenewal();
	}

	/** Sends through n8n's httpRequestWithAuthentication (which logs in when the field is empty), renewing as above. */
	async send(
		sendOnce: () => Promise<IN8nHttpFullResponse>,
		{ cancel, onResend, closed, meaningOf = READ_ALONE }: AuthenticatedSendOptions = {},
	): Promise<AuthenticatedAnswer> {
		const attempt: Attempt = { renewing: false, rateLimitRetries: 0, serverErrorRetries: 0 };
		for (;;) {
			if (!attempt.renewing && !(await this.takeTurn(attempt, cancel)))
				return this.notSent(attempt);
			if (closed?.aborted) {
				if (attempt.renewing) this.end({ givenUp: false });
				return this.notSent(attempt);
			}
			const tokenAtSend = this.token;
			if (tokenAtSend !== '') this.carried.add(tokenAtSend);
			// Stopped during the login: the field, still empty then, shows the request never left.
			let stoppedBeforeToken = false;
			const onAbort = () => {
				if (attempt.renewing && this.token === '') stoppedBeforeToken = true;
			};
			cancel?.addEventListener('abort', onAbort, { once: true });
			let response: IN8nHttpFullResponse;
			try {
				response = await sendOnce();
			} catch (error) {
				if (!attempt.renewing) return { kind: 'thrown', error };
				if (stoppedBeforeToken) {
					this.end({ givenUp: false });
					return this.notSent(attempt);
				}
				const failed = await this.afterFailedLogin(error, attempt, cancel, closed);
				if (failed) return failed;
				continue;
			} finally {
				cancel?.removeEventListener('abort', onAbort);
				// A renewing request went with the token n8n has just written.
				if (this.token !== '') this.carried.add(this.token);
			}
			const answered = this.afterAnswer(
				{ response, meaning: meaningOf(response) },
				tokenAtSend,
				attempt,
			);
			if (answered) return answered;
			onResend?.();
		}
	}

	/** Waits out a renewal under way, and begins one when the token must be renewed; false: send nothing. */
	private async takeTurn(attempt: Attempt, cancel?: AbortSignal): Promise<boolean> {
		while (this.underWay) {
			if (!(await settledOrStopped(this.underWay, cancel))) return false;
		}
		if (this.givenUp || cancel?.aborted) return false;
		// Not sent: another login's token (the credential was edited), or one past its lifetime (within the run's
		// limit of renewals; past that, the API's 401 decides).
		const stale = () =>
			accessTokenForThisLogin(this.credential) === '' ||
			(this.renewals < MAX_RENEWALS_PER_RUN && accessTokenExpired(this.credential, Date.now()));
		if (this.token !== '' && stale()) this.credential.accessToken = '';
		if (this.token === '') {
			attempt.renewing = true;
			this.begin();
		}
		return true;
	}

	/** The renewing request threw. A login that may pass later is retried after a wait (undefined: go on). */
	private async afterFailedLogin(
		error: unknown,
		attempt: Attempt,
		cancel?: AbortSignal,
		closed?: AbortSignal,
	): Promise<AuthenticatedAnswer | undefined> {
		const exchange = this.token === '' ? failedTokenExchange(this.credential) : undefined;
		if (exchange === undefined) {
			this.end({ givenUp: this.token === '' });
			return { kind: 'thrown', error };
		}
		const waitMs = this.retryWait(exchange, attempt);
		if (waitMs === undefined) {
			this.end({ givenUp: true });
			return { kind: 'thrown', error: exchange.error };
		}
		const pacer = closed === undefined ? undefined : { closedSignal: closed };
		if (!(await stoppedWhileWaiting(waitMs, cancel, pacer))) {
			forgetTokenExchange(this.credential);
			return undefined;
		}
		this.end({ givenUp: false });
		return this.notSent(attempt);
	}

	/** The answer, unless a renewed token may mend it (undefined: the request goes again). */
	private afterAnswer(
		answer: { response: IN8nHttpFullResponse; meaning: AnswerMeaning },
		tokenAtSend: string,
		attempt: Attempt,
	): AuthenticatedAnswer | undefined {
		if (answer.meaning.retry !== 'renewToken') {
			if (attempt.renewing) this.end({ givenUp: false, confirmed: true });
			else if (tokenAtSend === this.unconfirmed) this.unconfirmed = undefined;
			return { kind: 'response', ...answer, refusedAfterRenewal: false };
		}
		const refusedFreshToken =
			attempt.renewing || (tokenAtSend !== '' && tokenAtSend === this.unconfirmed);
		const replaced = this.underWay !== undefined || tokenAtSend !== this.token;
		if (refusedFreshToken) {
			this.freshTokenRefused = true;
			if (attempt.renewing) this.end({ givenUp: true });
			else this.givenUp = true;
			return { kind: 'response', ...answer, refusedAfterRenewal: true };
		}
		if (!replaced && this.renewals >= MAX_RENEWALS_PER_RUN) {
			this.renewalsExhausted = true;
			this.givenUp = true;
			return {
				kind: 'response',
				...answer,
				refusedAfterRenewal: false,
				renewalsExhausted: this.renewals,
			};
		}
		attempt.refusal = answer;
		if (replaced) return undefined;
		// The token in use has expired: this request renews it.
		attempt.renewing = true;
		this.begin();
		this.credential.accessToken = '';
		return undefined;
	}

	/** Not sent (again): the API's last 401 to this request, if any, is what became of it. */
	private notSent(attempt: Attempt): AuthenticatedAnswer {
		return attempt.refusal
			? {
					kind: 'response',
					...attempt.refusal,
					refusedAfterRenewal: this.freshTokenRefused,
					...(this.renewalsExhausted && { renewalsExhausted: this.renewals }),
				}
			: { kind: 'notSent' };
	}

	/** The wait before logging in again as the answer's row says, within budget (counted); undefined: final. */
	private retryWait(
		{ diagnosis, answer }: FailedTokenExchange,
		attempt: Attempt,
	): number | undefined {
		const retry = meaningOfDiagnosis(diagnosis)?.retry;
		if (retry === 'rateLimit') {
			if (attempt.rateLimitRetries >= RETRY_POLICY.maxRateLimitRetries) return undefined;
			const retryAfterMs = parseRetryAfter(answer.retryAfter || undefined, Date.now());
			if (retryAfterMs !== undefined && retryAfterMs > RETRY_POLICY.maxRetryAfterMs)
				return undefined;
			return rateRetryWaitMs(retryAfterMs, attempt.rateLimitRetries++);
		}
		if (retry !== 'reconnect' || attempt.serverErrorRetries >= RETRY_POLICY.maxConnectionRetries)
			return undefined;
		return backoffMs(attempt.serverErrorRetries++);
	}
}
