/**
 * The house stays light: no product file (nodes/, credentials/) over 300 lines and no function over 60, so that
 * a module reads in one sitting. Data tables (a constant of rows or words) are not functions and may be longer.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

import ts from 'typescript';

const REPO = join(__dirname, '..', '..', '..');

function productFiles(dir: string): string[] {
	return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
		const path = join(dir, entry.name);
		if (entry.isDirectory()) return productFiles(path);
		return path.endsWith('.ts') && !path.endsWith('.test.ts') ? [path] : [];
	});
}

const FILES = ['nodes', 'credentials'].flatMap((folder) => productFiles(join(REPO, folder)));

/** Lines as wc -l counts them. */
const lineCount = (text: string) => text.split('\n').length - (text.endsWith('\n') ? 1 : 0);

function longFunctions(file: string): string[] {
	const text = readFileSync(file, 'utf8');
	const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
	const found: string[] = [];
	const visit = (node: ts.Node): void => {
		if (ts.isFunctionLike(node)) {
			const first = source.getLineAndCharacterOfPosition(node.getStart()).line;
			const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
			if (last - first + 1 > 60)
				found.push(`${relative(REPO, file)}:${first + 1} (${last - first + 1} lines)`);
		}
		ts.forEachChild(node, visit);
	};
	visit(source);
	return found;
}

describe('the product code stays light', () => {
	it('reads every product file', () => {
		expect(FILES.length).toBeGreaterThan(50);
	});

	it('has no file over 300 lines', () => {
		const long = FILES.map(
			(file) => [relative(REPO, file), lineCount(readFileSync(file, 'utf8'))] as const,
		)
			.filter(([, lines]) => lines > 300)
			.map(([file, lines]) => `${file} (${lines} lines)`);
		expect(long).toEqual([]);
	});

	it('has no function over 60 lines', () => {
		expect(FILES.flatMap(longFunctions)).toEqual([]);
	});
});
