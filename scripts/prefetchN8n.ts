/**
 * `tsx scripts/prefetchN8n.ts [version...]`: installs the real n8n versions the end-to-end suites use into the cache
 * outside the repository (and the Node each needs), one after the other, ahead of time. CI starts it in the
 * background while lint and the unit tests run; the e2e step then reuses the install, or waits for the one under way.
 */
import {
	CURRENT_N8N_VERSION,
	DEFAULT_N8N_VERSION,
	ensureN8nInstalled,
} from '../support/harness/n8nInstall';

async function main(versions: string[]): Promise<void> {
	for (const version of versions) {
		const started = Date.now();
		await ensureN8nInstalled(version);
		console.log(`prefetch: n8n ${version} ready in ${Math.round((Date.now() - started) / 1000)} s`);
	}
}

main(
	process.argv.slice(2).length ? process.argv.slice(2) : [DEFAULT_N8N_VERSION, CURRENT_N8N_VERSION],
).catch((error: unknown) => {
	console.error(`prefetch failed: ${error instanceof Error ? error.message : String(error)}`);
	process.exit(1);
});
