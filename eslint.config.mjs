// n8n's community-node rules, configured as @n8n/node-cli 0.48 configures them (its dist/configs/eslint.js),
// for package.json, nodes/ and credentials/. The import-x part of that config is left out: its resolver needs
// platform binaries that the registry here does not carry, and it adds no community-node rule.
import js from '@eslint/js';
import { n8nCommunityNodesPlugin } from '@n8n/eslint-plugin-community-nodes';
import { globalIgnores } from 'eslint/config';
import n8nNodesBase from 'eslint-plugin-n8n-nodes-base';
import tseslint from 'typescript-eslint';

const communityNodesRecommended = n8nCommunityNodesPlugin.configs.recommended;

export default tseslint.config(
	globalIgnores(['dist', 'node_modules', 'sandbox', 'test', 'bench', 'scripts', 'examples']),
	{
		files: ['**/*.ts'],
		extends: [js.configs.recommended, tseslint.configs.recommended, communityNodesRecommended],
		rules: {
			'prefer-spread': 'off',
			'no-console': 'error',
		},
	},
	{
		plugins: { 'n8n-nodes-base': n8nNodesBase },
	},
	{
		files: ['package.json'],
		extends: [communityNodesRecommended],
		rules: {
			...n8nNodesBase.configs.community.rules,
		},
		languageOptions: {
			parser: tseslint.parser,
			parserOptions: { extraFileExtensions: ['.json'] },
		},
	},
	{
		files: ['./credentials/**/*.ts'],
		rules: {
			...n8nNodesBase.configs.credentials.rules,
			'n8n-nodes-base/cred-class-field-documentation-url-miscased': 'off',
			'n8n-nodes-base/cred-class-field-type-options-password-missing': 'off',
		},
	},
	{
		files: ['./nodes/**/*.ts'],
		rules: {
			...n8nNodesBase.configs.nodes.rules,
			'n8n-nodes-base/node-class-description-inputs-wrong-regular-node': 'off',
			'n8n-nodes-base/node-class-description-outputs-wrong': 'off',
			'n8n-nodes-base/node-param-type-options-max-value-present': 'off',
		},
	},
	{
		// Inline disable comments do not count in n8n's verification, so they may not hide anything here either.
		linterOptions: { noInlineConfig: true, reportUnusedDisableDirectives: 'error' },
	},
);
