/**
 * The heartbeat of long installs says what has been done (node_modules' size against a finished install's, its
 * packages), not only the seconds.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import {
	describeInstall,
	formatBytes,
	formatDuration,
	heartbeat,
	measureInstall,
} from '../../../../support/harness/progress';

const MB = 1024 ** 2;
const GB = 1024 ** 3;

describe('the words of progress', () => {
	it('says durations in minutes and seconds', () => {
		expect(formatDuration(45_000)).toBe('45 s');
		expect(formatDuration(403_000)).toBe('6 min 43 s');
	});

	it('says sizes as du -h does', () => {
		expect(formatBytes(812 * MB)).toBe('812 MB');
		expect(formatBytes(2_404_204 * 1024)).toBe('2.3 GB');
	});

	it("measures an install against a finished one's size, and says when only npm's finishing is left", () => {
		expect(describeInstall(undefined, 2.3 * GB)).toBe(
			'npm is resolving packages (nothing written yet)',
		);
		expect(describeInstall({ bytes: 812 * MB, packages: 640 }, 2.3 * GB)).toBe(
			'node_modules 812 MB of about 2.3 GB, 640 packages',
		);
		expect(describeInstall({ bytes: 2.25 * GB, packages: 1364 }, 2.3 * GB)).toBe(
			'node_modules 2.3 GB of about 2.3 GB, 1364 packages; the files are in place, npm is finishing (install scripts, native builds)',
		);
	});
});

describe('measureInstall', () => {
	let dir: string;
	beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'tm-progress-'))));
	afterEach(() => rmSync(dir, { recursive: true, force: true }));

	it('finds nothing before npm writes node_modules', async () => {
		expect(await measureInstall(dir)).toBeUndefined();
	});

	it('counts the packages in node_modules, scoped ones one by one, and its size on disk', async () => {
		const modules = join(dir, 'node_modules');
		for (const name of ['left-pad', '@n8n/client', '@n8n/config', '.bin'])
			mkdirSync(join(modules, name), { recursive: true });
		writeFileSync(join(modules, '.package-lock.json'), '{}');
		writeFileSync(join(modules, 'left-pad', 'index.js'), Buffer.alloc(2 * MB, 1));
		const size = await measureInstall(dir);
		expect(size?.packages).toBe(3);
		expect(size?.bytes).toBeGreaterThanOrEqual(2 * MB);
		expect(size?.bytes).toBeLessThan(3 * MB);
	});
});

describe('heartbeat', () => {
	let lines: string[];
	beforeEach(() => {
		jest.useFakeTimers();
		lines = [];
		jest.spyOn(process.stdout, 'write').mockImplementation((text) => {
			lines.push(String(text).replace(/^\[[ \d.]+s\] /, ''));
			return true;
		});
	});
	afterEach(() => {
		jest.restoreAllMocks();
		jest.useRealTimers();
	});

	it('says what the measure found; a tick that finds it still measuring says the time only', async () => {
		let finish: (text: string) => void = () => undefined;
		const stop = heartbeat(
			'n8n install',
			() => new Promise((resolve) => (finish = resolve)),
			15_000,
		);
		await jest.advanceTimersByTimeAsync(15_000);
		await jest.advanceTimersByTimeAsync(15_000);
		finish('node_modules 812 MB of about 2.3 GB, 640 packages');
		await jest.advanceTimersByTimeAsync(0);
		stop();
		await jest.advanceTimersByTimeAsync(60_000);
		expect(lines).toEqual([
			'n8n install: 30 s so far\n',
			'n8n install: 15 s so far; node_modules 812 MB of about 2.3 GB, 640 packages\n',
		]);
	});

	it('says nothing more once stopped, even when a measure ends afterwards', async () => {
		let finish: (text: string) => void = () => undefined;
		const stop = heartbeat(
			'n8n install',
			() => new Promise((resolve) => (finish = resolve)),
			15_000,
		);
		await jest.advanceTimersByTimeAsync(15_000);
		stop();
		finish('late');
		await jest.advanceTimersByTimeAsync(60_000);
		expect(lines).toEqual([]);
	});
});
