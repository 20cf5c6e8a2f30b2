/**
 * The real service's unhappy answers, played by the sandbox, seen from a real n8n: a duplicate External Listing ID
 * (400 naming it) is already listed and remembered; the plan's quota (500 or 429) stops sending at once and leaves
 * the rest to a later run; a spike arrest is tried again until every listing is created once; Apigee's
 * `invalid_client` and a missing API product are named; the service's error code is kept beside its words; and
 * the trigger's token URL takes the subscription's own JSON field names. Each test runs its own copy of the sheet
 * workflow (one item per row, On Error → Continue) on a credential of its own, so its memory of sent listings and
 * its token are its own, and it puts back every sandbox setting it changes.
 */
import { SANDBOX_DEFAULTS } from '../../sandbox/index';
import {
	heldCounts,
	listingIdsSent,
	nextListingId,
	oneSeatRows,
	postWebhook,
	requestsTo,
	sheetWorkflowWithOwnCredential,
	useE2e,
	waitForExecutions,
	writeSheet,
	type E2e,
	type OwnSheetVariant,
	type OwnSheetWorkflow,
	type SeatRow,
} from '../../support/e2e/helpers';
import { SANDBOX_CALLBACK_CLIENT } from '../../support/harness/harness';
import { suiteWorkflows, triggerWebhookId, webhookPath } from '../../support/e2e/workflows';
import type { SandboxState } from '../../sandbox/index';

const e2e = useE2e();
const workflows = suiteWorkflows();
const ID_BASE = 9_390_000;

type Item = Record<string, unknown>;
interface ListingError {
	error?: string;
	description?: string;
	mayHaveBeenCreated?: boolean;
	apiCode?: string;
	[key: string]: unknown;
}

let workflow: OwnSheetWorkflow | undefined;

afterEach(async () => {
	await workflow?.remove();
	workflow = undefined;
});

async function ownWorkflow(harness: E2e, name: string, variant: OwnSheetVariant = {}) {
	workflow = await sheetWorkflowWithOwnCredential(harness, name, {
		onError: 'continueRegularOutput',
		...variant,
	});
	return workflow;
}

/** Runs the test's workflow on a sheet; returns its items and the sandbox's log of the run alone. */
async function runSheet(
	harness: E2e,
	own: OwnSheetWorkflow,
	fileName: string,
	rows: SeatRow[],
): Promise<{ output: Item[]; state: SandboxState }> {
	const sheet = writeSheet(harness, fileName, rows);
	const logged = new Set((await harness.sandbox.state()).requests.map((request) => request.id));
	const run = await postWebhook(harness, own.webhookPath, { sheet });
	expect(run.status).toBe(200);
	const state = await harness.sandbox.state();
	const output = run.body as Item[];
	expect(output).toHaveLength(rows.length);
	return {
		output,
		state: { ...state, requests: state.requests.filter((request) => !logged.has(request.id)) },
	};
}

const statusOf = (output: Item[]) =>
	Object.fromEntries(output.map((item) => [Number(item.listing_id), item.listingStatus]));
const errorOf = (item: Item | undefined) => (item?.listingError ?? {}) as ListingError;
const wordsOf = (item: Item | undefined) => JSON.stringify(errorOf(item));

describe('the real service’s answers through the sandbox, in a real n8n', () => {
	it('a duplicate External Listing ID (400 naming it) is already listed, remembered, and skipped by the next run', async () => {
		const harness = e2e();
		const eventId = 7391;
		const duplicate = nextListingId(ID_BASE);
		const fresh = nextListingId(ID_BASE);
		// Another workflow (another memory) creates the listing first, as another tool or an earlier setup would.
		const first = await postWebhook(harness, webhookPath(workflows.sheetPerRow), {
			sheet: writeSheet(
				harness,
				'real-duplicate-first.csv',
				oneSeatRows([duplicate], eventId, 'A'),
			),
		});
		expect(first.status).toBe(200);
		expect((first.body as Item[]).map((item) => item.listingStatus)).toEqual(['created']);

		const own = await ownWorkflow(harness, 'real answers: duplicate ID');
		const rows = oneSeatRows([duplicate, fresh], eventId, 'B');
		const { output, state } = await runSheet(harness, own, 'real-duplicate.csv', rows);

		// The sandbox answered the service's 400 naming the ID, and the node read it as already listed.
		const refused = requestsTo(state, 'listings').filter((request) => request.status === 400);
		expect(listingIdsSent({ ...state, requests: refused }, [duplicate])).toEqual([duplicate]);
		expect(statusOf(output)).toEqual({ [duplicate]: 'alreadyListed', [fresh]: 'created' });
		const duplicateItem = output.find((item) => Number(item.listing_id) === duplicate);
		expect(wordsOf(duplicateItem)).toContain(`External Listing ID ${duplicate} already exists`);
		expect(wordsOf(duplicateItem)).toContain('inventory.listings.duplicateExternalListingId');
		expect([...heldCounts(state, [duplicate, fresh]).values()]).toEqual([1, 1]);

		// Remembered: the next run of the same workflow sends neither.
		const again = await runSheet(harness, own, 'real-duplicate-again.csv', rows);
		expect(listingIdsSent(again.state, [duplicate, fresh])).toEqual([]);
		expect(statusOf(again.output)).toEqual({ [duplicate]: 'skipped', [fresh]: 'skipped' });
	});

	it.each([500, 429] as const)(
		'the plan’s quota answered %i: sending stops at once, the rest is not created and not remembered, the next run after the reset sends it',
		async (status) => {
			const harness = e2e();
			const eventId = status === 500 ? 7392 : 7393;
			const ids = Array.from({ length: 6 }, () => nextListingId(ID_BASE));
			const rows = oneSeatRows(ids, eventId, 'Q');
			const own = await ownWorkflow(harness, `real answers: quota ${status}`);
			const quotaLimit = 2;
			await harness.sandbox.limitQuota({ limit: quotaLimit, endpoint: 'listings', status });
			let output: Item[];
			let state: SandboxState;
			try {
				({ output, state } = await runSheet(harness, own, `real-quota-${status}.csv`, rows));
			} finally {
				await harness.sandbox.limitQuota(null);
			}

			const sent = listingIdsSent(state, ids);
			const refused = requestsTo(state, 'listings').filter((request) => request.status === status);
			// No listing sent twice: a quota refusal is not tried again.
			expect(new Set(sent).size).toBe(sent.length);
			expect(refused.length).toBeGreaterThan(0);
			const created = ids.filter((id) => statusOf(output)[id] === 'created');
			expect(created).toHaveLength(quotaLimit);
			const left = ids.filter((id) => !created.includes(id));
			// Each listing left was refused by the quota (not created) or not sent at all: none may have been created.
			for (const id of left) {
				const item = output.find((candidate) => Number(candidate.listing_id) === id);
				const error = errorOf(item);
				const outcome =
					error.error === 'Not sent: the run stopped before this listing was sent'
						? 'not sent'
						: /^Quota used up: /.test(String(error.error)) && error.mayHaveBeenCreated === false
							? 'refused by the quota'
							: JSON.stringify(error);
				expect({ id, status: item?.listingStatus, outcome }).toEqual({
					id,
					status: 'failed',
					outcome: expect.stringMatching(/^(not sent|refused by the quota)$/),
				});
			}
			const quotaItems = output.filter((item) => /quota/i.test(String(errorOf(item).error)));
			expect(quotaItems.length).toBeGreaterThan(0);
			expect(wordsOf(quotaItems[0])).toMatch(/Rate limit quota violation/);
			expect(errorOf(quotaItems[0]).description).toMatch(
				/once it has reset|upgrading your app's plan/,
			);
			console.info(
				`quota ${status}: sent ${sent.length}, refused ${refused.length}; ${JSON.stringify(output.map((item) => errorOf(item).error ?? item.listingStatus))}`,
			);

			// Not remembered: once the quota has reset, the next run sends exactly the ones left, once each.
			const again = await runSheet(harness, own, `real-quota-${status}-again.csv`, rows);
			expect(listingIdsSent(again.state, ids).sort()).toEqual([...left].sort());
			const againStatus = statusOf(again.output);
			for (const id of left)
				expect({ id, status: againStatus[id] }).toEqual({ id, status: 'created' });
			for (const id of created)
				expect({ id, status: againStatus[id] }).toEqual({ id, status: 'skipped' });
			expect([...heldCounts(again.state, ids).values()].every((times) => times === 1)).toBe(true);
		},
	);

	it('a spike arrest (Apigee’s default 500): every listing created once, none unknown', async () => {
		const harness = e2e();
		const ids = Array.from({ length: 8 }, () => nextListingId(ID_BASE));
		const own = await ownWorkflow(harness, 'real answers: spike arrest');
		await harness.sandbox.limitSpikeArrest({ rate: '20ps', endpoint: 'listings', status: 500 });
		let output: Item[];
		let state: SandboxState;
		let refusedBySpikeArrest: number;
		try {
			({ output, state } = await runSheet(
				harness,
				own,
				'real-spike.csv',
				oneSeatRows(ids, 7394, 'S'),
			));
			refusedBySpikeArrest = state.spikeArrest.refused;
		} finally {
			await harness.sandbox.limitSpikeArrest(null);
		}
		console.info(
			`spike arrest: ${requestsTo(state, 'listings').length} listing requests for ${ids.length} listings, statuses ${JSON.stringify(requestsTo(state, 'listings').map((request) => request.status))}`,
		);
		// The spike arrest struck, and each refused request was tried again in the same run.
		expect(requestsTo(state, 'listings').some((request) => request.status === 500)).toBe(true);
		expect(refusedBySpikeArrest).toBeGreaterThan(0);
		expect(Object.values(statusOf(output))).toEqual(ids.map(() => 'created'));
		expect([...heldCounts(state, ids).values()]).toEqual(ids.map(() => 1));
	});

	it('Apigee’s invalid_client at the token URL (a wrong Consumer Secret) names the consumer key or secret and quotes "ClientId is Invalid"', async () => {
		const harness = e2e();
		const ids = [nextListingId(ID_BASE), nextListingId(ID_BASE)];
		const own = await ownWorkflow(harness, 'real answers: invalid_client', {
			credentialData: { consumerSecret: 'a-wrong-consumer-secret' },
		});
		const { output, state } = await runSheet(
			harness,
			own,
			'real-invalid-client.csv',
			oneSeatRows(ids, 7395, 'K'),
		);
		expect(requestsTo(state, 'token').map((request) => request.status)).toEqual([401]);
		expect(requestsTo(state, 'listings')).toEqual([]);
		const [firstItem] = output;
		expect(errorOf(firstItem).error).toMatch(/consumer key and secret/);
		expect(wordsOf(firstItem)).toContain('ClientId is Invalid');
		expect(JSON.stringify(output)).not.toContain('a-wrong-consumer-secret');
		expect(JSON.stringify(output)).not.toContain(SANDBOX_DEFAULTS.marketplaceAccount.password);
	});

	it('an app without the listings API product: the error says so, nothing is created', async () => {
		const harness = e2e();
		const id = nextListingId(ID_BASE);
		const own = await ownWorkflow(harness, 'real answers: no API product');
		await harness.sandbox.configureAnswers({ withoutApiProduct: 'listings' });
		let output: Item[];
		let state: SandboxState;
		try {
			({ output, state } = await runSheet(
				harness,
				own,
				'real-no-product.csv',
				oneSeatRows([id], 7396, 'P'),
			));
		} finally {
			await harness.sandbox.configureAnswers({ withoutApiProduct: null });
		}
		expect(requestsTo(state, 'listings').map((request) => request.status)).toEqual([403]);
		expect(output[0].listingStatus).toBe('failed');
		expect(errorOf(output[0]).error).toMatch(/lacks the API product/);
		expect(wordsOf(output[0])).toContain('no apiproduct match found');
		expect(errorOf(output[0]).mayHaveBeenCreated).toBe(false);
		expect(heldCounts(state, [id]).get(id)).toBe(0);
	});

	it('the service’s error code beside its words: inventory.listings.invalidEvent for an inactive event', async () => {
		const harness = e2e();
		const id = nextListingId(ID_BASE);
		const inactiveEvent = 7397;
		const own = await ownWorkflow(harness, 'real answers: inactive event');
		const before = (await harness.sandbox.state()).answers.inactiveEventIds;
		await harness.sandbox.configureAnswers({ inactiveEventIds: [...before, inactiveEvent] });
		let output: Item[];
		try {
			({ output } = await runSheet(
				harness,
				own,
				'real-inactive-event.csv',
				oneSeatRows([id], inactiveEvent, 'E'),
			));
		} finally {
			await harness.sandbox.configureAnswers({ inactiveEventIds: before });
		}
		const error = errorOf(output[0]);
		expect(output[0].listingStatus).toBe('failed');
		expect(error.apiCode).toBe('inventory.listings.invalidEvent');
		expect(error.description).toContain(
			'"Event is not active" (code inventory.listings.invalidEvent)',
		);
		expect(error.mayHaveBeenCreated).toBe(false);
	});

	it('the trigger’s token URL takes the subscription’s JSON field names: a sale delivered with them starts exactly one execution', async () => {
		const harness = e2e();
		const webhookId = triggerWebhookId(workflows.saleAlert);
		const before = (await harness.n8n.executions(workflows.saleAlert.id)).length;
		const result = await harness.sandbox.deliverSampleSale({
			tokenEndPoint: `${harness.context.n8nUrl}/webhook/${webhookId}/token`,
			callbackUrl: `${harness.context.n8nUrl}/webhook/${webhookId}/notifications`,
			clientId: SANDBOX_CALLBACK_CLIENT.clientId,
			clientSecret: SANDBOX_CALLBACK_CLIENT.clientSecret,
			clientAuth: 'subscription_json',
		});
		expect(result.complete).toBe(true);
		expect(result.delivery.clientAuth).toBe('subscription_json');
		expect(result.delivery.status).toBe('delivered');
		expect(result.delivery.attempts.map((attempt) => [attempt.step, attempt.status])).toEqual([
			['token', 200],
			['callback', 200],
		]);
		const executions = await waitForExecutions(harness, workflows.saleAlert.id, before + 1);
		expect(executions).toHaveLength(before + 1);
	});
});
