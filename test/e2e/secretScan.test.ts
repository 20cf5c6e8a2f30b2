/**
 * Runs last (test/setup/e2eSequencer.js): one scan for secrets over everything the suite left behind. First it
 * shows that the scan can fail, with a secret planted on purpose in a real execution, which is then deleted.
 */
import { SANDBOX_CALLBACK_CLIENT } from '../../support/harness/harness';
import { collectScanSources, knownSecrets, scanForSecrets } from '../../support/e2e/secretScan';
import { postWebhook, rawRequest, useE2e, waitForExecutions } from '../../support/e2e/helpers';
import { suiteWorkflows, triggerWebhookId } from '../../support/e2e/workflows';

const e2e = useE2e();
const saleAlert = suiteWorkflows().saleAlert;
const webhookId = triggerWebhookId(saleAlert);

async function issueToken(): Promise<string> {
	const { clientId, clientSecret } = SANDBOX_CALLBACK_CLIENT;
	const answer = await rawRequest(
		`${e2e().context.n8nUrl}/webhook/${webhookId}/token`,
		'POST',
		[
			['content-type', 'application/x-www-form-urlencoded'],
			['authorization', `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`],
		],
		'grant_type=client_credentials',
	);
	expect(answer.status).toBe(200);
	return (JSON.parse(answer.text) as { access_token: string }).access_token;
}

describe('secrets', () => {
	it('the scan catches every kind of known secret, wherever it is planted', async () => {
		const harness = e2e();
		const secrets = knownSecrets(harness);
		const token = await issueToken();
		for (const secret of secrets) {
			const planted = typeof secret.value === 'string' ? secret.value : token;
			for (const name of ['n8n log', 'execution 1', 'sandbox state (inspection output)']) {
				const findings = scanForSecrets(
					[{ name, text: `{"some":"text","value":"${planted}","more":1}` }],
					secrets,
				);
				expect(findings.map((finding) => [finding.source, finding.secret])).toContainEqual([
					name,
					secret.label,
				]);
				expect(findings.every((finding) => !finding.around.includes(planted))).toBe(true);
			}
		}
	});

	it('the scan fails on a secret planted in a real execution, and passes again once that execution is deleted', async () => {
		const harness = e2e();
		const before = (await harness.n8n.executions(saleAlert.id)).length;
		const planted = await postWebhook(
			harness,
			`${webhookId}/notifications`,
			{
				eventType: 'listing_sale',
				notificationId: 'planted-secret',
				note: SANDBOX_CALLBACK_CLIENT.clientSecret,
			},
			{ authorization: `Bearer ${await issueToken()}` },
		);
		expect(planted.status).toBe(200);
		const [execution] = await waitForExecutions(harness, saleAlert.id, before + 1);

		const findings = scanForSecrets(await collectScanSources(harness), knownSecrets(harness));
		expect(findings.map((finding) => [finding.source, finding.secret])).toContainEqual([
			expect.stringMatching(new RegExp(`^execution ${execution.id} `)),
			'callback client secret',
		]);

		await harness.n8n.request('DELETE', `/executions/${execution.id}`);
		const after = scanForSecrets(await collectScanSources(harness), knownSecrets(harness));
		expect(
			after.filter((finding) => finding.source.startsWith(`execution ${execution.id} `)),
		).toEqual([]);
	});

	it("no secret in n8n's log, in any stored execution (items and errors), or in the sandbox's inspection output", async () => {
		const harness = e2e();
		const sources = await collectScanSources(harness);
		const executions = sources.filter((source) => source.name.startsWith('execution '));
		process.stdout.write(
			`secret scan: ${knownSecrets(harness).length} secrets over ${sources.length} sources (n8n log ${sources[0].text.length} chars, ${executions.length} executions, sandbox state)\n`,
		);
		// The scan reads real material: n8n's start banner, stored executions, the sandbox's request log.
		expect(sources[0].text).toContain('Editor is now accessible via');
		expect(executions.length).toBeGreaterThan(0);
		expect(sources.at(-1)?.text).toContain('"requests"');
		expect(scanForSecrets(sources, knownSecrets(harness))).toEqual([]);
	});
});
