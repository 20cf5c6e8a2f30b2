/**
 * How much of the product one sheet row runs: V8's precise coverage of one row through Listing → Create against the
 * sandbox (a fresh token, memory of listings sent on), counting the files of nodes/ and credentials/ whose functions
 * ran. Modules are loaded before counting starts, so a file counts only if code in it ran for the row.
 *
 *   npx tsx bench/oneRow.ts [--list]
 */
import { Session } from 'node:inspector/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(__dirname, '..');
const PRODUCT = ['nodes', 'credentials'].map((folder) => path.join(ROOT, folder) + path.sep);

interface ScriptCoverage {
	url: string;
	functions: Array<{ functionName: string; ranges: Array<{ count: number }> }>;
}

function productFile(url: string): string | undefined {
	const file = url.startsWith('file:') ? fileURLToPath(url) : url;
	return PRODUCT.some((folder) => file.startsWith(folder)) && !file.includes('node_modules')
		? path.relative(ROOT, file)
		: undefined;
}

/** Product files in which some function ran since the last take (each take resets V8's counters). */
async function filesRun(session: Session): Promise<string[]> {
	const { result } = (await session.post('Profiler.takePreciseCoverage')) as {
		result: ScriptCoverage[];
	};
	const files = new Set<string>();
	for (const script of result) {
		const file = productFile(script.url);
		if (file && script.functions.some((fn) => (fn.ranges[0]?.count ?? 0) > 0)) files.add(file);
	}
	return [...files].sort();
}

async function main(): Promise<void> {
	const session = new Session();
	session.connect();
	await session.post('Profiler.enable');
	await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: true });

	// Loaded only now, so that the coverage sees their functions from the start.
	const { execute } = await import('../nodes/TicketMarketplace/actions/listing/create.operation');
	const { SANDBOX_DEFAULTS, startSandbox } = await import('../sandbox/index');
	const { fakeRun, GROUPED_SHEET_PARAMETERS, sheetRows } = await import(
		'../support/fakeN8n/actionContext'
	);

	const sandbox = await startSandbox();
	try {
		const items = sheetRows([
			{
				event: '5000',
				listing: '101',
				price: '25.50',
				currency: 'EUR',
				ticket: '101-A-1',
				row: 'A',
				seat: '1',
				ga: 'false',
			},
		]);
		const run = fakeRun({
			parameters: GROUPED_SHEET_PARAMETERS,
			items,
			apiCredentials: {
				baseUrl: `${sandbox.url}/`,
				consumerKey: SANDBOX_DEFAULTS.consumerKey,
				consumerSecret: SANDBOX_DEFAULTS.consumerSecret,
				email: SANDBOX_DEFAULTS.marketplaceAccount.email,
				password: SANDBOX_DEFAULTS.marketplaceAccount.password,
			},
		});
		await filesRun(session); // resets the counters: module loading does not count
		const output = await execute.call(run.context, items);
		const files = await filesRun(session);

		const created = sandbox.state().listings.length;
		if (created !== 1 || output.length !== 1 || run.tokenRequests() !== 1) {
			throw new Error(
				`the row did not run as expected: ${created} listing(s) created, ${output.length} item(s) out, ` +
					`${run.tokenRequests()} login(s)`,
			);
		}
		if (process.argv.includes('--list')) for (const file of files) console.log(`  ${file}`);
		console.log(`product files run for one row: ${files.length}`);
	} finally {
		await sandbox.stop();
		session.disconnect();
	}
}

main().catch((error: unknown) => {
	console.error(error instanceof Error ? error.message : error);
	process.exitCode = 1;
});
