/**
 * The package n8n loaded is the packed tarball, installed the way n8n installs community packages, with no
 * node_modules of its own: zod and n8n-workflow can only come from n8n itself.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { declaredEntryFiles, PACKAGE_NAME } from '../../support/harness/packageUnderTest';
import { useE2e } from '../../support/e2e/helpers';
import { harnessWorkflows, IMPORT_ONLY_WORKFLOW_IDS } from '../../support/e2e/workflows';

const e2e = useE2e();

describe('the packed package inside n8n', () => {
	it('holds package.json and the compiled nodes, credentials and icons, and nothing else', () => {
		const { packedFiles } = e2e().context;
		expect(packedFiles).toContain('package.json');
		for (const entry of declaredEntryFiles()) expect(packedFiles).toContain(entry);
		expect(
			packedFiles.filter((file) => file.startsWith('dist/icons/')).length,
		).toBeGreaterThanOrEqual(6);
		const unexpected = packedFiles.filter(
			(file) =>
				!file.startsWith('dist/') && !['package.json', 'README.md', 'LICENSE.md'].includes(file),
		);
		expect(unexpected).toEqual([]);
		expect(
			packedFiles.filter((file) => /node_modules|\.map$|\.d\.ts$|(?<!\.d)\.ts$/.test(file)),
		).toEqual([]);
	});

	it('is installed as a community package without node_modules, so zod and n8n-workflow resolve from n8n', () => {
		const { packageDir, n8nFolder } = e2e().context;
		expect(packageDir).toBe(join(n8nFolder, 'nodes', 'node_modules', PACKAGE_NAME));
		expect(existsSync(join(packageDir, 'node_modules'))).toBe(false);
		const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as {
			dependencies?: object;
		};
		expect(manifest.dependencies ?? {}).toEqual({});
		// Node's own resolution from the package finds neither module: only n8n's NODE_PATH can supply them.
		const distNodes = join(packageDir, 'dist', 'nodes');
		expect(() => require.resolve('zod', { paths: [distNodes] })).toThrow();
		expect(() => require.resolve('n8n-workflow', { paths: [distNodes] })).toThrow();
	});

	it('has every suite workflow imported and active (the import-only ones inactive), so both node types and both credentials were recognised', async () => {
		for (const { workflow } of harnessWorkflows()) {
			const stored = await e2e().n8n.request<{ active: boolean; nodes: Array<{ type: string }> }>(
				'GET',
				`/workflows/${workflow.id}`,
			);
			const active = !IMPORT_ONLY_WORKFLOW_IDS.includes(workflow.id);
			expect({ id: workflow.id, active: stored.active }).toEqual({ id: workflow.id, active });
		}
		const log = readFileSync(e2e().context.n8nLogFile, 'utf8');
		expect(log).not.toMatch(
			/Unrecognized node type|Unrecognized credential type|Cannot find module/,
		);
	});
});
