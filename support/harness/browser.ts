/**
 * The n8n editor in a real browser: Debian's Chromium (installed with apt when missing), driven by playwright-core,
 * signed in as the harness's owner. Chromium runs headless with every background service off, because the machine
 * allows no traffic beyond loopback.
 */
import { existsSync } from 'node:fs';

import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

import { OWNER } from './n8n';
import { cleanEnv, runCommand } from './processes';
import { heartbeat, step } from './progress';

export const CHROMIUM_PATH = process.env.TM_CHROMIUM_PATH ?? '/usr/bin/chromium';

const CHROMIUM_ARGS = [
	'--headless',
	'--no-sandbox',
	'--disable-gpu',
	'--disable-quic',
	'--no-first-run',
	'--disable-background-networking',
	'--disable-component-update',
	'--disable-sync',
	'--disable-dev-shm-usage',
];

/** Installs Debian's chromium when it is missing (CI's clean machine); a no-op when present. */
export async function ensureChromium(): Promise<string> {
	if (existsSync(CHROMIUM_PATH)) return CHROMIUM_PATH;
	step(`browser: ${CHROMIUM_PATH} is missing; installing Debian's chromium with apt-get (about 30 s)`);
	const stopHeartbeat = heartbeat('apt-get install chromium');
	try {
		const sudo = process.getuid?.() === 0 ? [] : ['sudo'];
		const run = (args: string[]) =>
			runCommand(sudo[0] ?? args[0], sudo.length ? args : args.slice(1), {
				cwd: process.cwd(),
				env: cleanEnv({ DEBIAN_FRONTEND: 'noninteractive' }),
				timeoutMs: 10 * 60_000,
				label: args.join(' '),
			});
		await run(['apt-get', 'update']);
		await run(['apt-get', 'install', '-y', '--no-install-recommends', 'chromium']);
	} finally {
		stopHeartbeat();
	}
	if (!existsSync(CHROMIUM_PATH)) throw new Error(`apt-get finished but ${CHROMIUM_PATH} does not exist`);
	step(`browser: chromium installed at ${CHROMIUM_PATH}`);
	return CHROMIUM_PATH;
}

export interface EditorBrowser {
	browser: Browser;
	context: BrowserContext;
	page: Page;
	close(): Promise<void>;
}

/** Starts Chromium with a fresh profile and signs in to the editor at /signin as the harness's owner. */
export async function openSignedInEditor(n8nUrl: string): Promise<EditorBrowser> {
	const executablePath = await ensureChromium();
	// playwright gives every launch a fresh temporary profile and removes it on close.
	const browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS, timeout: 120_000 });
	const close = async () => {
		await browser.close().catch(() => undefined);
	};
	try {
		const context = await browser.newContext({ viewport: { width: 1600, height: 1000 }, deviceScaleFactor: 1 });
		const page = await context.newPage();
		page.setDefaultTimeout(60_000);
		await page.goto(`${n8nUrl}/signin`, { waitUntil: 'domcontentloaded' });
		await page.locator('input[type="email"], input[name="emailOrLdapLoginId"]').first().fill(OWNER.email);
		await page.locator('input[type="password"]').first().fill(OWNER.password);
		await page.locator('button[type="submit"], [data-test-id="form-submit-button"]').first().click();
		await page.waitForURL((url) => !url.pathname.startsWith('/signin'), { timeout: 60_000 });
		return { browser, context, page, close };
	} catch (error) {
		await close();
		throw error;
	}
}
