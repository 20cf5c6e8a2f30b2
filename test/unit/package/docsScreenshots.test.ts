/**
 * The images of the README and docs/ are the e2e editor test's screenshots (support/e2e/docScreenshots.ts): every
 * image a page shows is in the manifest, every image in the manifest is in docs/ with its fingerprint, and docs/
 * holds no image that nothing shows. The e2e editor test keeps each image's fingerprint true to the editor.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';

import {
	DOC_SCREENSHOTS,
	DOCS_DIR,
	DOCS_N8N_VERSION,
	normaliseShownText,
	readFingerprints,
} from '../../../support/e2e/docScreenshots';

const REPO_ROOT = join(__dirname, '..', '..', '..');
const PAGES = [
	join(REPO_ROOT, 'README.md'),
	...readdirSync(DOCS_DIR)
		.filter((name) => name.endsWith('.md'))
		.map((name) => join(DOCS_DIR, name)),
];
const IMAGE_FILE = /\.(png|jpe?g|gif|svg|webp)$/i;

/** Every local image a Markdown page shows (![alt](path) or <img src>), as a path from the repository's root. */
function imagesShownBy(page: string): string[] {
	const text = readFileSync(page, 'utf8');
	const targets = [
		...[...text.matchAll(/!\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map(
			(match) => match[1],
		),
		...[...text.matchAll(/<img\s[^>]*src=["']([^"']+)["']/gi)].map((match) => match[1]),
	];
	return targets
		.filter((target) => !/^[a-z]+:/i.test(target))
		.map((target) => relative(REPO_ROOT, resolve(dirname(page), target.split('#')[0])));
}

const manifestFiles = DOC_SCREENSHOTS.map((shot) => shot.file);

describe('the screenshots in docs/', () => {
	it('every image that README.md and docs/*.md show is a screenshot of the manifest, in docs/', () => {
		const shown = PAGES.flatMap((page) =>
			imagesShownBy(page).map((image) => ({ page: relative(REPO_ROOT, page), image })),
		);
		expect(shown.length).toBeGreaterThan(0);
		const outside = shown.filter(
			({ image }) =>
				dirname(image) !== 'docs' || !(manifestFiles as string[]).includes(basename(image)),
		);
		expect(outside).toEqual([]);
	});

	it('every screenshot of the manifest is shown by a page, exists in docs/ and has a fingerprint', () => {
		const shownImages = new Set(PAGES.flatMap((page) => imagesShownBy(page)));
		const fingerprints = readFingerprints();
		const problems = DOC_SCREENSHOTS.flatMap((shot) => [
			...(existsSync(join(DOCS_DIR, shot.file)) ? [] : [`${shot.file}: not in docs/`]),
			...(shownImages.has(`docs/${shot.file}`) ? [] : [`${shot.file}: no page shows it`]),
			...((fingerprints.shots[shot.file] ?? []).length > 0
				? []
				: [`${shot.file}: no fingerprint in docs/screenshots.json`]),
		]);
		expect(problems).toEqual([]);
	});

	it('docs/ holds no image outside the manifest, and the fingerprints name only its images', () => {
		const images = readdirSync(DOCS_DIR).filter((name) => IMAGE_FILE.test(name));
		expect(images.filter((name) => !(manifestFiles as string[]).includes(name))).toEqual([]);
		expect(
			Object.keys(readFingerprints().shots).filter(
				(name) => !(manifestFiles as string[]).includes(name),
			),
		).toEqual([]);
	});

	it('the manifest names each image once, says what it shows and how the editor test takes it', () => {
		expect(new Set(manifestFiles).size).toBe(manifestFiles.length);
		for (const shot of DOC_SCREENSHOTS) {
			expect(shot.file).toMatch(/^[a-z0-9-]+\.png$/);
			expect(shot.shows.length).toBeGreaterThan(10);
			expect(shot.how.length).toBeGreaterThan(10);
		}
	});

	it('the fingerprints are of the n8n whose editor the images show', () => {
		expect(readFingerprints().n8nVersion).toBe(DOCS_N8N_VERSION);
	});

	it('fingerprints are stored normalised: what changes from run to run is already replaced', () => {
		for (const [file, lines] of Object.entries(readFingerprints().shots))
			expect({ file, lines: normaliseShownText(lines.join('\n')) }).toEqual({ file, lines });
	});

	it('the normalisation keeps what the image says and replaces only ids, times, durations and ports', () => {
		expect(
			normaliseShownText(
				[
					'  Listing 64003 (row 4) failed validation  ',
					'',
					'id:lst_0123456789abcdef createdAt:2026-11-26T05:21:32.835Z',
					'notificationId ntf_4713d3f4b99feb8f',
					'Succeeded in 123ms at http://127.0.0.1:45123/webhook/4c7e9b1a-2d3f-4e5a-8b6c-7d8e9f0a1b2c/token',
					'Ticket Marketplace account 3',
				].join('\n'),
			),
		).toEqual([
			'Listing 64003 (row 4) failed validation',
			'id:lst_<id> createdAt:<time>',
			'notificationId ntf_<id>',
			'Succeeded in <duration> at http://127.0.0.1:<port>/webhook/<uuid>/token',
			'Ticket Marketplace account <n>',
		]);
	});
});
