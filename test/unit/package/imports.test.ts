/**
 * How the repository's TypeScript imports its own modules.
 * - sandbox/ is also the folder of the sandbox's npm package: its package.json sends an import of the folder itself
 *   (`'../sandbox'`) to the compiled dist/sandbox/index.js, an older copy once built, so the repository imports
 *   `sandbox/index` instead.
 * - The modules of sandbox/, nodes/ and credentials/ import one another without a circle (type imports count too):
 *   shared types live where every importer can reach them one way.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
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

/** The .ts file a relative specifier names, if it names one. */
function resolveModule(from: string, specifier: string): string | undefined {
	const target = resolve(dirname(from), specifier);
	return [`${target}.ts`, join(target, 'index.ts'), target].find(
		(path) => path.endsWith('.ts') && existsSync(path) && statSync(path).isFile(),
	);
}

/** Module -> the modules it imports, for the given files (paths relative to the repository). */
function importGraph(files: string[]): Map<string, string[]> {
	const graph = new Map<string, string[]>();
	for (const file of files) {
		const targets = relativeSpecifiers(readFileSync(file, 'utf8')).flatMap(
			(specifier) => resolveModule(file, specifier) ?? [],
		);
		graph.set(
			relative(REPO, file),
			[...new Set(targets)].map((target) => relative(REPO, target)),
		);
	}
	return graph;
}

/** One import circle per group of modules that reach one another, as `a -> b -> a` (none when there is none). */
function circles(graph: Map<string, string[]>): string[] {
	const found: string[] = [];
	const done = new Set<string>();
	const onPath: string[] = [];
	const visit = (module: string): void => {
		const at = onPath.indexOf(module);
		if (at >= 0) {
			found.push([...onPath.slice(at), module].join(' -> '));
			return;
		}
		if (done.has(module)) return;
		onPath.push(module);
		for (const next of graph.get(module) ?? []) visit(next);
		onPath.pop();
		done.add(module);
	};
	for (const module of [...graph.keys()].sort()) visit(module);
	return found;
}

describe('import circles', () => {
	it('finds a circle, type imports included, and none in a line', () => {
		const graph = new Map([
			['a.ts', ['b.ts']],
			['b.ts', ['c.ts']],
			['c.ts', ['a.ts']],
			['d.ts', ['a.ts']],
		]);
		expect(circles(graph)).toEqual(['a.ts -> b.ts -> c.ts -> a.ts']);
		expect(circles(new Map([...graph, ['c.ts', []]]))).toEqual([]);
		expect(relativeSpecifiers("import type { A } from './a';")).toEqual(['./a']);
	});

	it('none in sandbox/, nodes/ or credentials/ (one graph: nodes/ imports credentials/)', () => {
		const graph = importGraph(
			['sandbox', 'nodes', 'credentials'].flatMap((folder) => tsFiles(join(REPO, folder))),
		);
		expect(graph.size).toBeGreaterThan(60); // the graph was read
		expect(circles(graph)).toEqual([]);
	});
});

describe('imports between the nodes', () => {
	it("the action node imports nothing from the trigger's folder or from credentials/: shared code lives in nodes/shared", () => {
		const graph = importGraph(tsFiles(join(REPO, 'nodes', 'TicketMarketplace')));
		const across = [...graph].flatMap(([module, targets]) =>
			targets
				.filter((target) => /^(nodes\/TicketMarketplaceTrigger|credentials)\//.test(target))
				.map((target) => `${module} -> ${target}`),
		);
		expect(graph.size).toBeGreaterThan(40);
		expect(across).toEqual([]);
	});
});

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
