/**
 * How the repository's TypeScript imports its own modules. sandbox/ is also the folder of the sandbox's npm package:
 * its package.json sends an import of the folder itself (`'../sandbox'`) to the compiled dist/index.js, an older copy
 * once built, so the repository imports `sandbox/index` instead.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const REPO = join(__dirname, '..', '..', '..');
const FOLDERS = ['sandbox', 'nodes', 'credentials', 'test', 'support', 'bench', 'scripts'];

/** The .ts files under `dir`, without dist/ and node_modules/. */
function tsFiles(dir: string): string[] {
	return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
		const path = join(dir, entry.name);
		if (entry.isDirectory())
			return ['dist', 'node_modules'].includes(entry.name) ? [] : tsFiles(path);
		return entry.name.endsWith('.ts') ? [path] : [];
	});
}

/** The relative module specifiers of a source text: `from '…'`, `import('…')`, `require('…')`, `jest.mock('…')`. */
function relativeSpecifiers(source: string): string[] {
	const pattern =
		/(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|\bmock\s*\(\s*|^import\s+)(['"])(\.[^'"]*)\1/gm;
	return [...source.matchAll(pattern)].map((match) => match[2]);
}

const SANDBOX = join(REPO, 'sandbox');

/** `file:specifier` for every import of the sandbox folder itself. */
function sandboxFolderImports(files: string[]): string[] {
	return files.flatMap((file) =>
		relativeSpecifiers(readFileSync(file, 'utf8'))
			.filter((specifier) => resolve(dirname(file), specifier) === SANDBOX)
			.map((specifier) => `${relative(REPO, file)}:${specifier}`),
	);
}

describe('imports of the sandbox', () => {
	it('reads every kind of relative import, and only those', () => {
		const source = [
			"import { a } from '../sandbox';",
			"import type { B } from './b';",
			"} from '../../sandbox/index';",
			"import './side-effect';",
			"const c = require('../c');",
			"jest.mock('./d');",
			"const e = await import('./e');",
			"import { z } from 'zod';",
		].join('\n');
		expect(relativeSpecifiers(source)).toEqual([
			'../sandbox',
			'./b',
			'../../sandbox/index',
			'./side-effect',
			'../c',
			'./d',
			'./e',
		]);
	});

	it('go to sandbox/index, never to the sandbox folder (its package.json points at dist/)', () => {
		const files = FOLDERS.flatMap((folder) => tsFiles(join(REPO, folder)));
		expect(files.length).toBeGreaterThan(100);
		expect(sandboxFolderImports(files)).toEqual([]);
	});
});
