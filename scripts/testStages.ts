/**
 * The stages `npm test` runs (scripts/test.ts), each an npm script of package.json, in order: the fast checks first,
 * the real-n8n suites last (n8n 2.8.4 and 2.41.1 at once); the demo runs where the e2e suite left n8n installed.
 */
export const TEST_STAGES = [
	'lint',
	'typecheck',
	'build',
	'build:sandbox',
	'lint:packed',
	'test:unit',
	'test:integration',
	'test:e2e:both',
	'demo',
	'test:queue',
];
