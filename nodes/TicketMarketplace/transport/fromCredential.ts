/** The node's one door to what it shares with its credential (which must not import node code). */
export {
	basicAuthorization,
	loginValues,
	normalizeBaseUrl,
	PARTNER_API_PATHS,
	REQUEST_TIMEOUTS,
} from '../../../credentials/common/partnerApi';
export {
	extractApiMessage,
	headerValue,
	networkFailureInWords,
	redactSecrets,
	redirectTarget,
} from '../../../credentials/common/apiAnswers';
export {
	CONNECTION_FAILED_BEFORE_SEND,
	meaningOf,
	readAnswer,
	REQUEST_NOT_BUILT,
} from '../../../credentials/common/answerTable';
export type { AnswerFacts, AnswerMeaning, Outcome } from '../../../credentials/common/answerTable';
export { apiWords } from '../../../credentials/common/answerWords';
export type { ApiWordsContext } from '../../../credentials/common/answerWords';
export { oneLine, subjectOf } from '../../../credentials/common/answerSubjects';
export {
	isJsonMediaType,
	isProblemMediaType,
	showsCreated,
} from '../../../credentials/common/answerEvidence';
export { meaningOfDiagnosis } from '../../../credentials/common/tokenDiagnosis';
export {
	accessTokenExpired,
	accessTokenForThisLogin,
	anyKeptRefreshToken,
} from '../../../credentials/common/tokenRefresh';
export {
	carryCancelSignal,
	failedTokenExchange,
	failedTokenExchangeOf,
	forgetTokenExchange,
} from '../../../credentials/common/pastN8n';
export type { FailedTokenExchange, TokenDiagnosis } from '../../../credentials/common/pastN8n';
