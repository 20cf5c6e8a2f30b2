// Tooling code (sandbox, tests, benchmarks, scripts) runs in Node, not inside n8n: it may use timers, process,
// console and any devDependency, but it keeps TypeScript's recommended rules.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
	// sandbox/dist: the sandbox package's build (npm run build:sandbox).
	{ ignores: ['dist', 'node_modules', 'sandbox/dist'] },
	{
		files: ['**/*.{ts,mjs,js}'],
		extends: [js.configs.recommended, tseslint.configs.recommended],
		languageOptions: { globals: { ...globals.node, ...globals.jest } },
		rules: {
			'@typescript-eslint/no-unused-vars': [
				'error',
				{ argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
			],
		},
	},
	{
		// Plain .js files here are CommonJS modules that jest or gulp require().
		files: ['**/*.js'],
		languageOptions: { sourceType: 'commonjs' },
		rules: { '@typescript-eslint/no-require-imports': 'off' },
	},
);
