// eslint-plugin-n8n-nodes-base ships no type declarations; this is the part scripts/lintPacked.ts uses.
declare module 'eslint-plugin-n8n-nodes-base' {
	import type { ESLint, Linter } from 'eslint';

	const plugin: ESLint.Plugin & {
		configs: Record<'community' | 'credentials' | 'nodes', { rules: Linter.RulesRecord }>;
	};
	export default plugin;
}
