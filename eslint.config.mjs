// n8n's community-node lint config (@n8n/node-cli's `config`, the one `n8n-node new` writes), extended:
// - tooling folders that never ship with the nodes (sandbox, support, test, bench, scripts, examples, docs) are
//   ignored here: they run in Node, not inside n8n, so timers, process and console are fine there;
//   eslint.tooling.config.mjs lints them (npm run lint).
// - inline disable comments are refused: n8n's verification ignores them, so they may not hide anything here.
// Because of these two additions package.json has `n8n.strict: false`: strict mode accepts only the unmodified
// template, and the template alone lints the tooling folders with the community-node rules (231 errors).
import { config } from '@n8n/node-cli/eslint';
import { globalIgnores } from 'eslint/config';

export default [
	globalIgnores([
		'dist',
		'node_modules',
		'sandbox',
		'support',
		'test',
		'bench',
		'scripts',
		'examples',
		'docs',
	]),
	...config,
	{
		// n8n's config already sets no-console to error for **/*.ts; kept here so it stays on if that changes.
		files: ['**/*.ts'],
		rules: { 'no-console': 'error' },
	},
	{
		// Inline disable comments do not count in n8n's verification, so they may not hide anything here either.
		linterOptions: { noInlineConfig: true, reportUnusedDisableDirectives: 'error' },
	},
];
