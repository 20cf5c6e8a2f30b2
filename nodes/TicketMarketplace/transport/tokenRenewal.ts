/**
 * One renewal of the access token at a time for a whole run. n8n renews a credential's token inside each request
 * that finds its field empty, with no single flight: with many listings in flight, every one that meets the expired
 * token would log in with the seller's password. Here the first request to meet it (a 401 carrying the current
 * token, or an empty token at send time) carries the renewal: it empties the field, so that n8n logs in before
 * re-sending it. Every other request waits until that request is answered, then goes with the new token; a 401
 * carrying a token older than the current one is simply sent again.
 *
 * The renewing request's answer also tells whether the new token works: a 401 to a token issued a moment ago is no
 * expiry, and no further login would help, so sending stops. A login refused stops sending too (one failed login
 * per listing could lock the seller's account); a token endpoint that answers 429 or 5xx is retried, bounded.
 */
import type { ICredentialDataDecryptedObject, IN8nHttpFullResponse } from 'n8n-workflow';

import { stoppedWhileWaiting } from './waitOrStop';

import {
	accessTokenExpired,
	accessTokenForThisLogin,
	carryCancelSignal,
	failedTokenExchange,
	forgetTokenExchange,
	meaningOfDiagnosis,
} from './fromCredential';
import type { AnswerMeaning, FailedTokenExchange } from './fromCredential';
import { answerMeaning } from './httpFailure';
import { settledOrStopped } from './request';
import type { AuthenticatedAnswer, AuthenticatedSendOptions } from './request';
import { backoffMs, parseRetryAfter, rateRetryWaitMs, RETRY_POLICY } from './retryAfter';

/**
 * Renewals in one run: more means something else keeps invalidating the token (often another workflow or n8n
 * renewing the same credential against an API whose new token revokes the old), and each renewal is a login.
 */
export const MAX_RENEWALS_PER_RUN = 3;

/** Without the request's own reading: the answer table's, of the answer alone. */
const READ_ALONE = (response: IN8nHttpFullResponse) =>
	answerMeaning(response, { path: '' }, () => []);

/** One request's way through the renewal. */
interface Attempt {
	/** This request carries the renewal under way. */
	renewing: boolean;
	/** The API's last refusal of this request's token, and what it means. */
	refusal?: { response: IN8nHttpFullResponse; meaning: AnswerMeaning };
	rateLimitRetries: number;
	serverErrorRetries: number;
}

export class TokenRenewal {
	/** Settles when the renewal under way ends; undefined when none is. */
	private underWay?: Promise<void>;
	private endRenewal = () => {};
	/** Set once renewing is hopeless (login refused, fresh token refused): nothing more is sent. */
	private givenUp = false;
	/** Given up because the API refused a token it had just issued. */
	private freshTokenRefused = false;
	/** Given up because the token expired once more after the run's last renewal (MAX_RENEWALS_PER_RUN). */
	private renewalsExhausted = false;
	/** A token this run obtained that no answer has accepted yet. */
	private unconfirmed?: string;
	private renewals = 0;
	/** Every token this run's requests carried: an answer read after a renewal may echo the one it replaced. */
	private readonly carried = new Set<string>();

	constructor(
		/** The run's decrypted credential, which n8n reads the token from and writes a new one into. */
		private readonly credential: ICredentialDataDecryptedObject,
		cancel?: AbortSignal,
	) {
		carryCancelSignal(credential, cancel);
	}

	/** The tokens this run's requests carried so far, the current one among them. */
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

	/**
	 * Sends through `sendOnce` (n8n's httpRequestWithAuthentication, which logs in first when the token field is
	 * empty) and deals with the token: waits while a renewal is under way, renews it once per expiry, re-sends a
	 * request refused for an old token.
	 */
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
			// A Stop while the login is under way: n8n then sends the request with the aborted signal, which ends it
			// before it leaves. The token field, still empty at that moment, shows the request had not gone yet.
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

	/**
	 * Before a send that is not itself renewing: waits while a renewal is under way, and begins one when the token
	 * must be renewed first. False when nothing may be sent (the run stopped, or renewing is hopeless).
	 */
	private async takeTurn(attempt: Attempt, cancel?: AbortSignal): Promise<boolean> {
		// Every send waits while a renewal is under way: it would go with the token being replaced.
		while (this.underWay) {
			if (!(await settledOrStopped(this.underWay, cancel))) return false;
		}
		if (this.givenUp || cancel?.aborted) return false;
		// A token of another login (the credential was edited since) would not be sent: logged in first.
		if (this.token !== '' && accessTokenForThisLogin(this.credential) === '')
			this.credential.accessToken = '';
		// Past the lifetime its answer gave: renewed before it is sent, not after the API refuses it. Such a
		// renewal counts against the run's limit too; past it, the token goes and the API's 401 decides.
		if (
			this.token !== '' &&
			this.renewals < MAX_RENEWALS_PER_RUN &&
			accessTokenExpired(this.credential, Date.now())
		)
			this.credential.accessToken = '';
		if (this.token === '') {
			attempt.renewing = true;
			this.begin();
		}
		return true;
	}

	/**
	 * The renewing request threw: the request itself failed once a token arrived, or the login failed. A login the
	 * token endpoint may grant later is tried again after a wait (undefined: go on); otherwise the answer to give.
	 */
	private async afterFailedLogin(
		error: unknown,
		attempt: Attempt,
		cancel?: AbortSignal,
		closed?: AbortSignal,
	): Promise<AuthenticatedAnswer | undefined> {
		// What the login said, as the credential noted it (n8n's wrapping keeps only its words).
		const exchange = this.token === '' ? failedTokenExchange(this.credential) : undefined;
		if (exchange === undefined) {
			// A token arrived and the request itself failed; or the login failed in a way that is not the API's.
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
			// The next login is a new attempt: the credential would repeat the failed one's answer otherwise.
			forgetTokenExchange(this.credential);
			return undefined;
		}
		this.end({ givenUp: false });
		return this.notSent(attempt);
	}

	/**
	 * The API answered: anything its row does not say a renewed token mends is the answer, and so is a refusal no
	 * renewal can mend. Undefined when the request goes again: refused for a token already replaced, or the one that
	 * renews an expired token.
	 */
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
			// The token worked, then expired again: one renewal too many for this run, not a refused app.
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
		// Refused for a token already replaced, or being replaced: sent again with the new one.
		if (replaced) return undefined;
		// The token in use has expired: this request renews it. Emptied, n8n logs in before re-sending.
		attempt.renewing = true;
		this.begin();
		this.credential.accessToken = '';
		return undefined;
	}

	/** Not sent (again). The API's last 401 to this request, if any, is what became of it: not "never sent". */
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

	/**
	 * How long to wait before logging in again, or undefined when the token endpoint's answer is final: as the row
	 * its answer was read as says (a rate refusal after its Retry-After, a failed endpoint after a backoff), within
	 * the policy's budgets. Counts the retry.
	 */
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
