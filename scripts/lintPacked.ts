/**
 * `npm run lint:packed`: the community-node lint over what users install, run the way n8n's package scanner
 * (@n8n/scan-community-package) lints a published tarball: `npm pack` (of the current build), extracted, then
 * ESLint with inline configuration ignored over the compiled `**\/*.js` and the published package.json, with
 * @n8n/eslint-plugin-community-nodes' recommended rules, no-console, and n8n-nodes-base's community rules for
 * package.json. Run it after `npm run build` (npm test does).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { n8nCommunityNodesPlugin } from '@n8n/eslint-plugin-community-nodes';
import { ESLint, type Linter } from 'eslint';
import n8nNodesBase from 'eslint-plugin-n8n-nodes-base';
import tseslint from 'typescript-eslint';

import { declaredEntryFiles, packInto } from '../support/harness/packageUnderTest';
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
		return errors === 0 ? 0 : 1;
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
