/**
 * The e2e files share one n8n, so their order matters: the scenarios first (they assert the fresh instance's first
 * token request), then the hostile-input fuzz and the outage (which restarts n8n), and the secret scan last, over
 * everything the others left behind. Unit and integration files keep jest's own order.
 */
const Sequencer = require('@jest/test-sequencer').default;

const E2E_ORDER = [
	'package.test.ts',
	'credentialTest.test.ts',
	'scenarios.test.ts',
	'triggerFuzz.test.ts',
	'outage.test.ts',
];
const E2E_LAST = 'secretScan.test.ts';

function rank(path) {
	const name = path.split('/').pop();
	if (!path.includes('/test/e2e/')) return -1;
	if (name === E2E_LAST) return 1000;
	const index = E2E_ORDER.indexOf(name);
	return index === -1 ? 500 : index;
}

class E2eOrderSequencer extends Sequencer {
	sort(tests) {
		const sorted = super.sort(tests);
		if (!sorted.some((test) => rank(test.path) >= 0)) return sorted;
		return [...sorted].sort((a, b) => rank(a.path) - rank(b.path));
	}
}

module.exports = E2eOrderSequencer;
