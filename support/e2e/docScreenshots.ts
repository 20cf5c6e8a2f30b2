/**
 * The screenshots in docs/: what each shows and how the e2e editor test (test/e2e/editor.test.ts) takes it. The test
 * takes every one on every run, reads the text shown in the shot's region, and compares it, normalised, with the
 * fingerprint committed in docs/screenshots.json: when the editor shows something else (a label renamed, a default
 * changed, a column added), the test fails and names the image to refresh. A unit test
 * (test/unit/package/docsScreenshots.test.ts) holds the docs to this list: every image README.md and docs/*.md show is here,
 * every file here exists and has a fingerprint, and docs/ holds no other image.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { CURRENT_N8N_VERSION } from '../harness/n8nInstall';

export const DOCS_DIR = join(__dirname, '..', '..', 'docs');

/**
 * The n8n whose editor the images show: the line users run today, what a new user installs (the suite's default,
 * older n8n draws an empty number field as 0, where today's shows its placeholder). The text is compared on this
 * version only (`npm test` runs the e2e suite on it); on another, the shots are still taken and scanned for secrets.
 */
export const DOCS_N8N_VERSION = CURRENT_N8N_VERSION;

/** Where the fingerprints live (docs/screenshots.json), and the variable that refreshes them with the images. */
export const FINGERPRINTS_FILE = join(DOCS_DIR, 'screenshots.json');
export const UPDATE_VARIABLE = 'TM_UPDATE_SCREENSHOTS';
export const REFRESH_COMMAND = `TM_N8N_VERSION=${DOCS_N8N_VERSION} ${UPDATE_VARIABLE}=1 npx jest test/e2e/editor.test.ts`;

export interface DocScreenshot {
	/** The image's file name under docs/. */
	file: string;
	/** What it shows, in the words of its caption. */
	shows: string;
	/** How the editor test produces it, and which part of the page it reads for the fingerprint. */
	how: string;
}

export const DOC_SCREENSHOTS = [
	{
		file: 'editor-create-listings-panel.png',
		shows:
			'Listing → Create as a new user first sees it: the sheet shape (Each Item Is a Ticket) and the other defaults of node version 1.1',
		how: 'A workflow of a Manual Trigger and a Ticket Marketplace node (version 1.1, nothing set but the credential), its panel opened; the text of the panel.',
	},
	{
		file: 'editor-ticket-marketplace-credential.png',
		shows:
			'The Ticket Marketplace API credential, as it opens for a new account: every field empty',
		how: "From that panel's credential list, Create New Credential; the text of the credential dialog (and no input of it may hold a secret).",
	},
	{
		file: 'editor-sheet-result-rows.png',
		shows:
			"A sheet's result rows: Listing → Create's output after a run over a four-row sheet, one item per input row with its outcome",
		how: "A sheet workflow (Read File → Extract From CSV → Create, Output: One Item per Input Row, On Error: Continue) run from the editor's Execute Workflow against the sandbox; a fourth row with an invalid price; the Create node's panel, its output as a table; the text of the output pane.",
	},
	{
		file: 'editor-sale-alert.png',
		shows:
			'The sale alert after a sample sale: the notification coming into Format Chat Message, and the message it makes for the chat',
		how: "A copy of the sale-alert example, run from the editor's Execute Workflow while the sandbox delivers its sample sale to the trigger's Test URLs; the Format Chat Message panel; the text of its input and output panes.",
	},
	{
		file: 'editor-data-table-to-listings.png',
		shows: 'The data table to listings workflow on the canvas',
		how: 'The data-table-to-listings example opened on the canvas; the names of its nodes.',
	},
	{
		file: 'editor-subscribe-credentials.png',
		shows: 'Webhook → Subscribe with its two credential fields',
		how: 'The subscribe-to-sales example, the Subscribe panel opened; the text of its parameters.',
	},
	{
		file: 'editor-http-request-credential.png',
		shows: 'The HTTP Request node with Ticket Marketplace API as its predefined credential type',
		how: 'The partner-api-http-request example, the HTTP Request panel opened; the text of its parameters.',
	},
] as const satisfies readonly DocScreenshot[];

export type DocScreenshotFile = (typeof DOC_SCREENSHOTS)[number]['file'];

/** docs/screenshots.json: the n8n version the images were taken with, and each image's normalised text. */
export interface Fingerprints {
	n8nVersion: string;
	shots: Record<string, string[]>;
}

export function readFingerprints(): Fingerprints {
	return JSON.parse(readFileSync(FINGERPRINTS_FILE, 'utf8')) as Fingerprints;
}

/**
 * What changes from run to run, replaced by a stable word: ids the sandbox and n8n make up, times, durations, ports.
 * Everything else is kept exactly, one trimmed line per non-empty line of text.
 */
const VOLATILE: Array<[RegExp, string]> = [
	[/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '<uuid>'],
	[/\b(sub|lst|sale|sample|dlv|ntf|tok|req|flt)_[0-9a-f]{16}\b/g, '$1_<id>'],
	[/\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})?\b/g, '<time>'],
	[/\b\d+(\.\d+)?\s?(ms|milliseconds?)\b/g, '<duration>'],
	[/\b(127\.0\.0\.1|localhost):\d+\b/g, '$1:<port>'],
	[/\bID#\d+\b/g, 'ID#<n>'],
	// The sandbox's answer says whether a subscription was active when the listing was created: other tests of the
	// suite, run before or not, decide that.
	[/\beligibleForNotifications:\s?(true|false)\b/g, 'eligibleForNotifications:<bool>'],
	// n8n names a new credential after its type and the number of those already there.
	[/\b(Ticket Marketplace account) \d+$/g, '$1 <n>'],
];

export function normaliseShownText(text: string): string[] {
	return text
		.split('\n')
		.map((line) =>
			VOLATILE.reduce((current, [pattern, word]) => current.replace(pattern, word), line)
				.replace(/\s+/g, ' ')
				.trim(),
		)
		.filter((line) => line !== '');
}

/** The first line where two fingerprints differ, in words (undefined when they are the same). */
export function firstDifference(expected: string[], shown: string[]): string | undefined {
	const length = Math.max(expected.length, shown.length);
	for (let index = 0; index < length; index += 1) {
		if (expected[index] === shown[index]) continue;
		const quote = (line: string | undefined) =>
			line === undefined ? '(nothing)' : JSON.stringify(line);
		return `line ${index + 1}: the fingerprint has ${quote(expected[index])}, the editor shows ${quote(shown[index])}`;
	}
	return undefined;
}
