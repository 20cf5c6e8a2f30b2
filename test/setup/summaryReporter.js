// Appends each jest run's totals to the file named by TM_TEST_SUMMARY_FILE, so that .ci/run can close with one
// plain "N passed, N failed" line over the unit, integration and e2e runs that `npm test` chains.
const { appendFileSync } = require('node:fs');

class SummaryReporter {
	onRunComplete(_contexts, results) {
		const file = process.env.TM_TEST_SUMMARY_FILE;
		if (!file) return;
		const totals = {
			passed: results.numPassedTests,
			failed: results.numFailedTests,
			skipped: results.numPendingTests,
		};
		appendFileSync(file, `${JSON.stringify(totals)}\n`);
	}
}

module.exports = SummaryReporter;
