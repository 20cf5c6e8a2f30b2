/**
 * The n8n editor in a real browser: Debian's Chromium (installed with apt when missing), driven by playwright-core,
 * signed in as the harness's owner. Chromium runs headless with every background service off, because the machine
 * allows no traffic beyond loopback.
 */
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

import { OWNER } from './n8n';
import { ensureDebianPackages } from './debian';

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
	await ensureDebianPackages('browser', [{ binary: CHROMIUM_PATH, name: 'chromium' }]);
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
		const context = await browser.newContext({
			viewport: { width: 1600, height: 1000 },
			deviceScaleFactor: 1,
		});
		const page = await context.newPage();
		page.setDefaultTimeout(60_000);
		await page.goto(`${n8nUrl}/signin`, { waitUntil: 'domcontentloaded' });
		await page
			.locator('input[type="email"], input[name="emailOrLdapLoginId"]')
			.first()
			.fill(OWNER.email);
		await page.locator('input[type="password"]').first().fill(OWNER.password);
		await page
			.locator('button[type="submit"], [data-test-id="form-submit-button"]')
			.first()
			.click();
		await page.waitForURL((url) => !url.pathname.startsWith('/signin'), { timeout: 60_000 });
		return { browser, context, page, close };
	} catch (error) {
		await close();
		throw error;
	}
}
