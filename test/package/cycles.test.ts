/**
 * No import circle in nodes/, simulator/ or scripts/ (issue 45): the graph is every module specifier the TypeScript
 * compiler finds in a file (imports, type-only imports too, re-exports, require() and import()), resolved the way
 * tsconfig.json resolves them. A circle of type-only imports costs nothing at run time, but it is still two modules
 * that each need the other to be read; test/package/imports.test.ts holds the run-time graph of every folder.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { ROOT } from '../../scripts/lib/repo';
import { cycles } from '../harness/graph';

const DIRS = ['nodes', 'simulator', 'scripts'];

function tsFiles(dir: string): string[] {
	return readdirSync(dir).flatMap((f) => {
		const p = join(dir, f);
		if (statSync(p).isDirectory()) return f === 'node_modules' ? [] : tsFiles(p);
		return p.endsWith('.ts') && !p.endsWith('.d.ts') ? [p] : [];
	});
}

const config = ts.getParsedCommandLineOfConfigFile(
	join(ROOT, 'tsconfig.json'),
	{},
	{ ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined },
)!;

/** The repository's own .ts files that `file` names, by the compiler's reading of its specifiers. */
export function importsOf(file: string): string[] {
	const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
	return importedFiles
		.map(
			(f) =>
				ts.resolveModuleName(f.fileName, file, config.options, ts.sys).resolvedModule
					?.resolvedFileName,
		)
		.filter((f): f is string => !!f && f.endsWith('.ts') && !f.includes('/node_modules/'));
}

describe('import circles (the TypeScript compiler reads the imports)', () => {
	const files = DIRS.flatMap((d) => tsFiles(join(ROOT, d)));
	const graph = new Map(files.map((f) => [f, importsOf(f)]));
	const rel = (f: string) => relative(ROOT, f);

	it('reads every kind of import: type-only, re-export, require() and import()', () => {
		const imageTask = join(ROOT, 'nodes/GenGatewayDownloadResult/actions/imageTask.ts');
		expect(graph.get(imageTask)).toContain(
			join(ROOT, 'nodes/GenGatewayDownloadResult/actions/videoTask.ts'),
		);
		const withRequire = ts.preProcessFile(
			"import type { A } from './a';\nexport * from './b';\nconst c = require('./c');\nvoid import('./d');",
			true,
			true,
		);
		expect(withRequire.importedFiles.map((f) => f.fileName)).toEqual(['./a', './b', './c', './d']);
	});

	it('sees a circle when there is one (Download Result before issue 45: videoTask -> imageTask)', () => {
		const dir = join(ROOT, 'nodes/GenGatewayDownloadResult/actions');
		const [image, video] = [join(dir, 'imageTask.ts'), join(dir, 'videoTask.ts')];
		const withOld = new Map(graph);
		withOld.set(video, [...(graph.get(video) ?? []), image]);
		expect(cycles(withOld).map((c) => c.map(rel))).toContainEqual([rel(image), rel(video)]);
	});

	it('finds none in nodes/, simulator/ and scripts/', () => {
		expect(files.length).toBeGreaterThan(150);
		expect(cycles(graph).map((c) => c.map(rel))).toEqual([]);
	});
});
