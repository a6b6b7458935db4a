/**
 * The tarball holds what n8n loads and nothing else: the compiled nodes and credential (and the shared modules they
 * require), their codex files, the icons, and package.json, README, LICENSE and CHANGELOG. Listed with
 * `npm pack --dry-run --json` from the built package (scripts/lib/package.ts): a declaration file, a source map, a
 * test helper or any other file fails here.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../../scripts/lib/repo';
import { disallowed, packedFiles, reachableModules, readFromRoot } from '../../scripts/lib/package';

jest.setTimeout(120_000);

const pkg = JSON.parse(readFromRoot('package.json')) as {
	n8n: { nodes: string[]; credentials: string[] };
	main?: string;
	types?: string;
};
let files: string[];
beforeAll(() => {
	files = packedFiles();
	console.log(
		`npm pack would pack ${files.length} files: ${files.filter((f) => !f.startsWith('dist/')).join(', ')}, and under dist/ ${files.filter((f) => f.endsWith('.js')).length} .js, ${files.filter((f) => f.endsWith('.node.json')).length} codex, ${files.filter((f) => f.endsWith('.svg')).length} icons`,
	);
});

it('holds nothing but what n8n loads and the papers (no declaration files, source maps, test helpers)', () => {
	expect(disallowed(files)).toEqual([]);
});

it('holds package.json, README.md, LICENSE and CHANGELOG.md', () => {
	for (const f of ['package.json', 'README.md', 'LICENSE', 'CHANGELOG.md'])
		expect(files).toContain(f);
});

it('holds every registered node and the credential, each node with its codex, and every icon', () => {
	for (const f of [...pkg.n8n.nodes, ...pkg.n8n.credentials]) expect(files).toContain(f);
	for (const f of pkg.n8n.nodes) expect(files).toContain(f.replace(/\.js$/, '.json'));
	const icons = readdirSync(join(ROOT, 'icons')).filter((f) => f.endsWith('.svg'));
	expect(icons.length).toBeGreaterThan(0);
	for (const i of icons) expect(files).toContain(`dist/icons/${i}`);
});

it('every packed module is required from a registered node or the credential (nothing dead, no test-only module)', () => {
	const modules = files.filter((f) => f.endsWith('.js'));
	const reached = reachableModules(files, readFromRoot);
	expect(modules.filter((f) => !reached.has(f))).toEqual([]);
});

it('declares no entry point or types that it does not ship (n8n reads the "n8n" section, not "main")', () => {
	expect(pkg.main).toBeUndefined();
	expect(pkg.types).toBeUndefined();
});
