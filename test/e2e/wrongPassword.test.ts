/**
 * Inside a real n8n: a credential with a wrong marketplace password, On Error → Continue, one item
 * per row, 30 listings. The marketplace sees exactly one refused login for the run (not one per listing, which
 * could lock the seller's account), no listing is created, the first failed row carries the credential's diagnosis
 * naming the marketplace login, every other row says it was not sent, and no secret reaches an output item or the
 * stored execution.
 */
import { SANDBOX_DEFAULTS } from '../../sandbox/index';
import {
	nextListingId,
	nodeOutput,
	postWebhook,
	useE2e,
	waitForExecutions,
	writeSheet,
	type SeatRow,
} from '../../support/e2e/helpers';
import { suiteWorkflows, webhookPath } from '../../support/e2e/workflows';
import { WRONG_MARKETPLACE_PASSWORD } from '../../support/harness/harness';
import { PARTNER_API_PATHS } from '../../nodes/shared/partnerApi/paths';

const e2e = useE2e();
const workflows = suiteWorkflows();
const LISTINGS = 30;

describe('a wrong marketplace password, seen from a real n8n', () => {
	it('tries the login once, sends nothing, names the login on the first row and says "not sent" on the rest', async () => {
		const harness = e2e();
		const workflow = workflows.sheetWrongPassword;
		const ids = Array.from({ length: LISTINGS }, () => nextListingId(9_800_000));
		// One seat per listing: a seat in two listings of one event is refused before sending.
		const rows: SeatRow[] = ids.map((id, index) => ({
			listing_id: id,
			event_id: 7013,
			price: '25.00',
			currency: 'EUR',
			row: 'C',
			seat: index + 1,
			ticket_id: `${id}-C-${index + 1}`,
		}));
		const sheetName = writeSheet(harness, 'wrong-password.csv', rows);
		const logged = new Set((await harness.sandbox.state()).requests.map((request) => request.id));
		const before = (await harness.n8n.executions(workflow.id)).length;

		const run = await postWebhook(harness, webhookPath(workflow), { sheet: sheetName });
		expect(run.status).toBe(200);
		const output = run.body as Array<Record<string, unknown>>;

		// What the marketplace saw during the run: one login, refused, and no listing request at all.
		const state = await harness.sandbox.state();
		const during = state.requests.filter((request) => !logged.has(request.id));
		expect(
			during.map((request) => [request.endpoint, request.status, request.method, request.path]),
		).toEqual([['token', 401, 'POST', PARTNER_API_PATHS.grant]]);
		expect(
			state.listings.filter((listing) => ids.includes(Number(listing.externalListingId))),
		).toEqual([]);

		// One item per row, in the sheet's order, every one failed.
		expect(output.map((item) => item.ticket_id)).toEqual(rows.map((row) => row.ticket_id));
		expect(output.every((item) => item.listingStatus === 'failed')).toBe(true);
		const errors = output.map((item) => item.listingError as Record<string, unknown>);
		expect(String(errors[0].error)).toBe(
			'Login refused: the token endpoint refused the marketplace e-mail and password (HTTP 401)',
		);
		expect(errors[0].mayHaveBeenCreated).toBe(false);
		for (const [index, error] of errors.slice(1).entries())
			expect({ row: index + 2, error: error.error }).toEqual({
				row: index + 2,
				error: 'Not sent: the run stopped before this listing was sent',
			});

		// No secret in any output item, nor in the execution n8n stored (items and errors).
		const [latest] = await waitForExecutions(harness, workflow.id, before + 1);
		const execution = await harness.n8n.execution(latest.id);
		expect(nodeOutput(execution, 'Create listings')).toHaveLength(LISTINGS);
		for (const text of [JSON.stringify(output), JSON.stringify(execution)]) {
			for (const secret of [
				WRONG_MARKETPLACE_PASSWORD,
				SANDBOX_DEFAULTS.marketplaceAccount.password,
				SANDBOX_DEFAULTS.consumerSecret,
				Buffer.from(`${SANDBOX_DEFAULTS.consumerKey}:${SANDBOX_DEFAULTS.consumerSecret}`).toString(
					'base64',
				),
			])
				expect(text).not.toContain(secret);
		}
	}, 120_000);
});
