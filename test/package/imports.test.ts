/**
 * The code's import graph: no module imports itself through others (a cycle makes load order decide what a module
 * sees), and the scripts and benchmarks do not import the tests' folders for the n8n driver (it lives in
 * scripts/lib/n8n/). Type-only imports are erased by the compiler and do not count.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { cycles } from '../harness/graph';

const ROOT = resolve(__dirname, '../..');
const DIRS = ['nodes', 'credentials', 'simulator', 'scripts', 'bench', 'test'];

function tsFiles(dir: string): string[] {
	return readdirSync(dir).flatMap((f) => {
		const p = join(dir, f);
		if (statSync(p).isDirectory()) return f === 'node_modules' ? [] : tsFiles(p);
		return p.endsWith('.ts') ? [p] : [];
	});
}

/** the files a module loads at run time: relative `import … from`, `export … from` and `require()` */
export function runtimeImports(file: string): string[] {
	const text = readFileSync(file, 'utf8');
	const specs: string[] = [];
	for (const m of text.matchAll(
		/^\s*(import|export)\s+(type\s+)?(?:[^'";]*?\s+from\s+)?['"]([^'"]+)['"]/gm,
	))
		if (!m[2]) specs.push(m[3]);
	for (const m of text.matchAll(/\brequire\(\s*['"]([^'"]+)['"]\s*\)/g)) specs.push(m[1]);
	return specs
		.filter((s) => s.startsWith('.'))
		.map((s) =>
			[`${resolve(dirname(file), s)}.ts`, join(resolve(dirname(file), s), 'index.ts')].find((c) =>
				existsSync(c),
			),
		)
		.filter((f): f is string => !!f);
}

describe('import graph', () => {
	const files = DIRS.flatMap((d) => tsFiles(join(ROOT, d)));
	const graph = new Map(files.map((f) => [f, runtimeImports(f)]));
	const rel = (f: string) => relative(ROOT, f);

	it('the checker sees a cycle when there is one (the demo ⇄ scripts/pipeline/run.ts, as it was)', () => {
		const demo = join(ROOT, 'scripts/demo/run.ts');
		const run = join(ROOT, 'scripts/pipeline/run.ts');
		const withOld = new Map(graph);
		withOld.set(run, [...(graph.get(run) ?? []), demo]);
		expect(cycles(withOld).map((c) => c.map(rel))).toContainEqual(
			expect.arrayContaining(['scripts/demo/run.ts', 'scripts/pipeline/run.ts']),
		);
		expect(graph.get(demo)).toContain(run);
	});

	it('has no cycle', () => {
		expect(files.length).toBeGreaterThan(100);
		expect(cycles(graph).map((c) => c.map(rel))).toEqual([]);
	});

	it('scripts/ and bench/ take the n8n driver from scripts/lib, not from test/', () => {
		const driver = join(ROOT, 'scripts/lib/n8n');
		const users = files.filter(
			(f) =>
				/^(scripts|bench)\//.test(rel(f)) && graph.get(f)!.some((d) => d.startsWith(`${driver}/`)),
		);
		expect(users.length).toBeGreaterThan(10);
		const intoE2e = files
			.filter((f) => /^(scripts|bench)\//.test(rel(f)))
			.flatMap((f) =>
				graph
					.get(f)!
					.filter((d) => rel(d).startsWith('test/e2e/'))
					.map((d) => `${rel(f)} → ${rel(d)}`),
			);
		expect(intoE2e).toEqual([]);
	});
});
