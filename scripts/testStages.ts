/**
 * The stages `npm test` runs (scripts/test.ts), each an npm script of package.json, in order: the fast checks first,
 * the real-n8n suites last; the demo runs where the e2e suite left n8n installed.
 */
export const TEST_STAGES = [
	'lint',
	'typecheck',
	'build',
	'build:sandbox',
	'lint:packed',
	'test:unit',
	'test:integration',
	'test:e2e',
	'demo',
	'test:e2e:current',
	'test:queue',
];
