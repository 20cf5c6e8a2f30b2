/**
 * The Partner API's paths have one home, nodes/shared/partnerApi/paths.ts, which the nodes and the sandbox package
 * both import: it imports nothing (the sandbox's build compiles it alone), and no sandbox source spells a path itself.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

import { PARTNER_API_PATHS } from '../../../../../nodes/shared/partnerApi/paths';

const REPO = join(__dirname, '..', '..', '..', '..', '..');
const PATHS_FILE = join(REPO, 'nodes', 'shared', 'partnerApi', 'paths.ts');
/** What a Partner API path starts with: every entry of the table does. */
const PARTNER_PATH = /\/(?:sellers|partners)\//;

/** The .ts files under `dir`, without dist/ and node_modules/. */
function tsFiles(dir: string): string[] {
	return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
		const path = join(dir, entry.name);
		if (entry.isDirectory())
			return ['dist', 'node_modules'].includes(entry.name) ? [] : tsFiles(path);
		return entry.name.endsWith('.ts') ? [path] : [];
	});
}

function parse(name: string, source: string): ts.SourceFile {
	return ts.createSourceFile(name, source, ts.ScriptTarget.Latest, true);
}

/** The text of every string and template literal (each piece of a template) that holds a Partner API path. */
function pathLiterals(file: ts.SourceFile): string[] {
	const found: string[] = [];
	const visit = (node: ts.Node): void => {
		if (
			(ts.isStringLiteral(node) ||
				ts.isNoSubstitutionTemplateLiteral(node) ||
				ts.isTemplateHead(node) ||
				ts.isTemplateMiddle(node) ||
				ts.isTemplateTail(node)) &&
			PARTNER_PATH.test(node.text)
		)
			found.push(node.text);
		ts.forEachChild(node, visit);
	};
	visit(file);
	return found;
}

describe("the Partner API's paths", () => {
	it('all match what a Partner API path looks like', () => {
		for (const path of Object.values(PARTNER_API_PATHS)) expect(`${path}/`).toMatch(PARTNER_PATH);
	});

	it('live in a module that imports nothing, so the sandbox package can compile it alone', () => {
		const file = parse(PATHS_FILE, readFileSync(PATHS_FILE, 'utf8'));
		const imports = file.statements.filter(
			(statement) =>
				ts.isImportDeclaration(statement) ||
				ts.isImportEqualsDeclaration(statement) ||
				(ts.isExportDeclaration(statement) && statement.moduleSpecifier !== undefined),
		);
		expect(imports.map((statement) => statement.getText())).toEqual([]);
		expect(readFileSync(PATHS_FILE, 'utf8')).not.toMatch(/\brequire\s*\(|\bimport\s*\(/);
	});

	it('finds a path in string and template literals, never in comments', () => {
		const source = [
			'// POST /sellers/oauth/accesstoken',
			'/** `POST /partners/webhooks/v3` */',
			"const a = '/sellers/inventory/listings/v3';",
			'const b = `/partners/x/${id}/y`;',
			'const c = `${base}/sellers/listings/pdf/v3/${id}`;',
			"const d = '/__sandbox/state';",
		].join('\n');
		expect(pathLiterals(parse('example.ts', source))).toEqual([
			'/sellers/inventory/listings/v3',
			'/partners/x/',
			'/sellers/listings/pdf/v3/',
		]);
	});

	it('are spelled nowhere in sandbox/ but in that module: the sandbox serves the paths the nodes call', () => {
		const files = tsFiles(join(REPO, 'sandbox'));
		expect(files.length).toBeGreaterThan(20);
		const spelled = files.flatMap((path) =>
			pathLiterals(parse(path, readFileSync(path, 'utf8'))).map(
				(literal) => `${relative(REPO, path)}: ${literal}`,
			),
		);
		expect(spelled).toEqual([]);
	});
});
