/**
 * The n8n editor in a real browser (headless Chromium, playwright-core): each example workflow on the canvas, and
 * the panel of every node of ours (and of the HTTP Request node that uses our credential), opened the way a user
 * opens it. Fails on an uncaught page error, on a console error while one of our panels is open, and on what a
 * user would see wrong: unlabelled credential fields, a credential list that offers the wrong type, our credential
 * missing from the HTTP Request node. Screenshots go to TM_SCREENSHOT_DIR (default test-output/editor/).
 *
 * It also takes every image of docs/ (support/e2e/docScreenshots.ts) the way a user gets there, and on the n8n the
 * images show (DOCS_N8N_VERSION) fails when the text one shows no longer matches its fingerprint in
 * docs/screenshots.json. With TM_UPDATE_SCREENSHOTS=1 it rewrites those images and fingerprints; without it, the
 * images go to TM_SCREENSHOT_DIR/docs/ and git stays clean.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import type { ConsoleMessage, Locator, Page } from 'playwright-core';

import { openSignedInEditor, type EditorBrowser } from '../../support/harness/browser';
import { SANDBOX_CALLBACK_CLIENT } from '../../support/harness/harness';
import { n8nVersion } from '../../support/harness/n8nInstall';
import { pollUntil } from '../../support/harness/n8n';
import { REPO_ROOT } from '../../support/harness/packageUnderTest';
import {
	CREDENTIAL_IDS,
	EXAMPLE_FILES,
	loadExample,
	nodeByType,
	type WorkflowJson,
	type WorkflowNode,
} from '../../support/harness/workflows';
import {
	DOC_SCREENSHOTS,
	DOCS_DIR,
	DOCS_N8N_VERSION,
	FINGERPRINTS_FILE,
	firstDifference,
	normaliseShownText,
	readFingerprints,
	REFRESH_COMMAND,
	UPDATE_VARIABLE,
	type DocScreenshotFile,
	type Fingerprints,
} from '../../support/e2e/docScreenshots';
import {
	describeOnN8n2,
	tokenStatus,
	useE2e,
	waitForExecutions,
	writeSheet,
	type E2e,
	type SeatRow,
} from '../../support/e2e/helpers';
import { knownSecrets, scanForSecrets } from '../../support/e2e/secretScan';
import { ACTION_NODE_TYPE, suiteWorkflows, TRIGGER_NODE_TYPE } from '../../support/e2e/workflows';

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

/** What a documentation shot shows: the page region it reads, and how it is taken. */
interface DocShot {
	/** The part of the page the image is about; its text is the shot's fingerprint. */
	region: Locator;
	/** The fingerprint's text when it is not the region's own (the canvas: its nodes' names). */
	text?: string;
	/** The image is the region alone (a dialog), not the whole window. */
	regionOnly?: boolean;
	/** With regionOnly: the image ends below this part of the region (a table, not the empty space under it). */
	until?: Locator;
}

/** The editor's window (as support/harness/browser.ts opens it), and a wider one where a table needs the room. */
const WINDOW = { width: 1600, height: 1000 };
const WIDE_WINDOW = { width: 2000, height: 1000 };

/**
 * The panel's layout and display modes that the editor remembers in localStorage (a panel dragged, Table chosen over
 * Schema): forgotten before each shot, so each starts from the layout a new user has, whatever ran before it.
 */
const FORGET_PANEL_LAYOUT = `for (const key of Object.keys(localStorage)) if (/^N8N_(NDV|MAIN_PANEL)/.test(key)) localStorage.removeItem(key)`;

/** Creates a workflow through n8n's public API (inactive) and returns it with its new id. */
async function createWorkflow(
	harness: E2e,
	workflow: Pick<WorkflowJson, 'name' | 'nodes' | 'connections' | 'settings'>,
): Promise<WorkflowJson> {
	const created = await harness.n8n.request<{ id: string }>('POST', '/workflows', {
		name: workflow.name,
		nodes: workflow.nodes,
		connections: workflow.connections,
		settings: workflow.settings ?? { executionOrder: 'v1' },
	});
	return { ...workflow, id: created.id };
}

async function openCanvas(page: Page, n8nUrl: string, workflow: WorkflowJson): Promise<void> {
	await page.goto(`${n8nUrl}/workflow/${workflow.id}`, { waitUntil: 'domcontentloaded' });
	await page.locator('[data-test-id="canvas-node"]').first().waitFor({ state: 'visible' });
	await page.waitForLoadState('networkidle', { timeout: 15_000 }).catch(() => undefined);
}

/**
 * Clicks the canvas's Execute Workflow, lets `whileRunning` feed the run (a sample sale), waits until n8n has stored
 * the finished execution and the editor has shown it, then opens a node's panel with its data the way a user does
 * (a double click on the canvas: reloading the page would drop the run's data).
 */
async function executeAndOpen(
	page: Page,
	harness: E2e,
	workflow: WorkflowJson,
	nodeName: string,
	whileRunning: () => Promise<void> = async () => undefined,
): Promise<void> {
	const before = (await harness.n8n.executions(workflow.id)).length;
	await page.locator('[data-test-id="execute-workflow-button"]').first().click();
	await whileRunning();
	const [execution] = await waitForExecutions(harness, workflow.id, before + 1, 120_000);
	expect({ workflow: workflow.name, status: execution.status }).toEqual({
		workflow: workflow.name,
		status: 'success',
	});
	const node = page.locator(`[data-test-id="canvas-node"][data-node-name="${nodeName}"]`);
	// The editor marks each node that ran once the run's data has reached it.
	await node
		.locator('[data-test-id="canvas-node-status-success"]')
		.first()
		.waitFor({ state: 'visible', timeout: 60_000 });
	await node.dblclick();
	await page.locator('[data-test-id="ndv"]').first().waitFor({ state: 'visible' });
	await page
		.locator('[data-test-id="output-panel"] [data-test-id="ndv-data-container"]')
		.first()
		.waitFor({ state: 'visible' });
	await page.waitForLoadState('networkidle', { timeout: 15_000 }).catch(() => undefined);
}

/** The sheet of the result-rows shot: two listings created (one of two seats), one row with an invalid price. */
const DOC_SHEET: SeatRow[] = [
	{
		listing_id: 64001,
		event_id: 1000001,
		price: '49.50',
		currency: 'EUR',
		row: 'A',
		seat: 12,
		ticket_id: '64001-A-12',
	},
	{
		listing_id: 64001,
		event_id: 1000001,
		price: '49.50',
		currency: 'EUR',
		row: 'A',
		seat: 13,
		ticket_id: '64001-A-13',
	},
	{
		listing_id: 64002,
		event_id: 1000001,
		price: '35.00',
		currency: 'EUR',
		row: 'B',
		seat: 7,
		ticket_id: '64002-B-7',
	},
	{
		listing_id: 64003,
		event_id: 1000001,
		price: 'tbc',
		currency: 'EUR',
		row: 'C',
		seat: 1,
		ticket_id: '64003-C-1',
	},
];

/** Each documentation shot's scene, set up the way a user gets there. */
function docScenes(
	page: () => Page,
	harness: () => E2e,
): Record<DocScreenshotFile, () => Promise<DocShot>> {
	let newUserWorkflow: Promise<WorkflowJson> | undefined;
	/** Manual Trigger → a Ticket Marketplace node with nothing set but the credential, as a user adds it. */
	const newUserCreate = async () => {
		newUserWorkflow ??= createWorkflow(harness(), {
			name: 'Docs: Listing → Create as a new user sees it',
			nodes: [
				{
					id: randomUUID(),
					name: 'When clicking ‘Execute workflow’',
					type: 'n8n-nodes-base.manualTrigger',
					typeVersion: 1,
					position: [0, 0],
					parameters: {},
				},
				{
					id: randomUUID(),
					name: 'Create listings',
					type: ACTION_NODE_TYPE,
					typeVersion: 1.1,
					position: [240, 0],
					parameters: {},
					credentials: { ticketMarketplaceApi: { ...CREDENTIAL_IDS.api } },
				},
			],
			connections: {
				'When clicking ‘Execute workflow’': {
					main: [[{ node: 'Create listings', type: 'main', index: 0 }]],
				},
			},
		});
		const workflow = await newUserWorkflow;
		await openPanel(
			page(),
			harness().context.n8nUrl,
			workflow,
			nodeByType(workflow, ACTION_NODE_TYPE),
		);
	};
	const ndv = () => page().locator('[data-test-id="ndv"]').first();
	const examplePanel = async (file: string, type: string): Promise<DocShot> => {
		const workflow = loadExample(file);
		await openPanel(page(), harness().context.n8nUrl, workflow, nodeByType(workflow, type));
		// The image is the whole panel; its text is the parameters' alone: what the input and output panes show
		// depends on which tests ran the example before.
		return { region: ndv().locator('[data-test-id="node-parameters"]').first() };
	};

	return {
		'editor-create-listings-panel.png': async () => {
			await newUserCreate();
			return { region: ndv() };
		},
		'editor-ticket-marketplace-credential.png': async () => {
			await newUserCreate();
			await page()
				.locator('[data-test-id="ndv"] [data-test-id="node-credentials-select"]')
				.first()
				.click();
			await page().locator('[data-test-id="node-credentials-select-item-new"]').first().click();
			const dialog = page()
				.locator('.el-dialog')
				.filter({ has: page().locator('[data-test-id="credential-edit-dialog"]') })
				.first();
			await dialog.waitFor({ state: 'visible' });
			await page()
				.waitForLoadState('networkidle', { timeout: 15_000 })
				.catch(() => undefined);
			return { region: dialog, regionOnly: true };
		},
		'editor-sheet-result-rows.png': async () => {
			const e2e = harness();
			const sheetPath = join(
				e2e.context.filesFolder,
				writeSheet(e2e, `docs-sheet-${randomUUID()}.csv`, DOC_SHEET),
			);
			const example = suiteWorkflows().sheetToListings;
			const nodes = (JSON.parse(JSON.stringify(example.nodes)) as WorkflowNode[]).filter(
				(node) => node.type !== 'n8n-nodes-base.webhook',
			);
			for (const node of nodes) {
				if (node.type === 'n8n-nodes-base.readWriteFile') node.parameters.fileSelector = sheetPath;
				if (node.type === ACTION_NODE_TYPE) {
					node.onError = 'continueRegularOutput';
					node.parameters.options = { output: 'row' };
				}
			}
			await page().setViewportSize(WIDE_WINDOW);
			const connections = { ...example.connections };
			delete connections['Run over HTTP'];
			const workflow = await createWorkflow(e2e, {
				name: "Docs: a sheet's result rows",
				nodes,
				connections,
			});
			await openCanvas(page(), e2e.context.n8nUrl, workflow);
			await executeAndOpen(page(), e2e, workflow, nodeByType(workflow, ACTION_NODE_TYPE).name);
			const output = page().locator('[data-test-id="output-panel"]').first();
			// Room for the output: the parameters move left over the input, as a user drags them.
			const handle = await page()
				.locator('[data-test-id="panel-drag-button"]')
				.first()
				.boundingBox();
			if (handle) {
				await page().mouse.move(handle.x + handle.width / 2, handle.y + handle.height / 2);
				await page().mouse.down();
				await page().mouse.move(handle.x - 800, handle.y + handle.height / 2, { steps: 10 });
				await page().mouse.up();
			}
			// One line per row: n8n's Collapse Rows on the outcome's column (the API's answer stays one click away).
			const statusHeader = output.locator('th').filter({ hasText: 'listingStatus' }).first();
			await statusHeader.hover();
			await statusHeader.locator('button[aria-label="Collapse rows"]').first().click();
			await page().mouse.move(0, 0);
			await page()
				.waitForLoadState('networkidle', { timeout: 15_000 })
				.catch(() => undefined);
			return { region: output, regionOnly: true, until: output.locator('table').first() };
		},
		'editor-sale-alert.png': async () => {
			const e2e = harness();
			const webhookId = randomUUID();
			const example = suiteWorkflows().saleAlert;
			const nodes = JSON.parse(JSON.stringify(example.nodes)) as WorkflowNode[];
			const trigger = nodes.find((node) => node.type === TRIGGER_NODE_TYPE);
			if (!trigger) throw new Error('the sale-alert example has no trigger');
			trigger.webhookId = webhookId;
			const workflow = await createWorkflow(e2e, {
				name: 'Docs: the sale alert after a sample sale',
				nodes,
				connections: example.connections,
			});
			const testUrl = (path: string) => `${e2e.context.n8nUrl}/webhook-test/${webhookId}/${path}`;
			await openCanvas(page(), e2e.context.n8nUrl, workflow);
			await executeAndOpen(page(), e2e, workflow, 'Format chat message', async () => {
				await pollUntil(
					'n8n to listen on the trigger’s test URLs',
					async () => (await tokenStatus(testUrl('token'))) === 200,
					60_000,
				);
				const result = await e2e.sandbox.deliverSampleSale({
					tokenEndPoint: testUrl('token'),
					callbackUrl: testUrl('notifications'),
					clientId: SANDBOX_CALLBACK_CLIENT.clientId,
					clientSecret: SANDBOX_CALLBACK_CLIENT.clientSecret,
				});
				expect(result.delivery.status).toBe('delivered');
			});
			return { region: ndv() };
		},
		'editor-data-table-to-listings.png': async () => {
			const workflow = loadExample(EXAMPLE_FILES.dataTableToListings);
			await openCanvas(page(), harness().context.n8nUrl, workflow);
			// Newer n8n opens its Production Checklist over the canvas the first time a published workflow is shown.
			const checklist = page().getByText('Production Checklist', { exact: true }).first();
			const opened = await checklist.waitFor({ state: 'visible', timeout: 3_000 }).then(
				() => true,
				() => false,
			);
			if (opened) {
				await page().mouse.click(WINDOW.width - 200, WINDOW.height - 300);
				await checklist.waitFor({ state: 'hidden', timeout: 10_000 });
			}
			const nodes = page().locator('[data-test-id="canvas-node"]');
			const names: string[] = [];
			for (let index = 0; index < (await nodes.count()); index += 1)
				names.push((await nodes.nth(index).innerText()).trim());
			return { region: page().locator('body'), text: names.join('\n') };
		},
		'editor-subscribe-credentials.png': () =>
			examplePanel(EXAMPLE_FILES.subscribe, ACTION_NODE_TYPE),
		'editor-http-request-credential.png': () =>
			examplePanel(EXAMPLE_FILES.httpRequest, 'n8n-nodes-base.httpRequest'),
	};
}

/**
 * The values of the region's inputs (what a select shows, what a field holds): `shown` for the fingerprint, one
 * `value:` line each (an empty field's `placeholder:`), password fields left out; `all` for the secret scan,
 * password fields included (n8n shows a stored secret as a placeholder of its own, never the secret, and a new
 * credential's fields are empty).
 */
async function inputValues(region: Locator): Promise<{ shown: string[]; all: string[] }> {
	const inputs = region.locator('input, textarea');
	const shown: string[] = [];
	const all: string[] = [];
	for (let index = 0; index < (await inputs.count()); index += 1) {
		const input = inputs.nth(index);
		const value = await input.inputValue().catch(() => '');
		all.push(value);
		if ((await input.getAttribute('type')) === 'password' || !(await input.isVisible())) continue;
		const placeholder = value === '' ? await input.getAttribute('placeholder') : null;
		shown.push(placeholder ? `placeholder: ${placeholder}` : `value: ${value}`);
	}
	return { shown, all };
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

	describe('the screenshots in docs/ (support/e2e/docScreenshots.ts)', () => {
		const updating = process.env[UPDATE_VARIABLE] === '1';
		const version = n8nVersion();
		// Another n8n words and draws things its own way: there the shots are taken and scanned, not compared.
		const comparing = version === DOCS_N8N_VERSION;
		const scenes = docScenes(
			() => editor.page,
			() => e2e(),
		);
		let fingerprints: Fingerprints;

		beforeAll(() => {
			if (updating && !comparing)
				throw new Error(
					`the images in docs/ show n8n ${DOCS_N8N_VERSION}'s editor, this run has n8n ${version}: ` +
						`refresh them with \`${REFRESH_COMMAND}\``,
				);
			mkdirSync(join(SCREENSHOT_DIR, 'docs'), { recursive: true });
			fingerprints = existsSync(FINGERPRINTS_FILE)
				? readFingerprints()
				: { n8nVersion: version, shots: {} };
			if (updating) fingerprints = { n8nVersion: version, shots: { ...fingerprints.shots } };
		});

		/** Reads the shot's text and inputs, checks them for secrets, takes the image, and checks or records the text. */
		async function takeShot(file: DocScreenshotFile, shot: DocShot): Promise<void> {
			// No tooltip of whatever the pointer last rested on, and no toast ("Workflow executed successfully").
			await editor.page.mouse.move(1, 1);
			const toasts = editor.page.locator('.el-notification:visible .el-notification__closeBtn');
			for (let count = await toasts.count(); count > 0; count -= 1)
				await toasts
					.first()
					.click()
					.catch(() => undefined);
			await editor.page
				.locator('.el-notification:visible')
				.first()
				.waitFor({ state: 'hidden', timeout: 5_000 })
				.catch(() => undefined);
			const values = await inputValues(shot.region);
			const text = shot.text ?? [await shot.region.innerText(), ...values.shown].join('\n');
			const findings = scanForSecrets(
				[
					{ name: `docs/${file} (text)`, text },
					{ name: `docs/${file} (inputs)`, text: values.all.join('\n') },
				],
				knownSecrets(e2e()),
			);
			expect(findings).toEqual([]);

			const path = updating ? join(DOCS_DIR, file) : join(SCREENSHOT_DIR, 'docs', file);
			const box = shot.regionOnly ? await shot.region.boundingBox() : null;
			const end = box && shot.until ? await shot.until.boundingBox() : null;
			if (box && end)
				await editor.page.screenshot({
					path,
					clip: { ...box, height: Math.min(box.height, end.y + end.height + 16 - box.y) },
				});
			else if (shot.regionOnly) await shot.region.screenshot({ path });
			else await editor.page.screenshot({ path });
			const shown = normaliseShownText(text);
			if (updating) {
				fingerprints.shots[file] = shown;
				const ordered = Object.fromEntries(
					DOC_SCREENSHOTS.map((entry) => entry.file)
						.filter((name) => name in fingerprints.shots)
						.map((name) => [name, fingerprints.shots[name]]),
				);
				writeFileSync(
					FINGERPRINTS_FILE,
					`${JSON.stringify({ n8nVersion: version, shots: ordered }, null, '\t')}\n`,
				);
				return;
			}
			if (!comparing) return;
			if (fingerprints.n8nVersion !== version)
				throw new Error(
					`docs/screenshots.json holds the text of n8n ${fingerprints.n8nVersion}'s editor, the images are ` +
						`to show n8n ${version}'s: refresh them with \`${REFRESH_COMMAND}\``,
				);
			const expected = fingerprints.shots[file];
			const difference = expected
				? firstDifference(expected, shown)
				: 'docs/screenshots.json has no fingerprint for it';
			if (difference !== undefined)
				throw new Error(
					`docs/${file} is stale: the editor now shows something else (${difference}). ` +
						`Refresh the images and fingerprints with \`${REFRESH_COMMAND}\`, look at the image, ` +
						`and commit both. This run's image is in ${path}.`,
				);
		}

		it.each(DOC_SCREENSHOTS.map((shot) => [shot.file, shot] as const))(
			comparing
				? 'docs/%s: shows what its fingerprint in docs/screenshots.json says, and no secret'
				: `docs/%s: taken, and no secret [text not compared: the images show n8n ${DOCS_N8N_VERSION}]`,
			async (file) => {
				await editor.page.evaluate(FORGET_PANEL_LAYOUT);
				try {
					await takeShot(file, await scenes[file]());
				} finally {
					// A scene may widen the window for its table.
					await editor.page.setViewportSize(WINDOW);
				}
			},
		);
	});
});
