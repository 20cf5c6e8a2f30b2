/**
 * `npm run lint:packed`: the community-node lint over what users install, run the way n8n's package scanner
 * (@n8n/scan-community-package) lints a published tarball: `npm pack` (of the current build), extracted, then
 * ESLint with inline configuration ignored over the compiled `**\/*.js` and the published package.json, with
 * @n8n/eslint-plugin-community-nodes' recommended rules, no-console, and n8n-nodes-base's community rules for
 * package.json. Run it after `npm run build` (npm test does).
 *
 * Then the scanner's own two legs, with its own code (`analyzePackage` from @n8n/scan-community-package, whose CLI
 * needs npm's provenance API and GitHub): the SOURCE leg over this repository's package.json, nodes/ and
 * credentials/ (what it lints in the provenance-attested source checkout), and the tarball leg over the same
 * extracted tarball. Before linting, the tarball must hold every file package.json's `n8n` attribute declares and,
 * next to each node, its codex file (`<Node>.node.json`), which tsc does not emit and gulp copies.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { n8nCommunityNodesPlugin } from '@n8n/eslint-plugin-community-nodes';
import { ESLint, type Linter } from 'eslint';
import n8nNodesBase from 'eslint-plugin-n8n-nodes-base';
import tseslint from 'typescript-eslint';

import { declaredEntryFiles, packInto, REPO_ROOT } from '../support/harness/packageUnderTest';
import { elapsed, step } from '../support/harness/progress';

function scannerConfig(): Linter.Config[] {
	return [
		n8nCommunityNodesPlugin.configs.recommended as Linter.Config,
		{ rules: { 'no-console': 'error' } },
		{ plugins: { 'n8n-nodes-base': n8nNodesBase } },
		{ files: ['package.json'], rules: { ...n8nNodesBase.configs.community.rules } },
		// package.json is linted as a TypeScript object literal, as the scanner does.
		{ files: ['**/*.json'], languageOptions: { parser: tseslint.parser as Linter.Parser } },
	];
}

/** The codex files n8n reads next to each declared node (`dist/nodes/X/X.node.js` → `dist/nodes/X/X.node.json`). */
function missingCodexFiles(packageDir: string, files: string[]): string[] {
	const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as {
		n8n?: { nodes?: string[] };
	};
	const problems: string[] = [];
	for (const node of manifest.n8n?.nodes ?? []) {
		const codex = node.replace(/\.js$/, '.json');
		if (!files.includes(codex)) {
			problems.push(`${codex} is missing`);
			continue;
		}
		const parsed = JSON.parse(readFileSync(join(packageDir, codex), 'utf8')) as { node?: unknown };
		if (typeof parsed.node !== 'string') problems.push(`${codex} has no "node" name`);
	}
	return problems;
}

/** Runs one of the scanner's legs; returns its error count as 0 or 1 (the scanner reports pass/fail, not counts). */
async function scannerLeg(label: string, dir: string, patterns: string[]): Promise<number> {
	// A dynamic import: the scanner is an ES module, this script CommonJS.
	const { analyzePackage } = await import('@n8n/scan-community-package/scanner/scanner.mjs');
	const result = await analyzePackage(dir, patterns);
	// analyzePackage passes a folder where its patterns match nothing: that would prove nothing here.
	if (result.passed && result.message) throw new Error(`scanner ${label} leg: ${result.message}`);
	if (result.details) process.stdout.write(`${result.details}\n`);
	step(
		`lint:packed: scanner ${label} leg (${patterns.join(' ')}): ${result.passed ? 'passed, 0 errors' : `FAILED: ${result.message}`}`,
	);
	return result.passed ? 0 : 1;
}

async function main(): Promise<number> {
	const workDir = mkdtempSync(join(tmpdir(), 'tm-lint-packed-'));
	try {
		const packageDir = join(workDir, 'package');
		const { tarball, files } = await packInto(packageDir, workDir);
		const missing = declaredEntryFiles(packageDir).filter((file) => !files.includes(file));
		if (missing.length)
			throw new Error(
				`the tarball lacks files package.json declares (run npm run build first): ${missing.join(', ')}`,
			);
		const codexProblems = missingCodexFiles(packageDir, files);
		if (codexProblems.length)
			throw new Error(`the tarball's codex files: ${codexProblems.join('; ')}`);
		step(
			`lint:packed: the tarball holds ${declaredEntryFiles(packageDir).join(', ')} and each node's .node.json`,
		);
		const targets = files.filter((file) => file.endsWith('.js') || file === 'package.json');
		step(
			`lint:packed: ${tarball}, ${targets.length} file(s) (${targets.filter((file) => file.endsWith('.js')).length} compiled .js + package.json)`,
		);

		const eslint = new ESLint({
			cwd: packageDir,
			allowInlineConfig: false,
			overrideConfigFile: true,
			overrideConfig: scannerConfig(),
		});
		const results = await eslint.lintFiles(targets.map((file) => join(packageDir, file)));
		const errors = results.reduce((sum, result) => sum + result.errorCount, 0);
		const warnings = results.reduce((sum, result) => sum + result.warningCount, 0);
		const report = await (await eslint.loadFormatter('stylish')).format(results);
		if (report.trim()) process.stdout.write(`${report}\n`);
		const linted = results.length;
		step(
			`lint:packed: ${linted} file(s) linted, ${errors} error(s), ${warnings} warning(s) in ${elapsed()}`,
		);
		if (linted !== targets.length)
			throw new Error(`ESLint linted ${linted} of ${targets.length} files`);

		const { SOURCE_FILE_PATTERNS } = await import(
			'@n8n/scan-community-package/scanner/scanner.mjs'
		);
		const failedLegs =
			(await scannerLeg('source', REPO_ROOT, SOURCE_FILE_PATTERNS)) +
			(await scannerLeg('tarball', packageDir, ['**/*.js', 'package.json']));
		return errors === 0 && failedLegs === 0 ? 0 : 1;
	} finally {
		rmSync(workDir, { recursive: true, force: true });
	}
}

main().then(
	(code) => process.exit(code),
	(error: unknown) => {
		process.stderr.write(
			`lint:packed: ${error instanceof Error ? error.message : String(error)}\n`,
		);
		process.exit(1);
	},
);
