/**
 * The package version, the newest CHANGELOG entry and the newest entry of the README's "Version history" name the
 * same version, so a release cannot ship with one of them stale.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const REPO = join(__dirname, '..', '..', '..');
const read = (file: string) => readFileSync(join(REPO, file), 'utf8');

function newestChangelogVersion(changelog: string): string | undefined {
	return /^## \[(\d+\.\d+\.\d+)\]/m.exec(changelog)?.[1];
}

function newestReadmeVersion(readme: string): string | undefined {
	const section = readme.split(/^## Version history$/m)[1]?.split(/^## /m)[0] ?? '';
	return /^- \*\*(\d+\.\d+\.\d+)\*\*/m.exec(section)?.[1];
}

describe('version history', () => {
	const { version } = JSON.parse(read('package.json')) as { version: string };

	it("CHANGELOG.md's newest entry is the package version, with a link", () => {
		const changelog = read('CHANGELOG.md');
		expect(newestChangelogVersion(changelog)).toBe(version);
		expect(changelog).toMatch(new RegExp(`^\\[${version.replace(/\./g, '\\.')}\\]: https://`, 'm'));
	});

	it("the README's Version history starts with the package version", () => {
		expect(newestReadmeVersion(read('README.md'))).toBe(version);
	});

	it('the readers find a stale entry', () => {
		expect(newestChangelogVersion('# Changelog\n\n## [0.0.9] - 2026-01-01\n')).toBe('0.0.9');
		expect(
			newestReadmeVersion('## Version history\n\n- **0.0.9**: old\n\n## License\n- **9.9.9**'),
		).toBe('0.0.9');
		expect(newestReadmeVersion('## Other\n- **0.1.0**')).toBeUndefined();
	});
});
