/**
 * The unit tests mirror the source tree, so that a module's tests are found by its path: the tests of
 * nodes/TicketMarketplace/transport/pacing.ts are test/unit/nodes/TicketMarketplace/transport/pacing.test.ts, and
 * an aspect of it gets its own file beside them (pacing.<aspect>.test.ts). Only tests of the package as a whole
 * (every message, every panel, the icons, publishing) live in test/unit/package/.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

const REPO = join(__dirname, '..', '..', '..');
const UNIT = join(REPO, 'test', 'unit');

function filesUnder(dir: string): string[] {
	return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
		entry.isDirectory() ? filesUnder(join(dir, entry.name)) : [join(dir, entry.name)],
	);
}

/** The module a test file is of: its path below test/unit, without `.test.ts` and without an aspect suffix. */
function moduleOf(testFile: string): string | undefined {
	const path = relative(UNIT, testFile).replace(/\.test\.ts$/, '');
	const parts = path.split('.');
	// Module names may hold dots themselves (TicketMarketplace.node, TicketMarketplaceApi.credentials).
	for (let keep = parts.length; keep >= 1; keep--) {
		const candidate = parts.slice(0, keep).join('.');
		if (existsSync(join(REPO, `${candidate}.ts`))) return `${candidate}.ts`;
	}
	return undefined;
}

describe('the unit tests mirror the source tree', () => {
	const files = filesUnder(UNIT).map((file) => relative(UNIT, file));

	it('holds only test files (shared test code lives in support/)', () => {
		expect(files.filter((file) => !file.endsWith('.test.ts'))).toEqual([]);
	});

	it('names, for every test outside package/, a module at the same path', () => {
		const outside = files.filter((file) => !file.startsWith('package/'));
		expect(outside.length).toBeGreaterThan(30);
		expect(outside.filter((file) => moduleOf(join(UNIT, file)) === undefined)).toEqual([]);
	});

	it('finds a module by its path, aspect and dotted names included', () => {
		expect(moduleOf(join(UNIT, 'nodes/TicketMarketplace/transport/pacing.test.ts'))).toBe(
			'nodes/TicketMarketplace/transport/pacing.ts',
		);
		expect(
			moduleOf(join(UNIT, 'credentials/TicketMarketplaceApi.credentials.renewal.test.ts')),
		).toBe('credentials/TicketMarketplaceApi.credentials.ts');
		expect(moduleOf(join(UNIT, 'nodes/TicketMarketplace/nowhere.test.ts'))).toBeUndefined();
	});
});
