/**
 * The known cases of Listing → Create's outcome and token handling, as the widened fault oracle sees them: for each,
 * the invariant it breaks on the unfixed code, how to recognise it among the oracle's findings (`matches`), and the
 * shrunk counterexample fast-check found (`scenario`, replayed by execute.oracleWorld.test.ts).
 */
import type { WorldScenario } from './world';

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

/** Shrunk counterexamples on the unfixed code (hand-written where marked in the report), by case. */
const PINNED: Record<string, WorldScenario> = {
	'1b': {
		steps: [
			{
				kind: 'create',
				node: 0,
				account: 'a1',
				spelling: 0,
				rows: [{ row: 'A', seat: '1', expressionError: false, id: 1 }],
				output: 'listing',
				onError: 'continueRegularOutput',
				concurrency: 1,
				adaptive: false,
				maxTries: 1,
			},
		],
		overlap: false,
		listingAnswers: [
			{
				status: 200,
				body: 'listingId',
				retryAfter: { kind: 'seconds', value: '0' },
				creates: false,
				delayTurns: 0,
				persistent401: false,
			},
		],
		tokenAnswers: [{ kind: 'rateLimited', retryAfter: { kind: 'seconds', value: '0' } }],
		duplicates: 'conflict',
		heldElsewhere: [],
		storeFailures: [{ call: 1, when: 'before' }],
		storeGaps: [0],
	},
	'3': {
		steps: [
			{
				kind: 'create',
				node: 0,
				account: 'a1',
				spelling: 1,
				rows: [{ row: 'A', seat: '1', expressionError: false, id: 1 }],
				output: 'listing',
				onError: 'stop',
				concurrency: 1,
				adaptive: false,
				maxTries: 1,
			},
		],
		overlap: false,
		// A 200 maintenance page (found first: a 200 with a JSON object, which the package's rule reads as created).
		listingAnswers: [
			{
				status: 200,
				body: 'html',
				retryAfter: { kind: 'datePast' },
				creates: false,
				delayTurns: 0,
				persistent401: false,
			},
			{
				status: 'resetBefore',
				body: 'listingId',
				retryAfter: { kind: 'seconds', value: '0' },
				creates: false,
				delayTurns: 0,
				persistent401: false,
			},
		],
		tokenAnswers: [],
		duplicates: 'conflict',
		heldElsewhere: [],
		storeFailures: [{ call: 1, when: 'before' }],
		storeGaps: [0],
	},
	'6a': {
		steps: [
			{
				kind: 'create',
				node: 0,
				account: 'a1',
				spelling: 1,
				rows: [{ row: 'A', seat: '1', expressionError: false, id: 1 }],
				output: 'listing',
				onError: 'stop',
				concurrency: 1,
				adaptive: false,
				maxTries: 2,
			},
		],
		overlap: false,
		listingAnswers: [
			{
				status: 200,
				body: 'listingId',
				retryAfter: { kind: 'seconds', value: '0' },
				creates: false,
				delayTurns: 0,
				persistent401: false,
			},
		],
		tokenAnswers: [],
		duplicates: 'conflict',
		heldElsewhere: [],
		storeFailures: [],
		storeGaps: [0],
	},
	'7': {
		steps: [
			{
				kind: 'create',
				node: 0,
				account: 'a1',
				spelling: 0,
				rows: [{ row: 'A', seat: '1', expressionError: false, id: 1 }],
				output: 'listing',
				onError: 'stop',
				concurrency: 1,
				adaptive: false,
				maxTries: 1,
			},
		],
		overlap: false,
		listingAnswers: [
			{
				status: 201,
				body: 'nested',
				retryAfter: { kind: 'dateFuture', seconds: 1 },
				creates: false,
				delayTurns: 0,
				persistent401: false,
			},
			{
				status: 201,
				body: 'listingId',
				retryAfter: { kind: 'datePast' },
				creates: false,
				delayTurns: 0,
				persistent401: false,
			},
		],
		tokenAnswers: [],
		duplicates: 'conflict',
		heldElsewhere: [],
		storeFailures: [],
		storeGaps: [0],
	},
	'9': {
		steps: [
			{
				kind: 'create',
				node: 0,
				account: 'a1',
				spelling: 0,
				rows: [{ row: 'A', seat: '1', expressionError: false, id: 1 }],
				output: 'listing',
				onError: 'stop',
				concurrency: 1,
				adaptive: false,
				maxTries: 1,
			},
		],
		overlap: false,
		listingAnswers: [
			{
				status: 201,
				body: 'echoKey',
				retryAfter: { kind: 'dateFuture', seconds: 1 },
				creates: false,
				delayTurns: 0,
				persistent401: false,
			},
			{
				status: 200,
				body: 'listingId',
				retryAfter: { kind: 'seconds', value: '0' },
				creates: false,
				delayTurns: 0,
				persistent401: false,
			},
		],
		tokenAnswers: [],
		duplicates: 'conflict',
		heldElsewhere: [],
		storeFailures: [],
		storeGaps: [0],
	},
	'11': {
		steps: [
			{
				kind: 'create',
				node: 0,
				account: 'a1',
				spelling: 0,
				rows: [
					{ row: 'A', seat: '1', expressionError: false, id: 1 },
					{ row: 'A', seat: '1\u200b', expressionError: false, id: 1 },
				],
				output: 'listing',
				onError: 'stop',
				concurrency: 1,
				adaptive: false,
				maxTries: 2,
			},
		],
		overlap: false,
		listingAnswers: [
			{
				status: 200,
				body: 'listingId',
				retryAfter: { kind: 'dateFuture', seconds: 1 },
				creates: false,
				delayTurns: 0,
				persistent401: false,
			},
		],
		tokenAnswers: [],
		duplicates: 'conflict',
		heldElsewhere: [],
		storeFailures: [],
		storeGaps: [0],
	},
	'2': {
		steps: [
			{
				kind: 'create',
				node: 0,
				account: 'a2',
				spelling: 1,
				rows: [{ row: 'A', seat: '1', expressionError: false, id: 1 }],
				output: 'listing',
				onError: 'stop',
				concurrency: 1,
				adaptive: false,
				maxTries: 1,
			},
			{
				kind: 'create',
				node: 0,
				account: 'a1',
				spelling: 0,
				rows: [{ row: 'A', seat: '1', expressionError: false, id: 1 }],
				output: 'listing',
				onError: 'continueErrorOutput',
				concurrency: 1,
				adaptive: false,
				maxTries: 1,
			},
		],
		overlap: false,
		listingAnswers: [
			{
				status: 200,
				body: 'listingId',
				retryAfter: { kind: 'absent' },
				creates: false,
				delayTurns: 0,
				persistent401: false,
			},
		],
		tokenAnswers: [],
		duplicates: 'conflict',
		heldElsewhere: [],
		stop: { step: 1, atEvent: 4 },
		storeFailures: [],
		storeGaps: [0],
	},
	'4': {
		steps: [
			{
				kind: 'create',
				node: 0,
				account: 'a1',
				spelling: 0,
				rows: [{ row: 'A', seat: '1', expressionError: false, id: 1 }],
				output: 'listing',
				onError: 'stop',
				concurrency: 1,
				adaptive: false,
				maxTries: 2,
			},
		],
		overlap: false,
		listingAnswers: [
			{
				status: 'resetAfter',
				body: 'listingId',
				retryAfter: { kind: 'datePast' },
				creates: false,
				delayTurns: 0,
				persistent401: false,
			},
			{
				status: 200,
				body: 'listingId',
				retryAfter: { kind: 'dateFuture', seconds: 1 },
				creates: false,
				delayTurns: 0,
				persistent401: false,
			},
		],
		tokenAnswers: [],
		duplicates: 'conflict',
		heldElsewhere: [],
		storeFailures: [],
		storeGaps: [0],
	},
	'5': {
		steps: [
			{
				kind: 'create',
				node: 0,
				account: 'a1',
				spelling: 0,
				rows: [{ row: 'A', seat: '1', expressionError: false, id: 1 }],
				output: 'listing',
				onError: 'stop',
				concurrency: 1,
				adaptive: false,
				maxTries: 1,
			},
		],
		overlap: false,
		listingAnswers: [
			{
				status: 201,
				body: 'listingId',
				retryAfter: { kind: 'absent' },
				creates: false,
				delayTurns: 0,
				persistent401: false,
			},
		],
		tokenAnswers: [],
		duplicates: 'conflict',
		heldElsewhere: [{ account: 'a1', id: 1 }],
		storeFailures: [],
		storeGaps: [0],
	},
	'6b': {
		steps: [
			{
				kind: 'create',
				node: 0,
				account: 'a1',
				spelling: 0,
				rows: [{ row: 'A', seat: '1', expressionError: false, id: 1 }],
				output: 'listing',
				onError: 'stop',
				concurrency: 1,
				adaptive: false,
				maxTries: 1,
			},
			{
				kind: 'create',
				node: 0,
				account: 'a2',
				spelling: 0,
				rows: [{ row: 'A', seat: '1', expressionError: false, id: 1 }],
				output: 'listing',
				onError: 'stop',
				concurrency: 1,
				adaptive: false,
				maxTries: 1,
			},
		],
		overlap: false,
		listingAnswers: [
			{
				status: 201,
				body: 'listingId',
				retryAfter: { kind: 'absent' },
				creates: false,
				delayTurns: 0,
				persistent401: false,
			},
		],
		tokenAnswers: [],
		duplicates: 'conflict',
		heldElsewhere: [],
		storeFailures: [],
		storeGaps: [0],
	},
	'8': {
		steps: [{ kind: 'forget', account: 'a1', spelling: 0, ids: [40], deletedFirst: false }],
		overlap: false,
		listingAnswers: [
			{
				status: 201,
				body: 'listingId',
				retryAfter: { kind: 'absent' },
				creates: false,
				delayTurns: 0,
				persistent401: false,
			},
		],
		tokenAnswers: [],
		duplicates: 'conflict',
		heldElsewhere: [],
		storeFailures: [{ call: 2, when: 'before' }],
		storeGaps: [0],
	},
	'10': {
		steps: [
			{
				kind: 'create',
				node: 0,
				account: 'a1',
				spelling: 0,
				rows: [
					{ row: 'A', seat: '1', expressionError: false, id: 1 },
					{ row: 'A', seat: '2', expressionError: true, id: 1 },
				],
				output: 'listing',
				onError: 'continueRegularOutput',
				concurrency: 1,
				adaptive: false,
				maxTries: 1,
			},
		],
		overlap: false,
		listingAnswers: [
			{
				status: 201,
				body: 'listingId',
				retryAfter: { kind: 'absent' },
				creates: false,
				delayTurns: 0,
				persistent401: false,
			},
		],
		tokenAnswers: [],
		duplicates: 'conflict',
		heldElsewhere: [],
		storeFailures: [],
		storeGaps: [0],
	},
	'1a': {
		steps: [
			{
				kind: 'create',
				node: 0,
				account: 'a1',
				spelling: 0,
				rows: [
					{ row: 'A', seat: '1', expressionError: false, id: 7 },
					{ row: 'A', seat: '1', expressionError: false, id: 1 },
				],
				output: 'listing',
				onError: 'stop',
				concurrency: 2,
				adaptive: false,
				maxTries: 1,
			},
		],
		overlap: false,
		listingAnswers: [
			{
				status: 429,
				body: 'listingId',
				retryAfter: { kind: 'dateFuture', seconds: 1 },
				creates: false,
				delayTurns: 0,
				persistent401: false,
			},
		],
		tokenAnswers: [],
		duplicates: 'conflict',
		tokenLifetime: 1,
		heldElsewhere: [],
		storeFailures: [],
		storeGaps: [0],
	},
};

const KNOWN: Array<Omit<KnownCase, 'scenario'>> = [
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
		invariant: 'W-held ⇒ remembered',
		matches: (message, scenario) =>
			message.startsWith('W-held ⇒ remembered') &&
			scenario.heldElsewhere.length > 0 &&
			oneAccountOneSpelling(scenario),
	},
	{
		case: '6a',
		title: 'another spelling of the Base URL makes a second memory',
		invariant: 'W-held ⇒ remembered',
		matches: (message, scenario) =>
			message.startsWith('W-held ⇒ remembered') &&
			accountsOf(scenario).size === 1 &&
			[...spellingsOf(scenario)].some((spelling) => spelling !== 0) &&
			scenario.storeFailures.length === 0,
	},
	{
		case: '6b',
		title: 'two accounts on one Base URL share one memory',
		invariant: 'W-skipped ⇒ created with evidence',
		matches: (message, scenario) =>
			message.startsWith('W-skipped ⇒ created with evidence') &&
			/try 1, .*the API answered nothing/.test(message) &&
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

export const KNOWN_CASES: KnownCase[] = KNOWN.map((known) => ({
	...known,
	scenario: PINNED[known.case],
}));

/**
 * Defects the generated property found beyond the known cases, each pinned with the invariant it broke: a look of
 * one run (n8n's store only looks by writing) taken by another run for a listing sent.
 */
export const FOUND_DEFECTS: Array<{ title: string; invariant: string; scenario: WorldScenario }> = [
	{
		title:
			"a run of another account on the same Base URL sees the key this run's look for an earlier version's entry wrote: skipped, never sent, remembered",
		invariant: 'W-skipped ⇒ created with evidence',
		scenario: {
			steps: [
				{
					kind: 'create',
					node: 0,
					account: 'a2',
					spelling: 0,
					rows: [{ row: 'A', seat: '1', expressionError: false, id: 1 }],
					output: 'listing',
					onError: 'stop',
					concurrency: 1,
					adaptive: false,
					maxTries: 2,
				},
				{
					kind: 'create',
					node: 0,
					account: 'a1',
					spelling: 0,
					rows: [{ row: 'A', seat: '1', expressionError: false, id: 1 }],
					output: 'listing',
					onError: 'stop',
					concurrency: 1,
					adaptive: false,
					maxTries: 2,
				},
			],
			overlap: true,
			listingAnswers: [
				{
					status: 200,
					body: 'listingId',
					retryAfter: { kind: 'absent' },
					creates: false,
					delayTurns: 0,
					persistent401: false,
				},
			],
			tokenAnswers: [],
			duplicates: 'conflict',
			heldElsewhere: [],
			storeFailures: [],
			storeGaps: [0],
		},
	},
	{
		title:
			"Forget Sent Listings while a Create runs: the Create sees the keys the Forget's look wrote (skipped, never sent) and a stale write keeps them remembered",
		invariant: 'W-not sent or refused ⇒ not remembered',
		scenario: {
			steps: [
				{
					kind: 'create',
					node: 0,
					account: 'a1',
					spelling: 0,
					rows: [{ row: 'A', seat: '1', expressionError: false, id: 1 }],
					output: 'listing',
					onError: 'stop',
					concurrency: 1,
					adaptive: false,
					maxTries: 1,
				},
				{ kind: 'forget', account: 'a1', spelling: 0, ids: [1], deletedFirst: false },
			],
			overlap: true,
			listingAnswers: [
				{
					status: 200,
					body: 'listingId',
					retryAfter: { kind: 'absent' },
					creates: false,
					delayTurns: 0,
					persistent401: false,
				},
			],
			tokenAnswers: [],
			duplicates: 'conflict',
			heldElsewhere: [],
			storeFailures: [],
			storeGaps: [2, 3],
		},
	},
	{
		title:
			'an answer read after the token was renewed echoes the token its request carried (no longer the current one): redacted too',
		invariant: 'W-secrets (no secret in outputs or errors)',
		scenario: {
			steps: [
				{
					kind: 'create',
					node: 0,
					account: 'a1',
					spelling: 0,
					rows: [{ row: 'A', seat: '1', expressionError: false, id: 1 }],
					output: 'listing',
					onError: 'stop',
					concurrency: 1,
					adaptive: false,
					maxTries: 1,
				},
				{
					kind: 'create',
					node: 0,
					account: 'a1',
					spelling: 1,
					rows: [
						{ row: 'A', seat: '1', expressionError: false, id: 1 },
						{ row: 'A', seat: '\u00c5', expressionError: false, id: 3 },
					],
					output: 'listing',
					onError: 'stop',
					concurrency: 2,
					adaptive: false,
					maxTries: 1,
				},
			],
			overlap: false,
			listingAnswers: [
				{
					status: 301,
					body: 'listingId',
					retryAfter: { kind: 'absent' },
					creates: false,
					delayTurns: 0,
					persistent401: false,
				},
				{
					status: 429,
					body: 'listingId',
					retryAfter: { kind: 'absent' },
					creates: false,
					delayTurns: 0,
					persistent401: false,
				},
				{
					status: 201,
					body: 'echoValue',
					retryAfter: { kind: 'datePast' },
					creates: false,
					delayTurns: 1,
					persistent401: false,
				},
				{
					status: 401,
					body: 'listingId',
					retryAfter: { kind: 'absent' },
					creates: false,
					delayTurns: 0,
					persistent401: false,
				},
				{
					status: 201,
					body: 'listingId',
					retryAfter: { kind: 'seconds', value: '0' },
					creates: false,
					delayTurns: 0,
					persistent401: false,
				},
			],
			tokenAnswers: [],
			duplicates: 'conflict',
			heldElsewhere: [],
			storeFailures: [],
			storeGaps: [0],
		} as WorldScenario,
	},
	{
		title:
			'(the oracle itself) a listing forgotten with Clear Sent Listings History, not deleted first, is sent again as asked: on an API that takes duplicates, created once per request',
		invariant: 'W-no listing held twice',
		scenario: {
			steps: [
				{
					kind: 'create',
					node: 0,
					account: 'a1',
					spelling: 1,
					rows: [{ row: 'A', seat: '1', expressionError: false, id: 3 }],
					output: 'listing',
					onError: 'stop',
					concurrency: 1,
					adaptive: false,
					maxTries: 2,
				},
				{ kind: 'forget', account: 'a1', spelling: 0, ids: [3, 1], deletedFirst: false },
				{
					kind: 'create',
					node: 0,
					account: 'a1',
					spelling: 1,
					rows: [{ row: 'A', seat: '1', expressionError: false, id: 3 }],
					output: 'listing',
					onError: 'stop',
					concurrency: 1,
					adaptive: false,
					maxTries: 1,
				},
			],
			overlap: false,
			listingAnswers: [
				{
					status: 200,
					body: 'listingId',
					retryAfter: { kind: 'datePast' },
					creates: false,
					delayTurns: 0,
					persistent401: false,
				},
			],
			tokenAnswers: [],
			duplicates: 'create',
			heldElsewhere: [],
			storeFailures: [],
			storeGaps: [0],
		} as WorldScenario,
	},
	{
		title:
			'(the oracle itself) Clear Sent Listings History of an ID while a Create of it runs: the Create may see it as sent, as the docs say',
		invariant: 'W-skipped ⇒ created with evidence (else "unknown")',
		scenario: {
			steps: [
				{
					kind: 'create',
					node: 0,
					account: 'a1',
					spelling: 0,
					rows: [{ row: 'A', seat: '1', expressionError: false, id: 1 }],
					output: 'listing',
					onError: 'stop',
					concurrency: 1,
					adaptive: false,
					maxTries: 1,
				},
				{ kind: 'forget', account: 'a1', spelling: 0, ids: [1], deletedFirst: false },
			],
			overlap: true,
			listingAnswers: [
				{
					status: 200,
					body: 'listingId',
					retryAfter: { kind: 'datePast' },
					creates: false,
					delayTurns: 0,
					persistent401: false,
				},
			],
			tokenAnswers: [],
			duplicates: 'conflict',
			heldElsewhere: [],
			storeFailures: [],
			storeGaps: [3, 3, 1],
		} as WorldScenario,
	},
	{
		title:
			'(the oracle itself) Clear Sent Listings History fails twice and names ID 1 as now remembered as sent: the next Create skips it until it is cleared again, as the docs say',
		invariant: 'W-skipped ⇒ created with evidence (else "unknown")',
		scenario: {
			steps: [
				{
					kind: 'create',
					node: 0,
					account: 'a1',
					spelling: 1,
					rows: [
						{ row: 'A', seat: '1', expressionError: false, id: 1 },
						{ row: 'A', seat: '1', expressionError: false, id: 1 },
					],
					output: 'listing',
					onError: 'stop',
					concurrency: 1,
					adaptive: false,
					maxTries: 2,
				},
				{ kind: 'forget', account: 'a1', spelling: 0, ids: [1], deletedFirst: false },
				{
					kind: 'create',
					node: 0,
					account: 'a1',
					spelling: 0,
					rows: [{ row: 'A', seat: '1', expressionError: false, id: 1 }],
					output: 'listing',
					onError: 'stop',
					concurrency: 1,
					adaptive: false,
					maxTries: 1,
				},
			],
			overlap: false,
			listingAnswers: [
				{
					status: 200,
					body: 'listingId',
					retryAfter: { kind: 'seconds', value: '0' },
					creates: false,
					delayTurns: 0,
					persistent401: false,
				},
			],
			tokenAnswers: [],
			duplicates: 'conflict',
			heldElsewhere: [],
			storeFailures: [
				{ call: 2, when: 'before' },
				{ call: 3, when: 'before' },
			],
			storeGaps: [0],
		} as WorldScenario,
	},
	{
		title:
			'(the oracle itself) a 401 after a 429 looks like a token that worked and expired: a run renews up to its bound rather than blame a token too soon',
		invariant: 'W-logins bounded (one renewal per expiry)',
		scenario: {
			steps: [
				{
					kind: 'create',
					node: 0,
					account: 'a1',
					spelling: 1,
					rows: [{ row: 'A', seat: '1', expressionError: false, id: 1 }],
					output: 'listing',
					onError: 'stop',
					concurrency: 1,
					adaptive: false,
					maxTries: 2,
				},
			],
			overlap: false,
			listingAnswers: [
				{
					status: 429,
					body: 'listingId',
					retryAfter: { kind: 'absent' },
					creates: false,
					delayTurns: 0,
					persistent401: false,
				},
				{
					status: 401,
					body: 'listingId',
					retryAfter: { kind: 'seconds', value: '0' },
					creates: false,
					delayTurns: 0,
					persistent401: true,
				},
			],
			tokenAnswers: [],
			duplicates: 'conflict',
			heldElsewhere: [],
			storeFailures: [],
			storeGaps: [0],
		} as WorldScenario,
	},
	{
		title:
			'a renewed token answered by a spike arrest, then 401 (a token that lasts one request): renewed again, not called a refused app',
		invariant: 'W-refused \u21d2 the API refused it',
		scenario: {
			steps: [
				{
					kind: 'create',
					node: 0,
					account: 'a1',
					spelling: 0,
					rows: [{ row: 'A', seat: '1', expressionError: false, id: 1 }],
					output: 'listing',
					onError: 'stop',
					concurrency: 1,
					adaptive: false,
					maxTries: 1,
				},
				{
					kind: 'create',
					node: 0,
					account: 'a1',
					spelling: 0,
					rows: [
						{ row: 'A', seat: '1', expressionError: false, id: 7 },
						{ row: 'A', seat: 'A\u030a', expressionError: false, id: 1 },
					],
					output: 'listing',
					onError: 'continueRegularOutput',
					concurrency: 1,
					adaptive: false,
					maxTries: 1,
				},
			],
			overlap: false,
			listingAnswers: [
				{
					status: 200,
					body: 'listingId',
					retryAfter: { kind: 'dateFuture', seconds: 1 },
					creates: false,
					delayTurns: 0,
					persistent401: false,
					gateway: { kind: 'spikeArrest', status: 500, rate: 'none' },
				},
				{
					status: 302,
					body: 'listingId',
					retryAfter: { kind: 'datePast' },
					creates: false,
					delayTurns: 0,
					persistent401: false,
				},
			],
			tokenAnswers: [],
			duplicates: 'conflict',
			tokenLifetime: 1,
			heldElsewhere: [],
			storeFailures: [],
			storeGaps: [0],
		} as WorldScenario,
	},
	{
		title:
			"a store call that fails after writing, in a look for an earlier version's key made apart from the record: the ID left held without being named (kept inside the record)",
		invariant: 'W-skipped \u21d2 created with evidence (else "unknown")',
		scenario: {
			steps: [
				{
					kind: 'create',
					node: 0,
					account: 'a1',
					spelling: 0,
					rows: [{ row: 'A', seat: '1', expressionError: false, id: 1 }],
					output: 'listing',
					onError: 'continueErrorOutput',
					concurrency: 1,
					adaptive: false,
					maxTries: 2,
				},
				{
					kind: 'create',
					node: 0,
					account: 'a1',
					spelling: 1,
					rows: [{ row: 'A', seat: '1', expressionError: false, id: 1 }],
					output: 'listing',
					onError: 'stop',
					concurrency: 1,
					adaptive: false,
					maxTries: 2,
				},
				{
					kind: 'create',
					node: 0,
					account: 'a1',
					spelling: 0,
					rows: [{ row: 'A', seat: '1', expressionError: false, id: 1 }],
					output: 'listing',
					onError: 'stop',
					concurrency: 1,
					adaptive: false,
					maxTries: 1,
				},
			],
			overlap: false,
			listingAnswers: [
				{
					status: 403,
					body: 'listingId',
					retryAfter: { kind: 'seconds', value: '0' },
					creates: false,
					delayTurns: 0,
					persistent401: false,
				},
			],
			tokenAnswers: [],
			duplicates: 'conflict',
			heldElsewhere: [],
			storeFailures: [
				{ call: 14, when: 'after' },
				{ call: 1, when: 'before' },
			],
			storeGaps: [0],
		} as WorldScenario,
	},
	{
		title:
			"two accounts on one Base URL, overlapping, with the look for an earlier version's key made apart from the record: a listing nothing created skipped (kept inside the record)",
		invariant: 'W-skipped \u21d2 created with evidence (else "unknown")',
		scenario: {
			steps: [
				{
					kind: 'create',
					node: 0,
					account: 'a2',
					spelling: 0,
					rows: [{ row: 'A', seat: '1', expressionError: false, id: 1 }],
					output: 'listing',
					onError: 'stop',
					concurrency: 1,
					adaptive: false,
					maxTries: 1,
				},
				{
					kind: 'create',
					node: 0,
					account: 'a1',
					spelling: 0,
					rows: [{ row: 'A', seat: '1', expressionError: false, id: 1 }],
					output: 'listing',
					onError: 'stop',
					concurrency: 1,
					adaptive: false,
					maxTries: 1,
				},
			],
			overlap: true,
			listingAnswers: [
				{
					status: 201,
					body: 'listingId',
					retryAfter: { kind: 'dateFuture', seconds: 1 },
					creates: false,
					delayTurns: 0,
					persistent401: false,
				},
			],
			tokenAnswers: [],
			duplicates: 'conflict',
			heldElsewhere: [],
			storeFailures: [],
			storeGaps: [1, 1, 1, 0],
		} as WorldScenario,
	},
	{
		title:
			"two accounts on one Base URL, overlapping, stale writes of one run bring back the other's look for an earlier version's key at both of its looks: a listing nothing created skipped and remembered (that key is no longer looked for)",
		invariant: 'W-skipped \u21d2 created with evidence (else "unknown")',
		scenario: {
			steps: [
				{
					kind: 'create',
					node: 0,
					account: 'a1',
					spelling: 0,
					rows: [{ row: 'A', seat: '1', expressionError: false, id: 1 }],
					output: 'listing',
					onError: 'stop',
					concurrency: 1,
					adaptive: false,
					maxTries: 1,
				},
				{
					kind: 'create',
					node: 0,
					account: 'a2',
					spelling: 0,
					rows: [{ row: 'A', seat: '1', expressionError: false, id: 1 }],
					output: 'listing',
					onError: 'stop',
					concurrency: 1,
					adaptive: false,
					maxTries: 2,
				},
			],
			overlap: true,
			listingAnswers: [
				{
					status: 200,
					body: 'listingId',
					retryAfter: { kind: 'seconds', value: '0' },
					creates: false,
					delayTurns: 0,
					persistent401: false,
				},
			],
			tokenAnswers: [],
			duplicates: 'conflict',
			heldElsewhere: [],
			storeFailures: [],
			storeGaps: [1, 1, 0, 1],
		} as WorldScenario,
	},
	{
		title:
			'the same, with a near-miss 500 in the first run: a listing nothing created skipped and remembered',
		invariant: 'W-skipped \u21d2 created with evidence (else "unknown")',
		scenario: {
			steps: [
				{
					kind: 'create',
					node: 0,
					account: 'a2',
					spelling: 0,
					rows: [{ row: 'A', seat: '1', expressionError: false, id: 1 }],
					output: 'listing',
					onError: 'stop',
					concurrency: 1,
					adaptive: false,
					maxTries: 1,
				},
				{
					kind: 'create',
					node: 0,
					account: 'a1',
					spelling: 0,
					rows: [{ row: 'A', seat: '1', expressionError: false, id: 1 }],
					output: 'listing',
					onError: 'stop',
					concurrency: 1,
					adaptive: false,
					maxTries: 1,
				},
			],
			overlap: true,
			listingAnswers: [
				{
					status: 200,
					body: 'listingId',
					retryAfter: { kind: 'dateFuture', seconds: 1 },
					creates: false,
					delayTurns: 0,
					persistent401: false,
					gateway: { kind: 'nearMiss', body: 'systemErrorSpike' },
				},
			],
			tokenAnswers: [],
			duplicates: 'conflict',
			heldElsewhere: [],
			storeFailures: [],
			storeGaps: [1, 0, 1, 1],
		} as WorldScenario,
	},
];
