/**
 * The n8n editor in a real browser (headless Chromium, playwright-core): each example workflow on the canvas, and
 * the panel of every node of ours (and of the HTTP Request node that uses our credential), opened the way a user
 * opens it. Fails on an uncaught page error, on a console error while one of our panels is open, and on what a
 * user would see wrong: unlabelled credential fields, a credential list that offers the wrong type, our credential
 * missing from the HTTP Request node. Screenshots go to TM_SCREENSHOT_DIR (default test-output/editor/).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

import type { ConsoleMessage, Page } from 'playwright-core';

import { openSignedInEditor, type EditorBrowser } from '../../support/harness/browser';
import { REPO_ROOT } from '../../support/harness/packageUnderTest';
import {
	EXAMPLE_FILES,
	loadExample,
	type WorkflowJson,
	type WorkflowNode,
} from '../../support/harness/workflows';
import { describeOnN8n2, useE2e } from '../../support/e2e/helpers';

const e2e = useE2e();
const SCREENSHOT_DIR = process.env.TM_SCREENSHOT_DIR ?? join(REPO_ROOT, 'test-output', 'editor');
const OUR_PACKAGE = 'n8n-nodes-ticket-marketplace.';

/** Console output of the editor that has nothing to do with our nodes: the machine has no network beyond loopback. */
const UNRELATED_CONSOLE_ERRORS = [
	/Failed to fetch dynamic banners/,
	/ERR_NAME_NOT_RESOLVED|ERR_INTERNET_DISCONNECTED|ERR_CONNECTION_REFUSED/,
];

interface ConsoleEntry {
	text: string;
	url: string;
}

/**
 * Errors our nodes cannot cause: the closed network, and n8n's editor asking for the output schema of one of n8n's
 * own nodes that n8n 2.8.4 does not ship (e.g. /schemas/n8n-nodes-base.extractFromFile/1.1.0/csv.json answers 404
 * while the next node's panel shows its input). A schema request for our own node types is not excused.
 */
function isUnrelated(entry: ConsoleEntry): boolean {
	if (UNRELATED_CONSOLE_ERRORS.some((pattern) => pattern.test(entry.text))) return true;
	return (
		/\/schemas\/n8n-nodes-base\./.test(new URL(entry.url || 'about:blank').pathname) &&
		/status of 404/.test(entry.text)
	);
}

function isOurs(node: WorkflowNode): boolean {
	return (
		node.type.startsWith(OUR_PACKAGE) ||
		(node.type === 'n8n-nodes-base.httpRequest' &&
			node.parameters.nodeCredentialType === 'ticketMarketplaceApi')
	);
}

function slug(text: string): string {
	return text
		.toLowerCase()
		.replace(/[^a-z0-9]+/g, '-')
		.replace(/^-|-$/g, '');
}

async function openPanel(
	page: Page,
	n8nUrl: string,
	workflow: WorkflowJson,
	node: WorkflowNode,
): Promise<void> {
	await page.goto(`${n8nUrl}/workflow/${workflow.id}/${node.id}`, {
		waitUntil: 'domcontentloaded',
	});
	const panel = page.locator('[data-test-id="ndv"]').first();
	await panel.waitFor({ state: 'visible' });
	await page.locator('[data-test-id="node-parameters"]').first().waitFor({ state: 'visible' });
	// Let the panel settle (credential lists and options load after it opens).
	await page.waitForLoadState('networkidle', { timeout: 15_000 }).catch(() => undefined);
}

describeOnN8n2('the n8n editor in a real browser', "the test drives n8n 2.x's editor", () => {
	let editor: EditorBrowser;
	const consoleErrors: ConsoleEntry[] = [];
	const pageErrors: string[] = [];

	beforeAll(async () => {
		mkdirSync(SCREENSHOT_DIR, { recursive: true });
		editor = await openSignedInEditor(e2e().context.n8nUrl);
		editor.page.on('console', (message: ConsoleMessage) => {
			if (message.type() === 'error')
				consoleErrors.push({ text: message.text(), url: message.location().url });
		});
		editor.page.on('pageerror', (error) => pageErrors.push(error.message));
	}, 300_000);

	afterAll(async () => {
		await editor?.close();
	});

	const examples = Object.values(EXAMPLE_FILES).map((file) => loadExample(file));

	it.each(examples.map((workflow) => [workflow.name, workflow] as const))(
		'%s: the canvas and every panel of ours open without errors',
		async (_name, workflow) => {
			const { page } = editor;
			const { n8nUrl } = e2e().context;
			await page.goto(`${n8nUrl}/workflow/${workflow.id}`, { waitUntil: 'domcontentloaded' });
			await page.locator('[data-test-id="canvas-node"]').first().waitFor({ state: 'visible' });
			await page.waitForLoadState('networkidle', { timeout: 15_000 }).catch(() => undefined);
			await page.screenshot({ path: join(SCREENSHOT_DIR, `${slug(workflow.name)}.png`) });
			expect(await page.locator('[data-test-id="canvas-node"]').count()).toBe(
				workflow.nodes.length,
			);
			// n8n marks a node whose parameters or credentials have an issue with a warning on the canvas.
			expect(
				await page.locator('[data-test-id="canvas-node"] [data-test-id="node-issues"]').count(),
			).toBe(0);

			for (const node of workflow.nodes.filter(isOurs)) {
				const errorsBefore = consoleErrors.length;
				await openPanel(page, n8nUrl, workflow, node);
				await page.screenshot({
					path: join(SCREENSHOT_DIR, `${slug(workflow.name)}--${slug(node.name)}.png`),
				});
				const duringPanel = consoleErrors
					.slice(errorsBefore)
					.filter((entry) => !isUnrelated(entry));
				expect({ node: node.name, consoleErrors: duringPanel }).toEqual({
					node: node.name,
					consoleErrors: [],
				});
				// No parameter of ours is flagged in the panel (n8n marks a parameter with an issue icon).
				expect({
					node: node.name,
					issues: await page
						.locator('[data-test-id="ndv"] [data-test-id="parameter-issues"]')
						.count(),
				}).toEqual({ node: node.name, issues: 0 });
			}
			expect(pageErrors).toEqual([]);
		},
	);

	it('Webhook → Subscribe: the two credential fields are labelled with their types, each listing its own type', async () => {
		const { page } = editor;
		const workflow = loadExample(EXAMPLE_FILES.subscribe);
		const node = workflow.nodes.find(
			(candidate) => candidate.type === `${OUR_PACKAGE}ticketMarketplace`,
		);
		if (!node) throw new Error('the subscribe example has no Ticket Marketplace node');
		await openPanel(page, e2e().context.n8nUrl, workflow, node);

		const credentialFields = page.locator(
			'[data-test-id="ndv"] [data-test-id="node-credentials-select"]',
		);
		expect(await credentialFields.count()).toBe(2);
		const panelText = await page.locator('[data-test-id="ndv"]').first().innerText();
		// Each labelled with its credential type's name, the one the credential list shows.
		expect(panelText).toContain('Ticket Marketplace API');
		expect(panelText).toContain('Ticket Marketplace Callback API');
		expect(panelText).not.toContain('Credential to connect with');

		const openLists = page.locator('.el-select-dropdown:visible');
		const offered = async (index: number) => {
			// One list open at a time: the previous one fades out after Escape, and must be gone before reading the next.
			await openLists.first().waitFor({ state: 'hidden', timeout: 10_000 });
			await credentialFields.nth(index).click();
			const dropdown = openLists.first();
			await dropdown.waitFor({ state: 'visible' });
			const text = await dropdown.innerText();
			await page.keyboard.press('Escape');
			return text;
		};
		const apiList = await offered(0);
		expect(apiList).toContain('Ticket Marketplace account');
		expect(apiList).not.toContain('Ticket Marketplace callback');
		await page.screenshot({ path: join(SCREENSHOT_DIR, 'subscribe-credential-labels.png') });
		const callbackList = await offered(1);
		expect(callbackList).toContain('Ticket Marketplace callback');
		expect(callbackList).not.toContain('Ticket Marketplace account');
	});

	it("n8n's HTTP Request node shows Ticket Marketplace API as its predefined credential type", async () => {
		const { page } = editor;
		const workflow = loadExample(EXAMPLE_FILES.httpRequest);
		const node = workflow.nodes.find(
			(candidate) => candidate.type === 'n8n-nodes-base.httpRequest',
		);
		if (!node) throw new Error('the HTTP Request example has no HTTP Request node');
		await openPanel(page, e2e().context.n8nUrl, workflow, node);
		// The select shows a type's display name only when the type is among those it offers; otherwise the raw name.
		const credentialType = page
			.locator('[data-test-id="ndv"] [data-test-id="parameter-input-nodeCredentialType"] input')
			.first();
		expect(await credentialType.inputValue()).toBe('Ticket Marketplace API');
	});
	it('on a dark canvas, our nodes show their dark icons (the light ones are drawn for a light canvas)', async () => {
		const { page } = editor;
		const { n8nUrl } = e2e().context;
		const ourIcons = async (workflow: WorkflowJson, theme: 'dark' | 'light') => {
			// The editor keeps the chosen theme in localStorage; evaluated as text (the tests compile without DOM types).
			await page.evaluate(`localStorage.setItem('N8N_THEME', '${theme}')`);
			await page.goto(`${n8nUrl}/workflow/${workflow.id}`, { waitUntil: 'domcontentloaded' });
			await page.locator('[data-test-id="canvas-node"]').first().waitFor({ state: 'visible' });
			await page.waitForLoadState('networkidle', { timeout: 15_000 }).catch(() => undefined);
			if (theme === 'dark')
				await page.screenshot({
					path: join(SCREENSHOT_DIR, `dark-canvas--${slug(workflow.name)}.png`),
				});
			const images = page.locator('[data-test-id="canvas-node"] img');
			const sources: string[] = [];
			for (let index = 0; index < (await images.count()); index += 1)
				sources.push((await images.nth(index).getAttribute('src')) ?? '');
			return sources
				.filter((source) => source.includes('/n8n-nodes-ticket-marketplace/'))
				.map((source) => source.split('/').pop());
		};
		try {
			expect(await ourIcons(loadExample(EXAMPLE_FILES.saleAlert), 'dark')).toEqual([
				'ticketMarketplaceTrigger.dark.svg',
			]);
			expect(await ourIcons(loadExample(EXAMPLE_FILES.dataTableToListings), 'dark')).toEqual([
				'ticketMarketplace.dark.svg',
			]);
			expect(await ourIcons(loadExample(EXAMPLE_FILES.dataTableToListings), 'light')).toEqual([
				'ticketMarketplace.svg',
			]);
		} finally {
			await page.evaluate(`localStorage.removeItem('N8N_THEME')`);
		}
	});
});
