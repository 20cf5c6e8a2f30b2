/** The node's one door to what it shares with its credential (which must not import node code). */
export {
	basicAuthorization,
	loginValues,
	normalizeBaseUrl,
	PARTNER_API_PATHS,
	REQUEST_TIMEOUTS,
} from '../../shared/partnerApi/partnerApi';
export {
	extractApiMessage,
	headerValue,
	networkFailureInWords,
	redactSecrets,
	redirectTarget,
} from '../../shared/partnerApi/apiAnswers';
export {
	CONNECTION_FAILED_BEFORE_SEND,
	meaningOf,
	readAnswer,
	REQUEST_NOT_BUILT,
} from '../../shared/partnerApi/answerTable';
export type { AnswerFacts, AnswerMeaning, Outcome } from '../../shared/partnerApi/answerTable';
export { apiWords } from '../../shared/partnerApi/answerWords';
export type { ApiWordsContext } from '../../shared/partnerApi/answerWords';
export { oneLine, subjectOf } from '../../shared/partnerApi/answerSubjects';
export {
	isJsonMediaType,
	isProblemMediaType,
	showsCreated,
} from '../../shared/partnerApi/answerEvidence';
export { meaningOfDiagnosis } from '../../shared/partnerApi/tokenDiagnosis';
export {
	accessTokenExpired,
	accessTokenForThisLogin,
	anyKeptRefreshToken,
} from '../../shared/partnerApi/tokenRefresh';
export {
	carryCancelSignal,
	failedTokenExchange,
	failedTokenExchangeOf,
	forgetTokenExchange,
} from '../../shared/partnerApi/pastN8n';
export type { FailedTokenExchange, TokenDiagnosis } from '../../shared/partnerApi/pastN8n';
