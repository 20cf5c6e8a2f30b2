/**
 * The known cases of Listing → Create's outcome and token handling, as the widened fault oracle sees them: for each,
 * the invariant it breaks on the unfixed code, how to recognise it among the oracle's findings (`matches`), and the
 * shrunk counterexample fast-check found (`scenario`, replayed by faultOracleWorld.test.ts).
 */
import type { WorldScenario } from '../../../support/faultOracle/world';

export interface KnownCase {
	case: string;
	title: string;
	invariant: string;
	/** Recognises this case among the messages of broken invariants (and the scenario that broke one). */
	matches: (message: string, scenario: WorldScenario) => boolean;
	scenario?: WorldScenario;
}

const accountsOf = (scenario: WorldScenario) => new Set(scenario.steps.map((step) => step.account));
const spellingsOf = (scenario: WorldScenario) =>
	new Set(scenario.steps.map((step) => step.spelling));
const oneAccountOneSpelling = (scenario: WorldScenario) =>
	accountsOf(scenario).size === 1 && spellingsOf(scenario).size === 1;

export const KNOWN_CASES: KnownCase[] = [
	{
		case: '1a',
		title: 'logins multiply when the token expires with listings in flight',
		invariant: 'W-logins bounded (one renewal per expiry)',
		matches: (message) => message.startsWith('W-logins bounded (one renewal per expiry)'),
	},
	{
		case: '1b',
		title: 'a 429 from the token endpoint stops the run',
		invariant: 'W-refused ⇒ the API refused it',
		matches: (message) =>
			message.startsWith('W-refused ⇒ the API refused it') &&
			/listing answers none, token answers[^;]*rateLimited/.test(message),
	},
	{
		case: '2',
		title: 'Stop during the token fetch buries an unsent listing',
		invariant: 'W-unknown ⇒ it may have left',
		matches: (message, scenario) =>
			message.startsWith('W-unknown ⇒ it may have left') &&
			scenario.storeFailures.length === 0 &&
			!scenario.overlap,
	},
	{
		case: '3',
		title: 'any 2xx is "created"',
		invariant: 'W-created ⇒ held',
		matches: (message) => message.startsWith('W-created ⇒ held'),
	},
	{
		case: '4',
		title: 'Retry On Fail hides "outcome unknown"',
		invariant: 'W-skipped ⇒ created with evidence',
		matches: (message, scenario) =>
			message.startsWith('W-skipped ⇒ created with evidence') &&
			/try [23], .*the API answered (50\d|resetAfter)/.test(message) &&
			oneAccountOneSpelling(scenario),
	},
	{
		case: '5',
		title: 'a 409 "already exists" is "refused, not created" and forgotten',
		invariant: 'W-refused ⇒ the API refused it',
		matches: (message) =>
			message.startsWith('W-refused ⇒ the API refused it') && /listing answers 409/.test(message),
	},
	{
		case: '6a',
		title: 'another spelling of the Base URL makes a second memory',
		invariant: 'W-held ⇒ remembered',
		matches: (message, scenario) =>
			message.startsWith('W-held ⇒ remembered') &&
			accountsOf(scenario).size === 1 &&
			scenario.storeFailures.length === 0,
	},
	{
		case: '6b',
		title: 'two accounts on one Base URL share one memory',
		invariant: 'W-skipped ⇒ created with evidence',
		matches: (message, scenario) =>
			message.startsWith('W-skipped ⇒ created with evidence') &&
			accountsOf(scenario).size === 2 &&
			scenario.storeFailures.length === 0,
	},
	{
		case: '7',
		title: 'a deeply nested answer crashes the run while sending goes on',
		invariant: 'W-end (no bare exception)',
		matches: (message) => /^W-end \(no bare exception\).*RangeError/.test(message),
	},
	{
		case: '8',
		title: 'Forget Sent Listings adds IDs when its removal fails',
		invariant: 'W-not sent or refused ⇒ not remembered',
		matches: (message, scenario) =>
			message.startsWith('W-not sent or refused ⇒ not remembered') &&
			/listing 4[01] /.test(message) &&
			!scenario.overlap,
	},
	{
		case: '9',
		title: 'secrets echoed as keys, form-encoded or HTML-escaped are not redacted',
		invariant: 'W-secrets',
		matches: (message) => message.startsWith('W-secrets'),
	},
	{
		case: '10',
		title: 'an expression error in one row pulls the row out of its listing',
		invariant: 'W-listing carries every row',
		matches: (message) => message.startsWith('W-listing carries every row'),
	},
	{
		case: '11',
		title: 'one seat listed twice in a run',
		invariant: 'W-one seat once',
		matches: (message) => message.startsWith('W-one seat once'),
	},
	{
		case: '12',
		title: 'a failed check can hide an erased record',
		invariant: 'W-no listing held twice',
		matches: (message, scenario) =>
			message.startsWith('W-no listing held twice') &&
			scenario.overlap &&
			oneAccountOneSpelling(scenario) &&
			scenario.storeFailures.some((failure) => failure.when === 'after'),
	},
];
