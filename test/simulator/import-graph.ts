/**
 * The simulator's import graph, read with TypeScript's own pre-processor: every relative import of every file under
 * simulator/ (value and type-only imports, re-exports, dynamic imports), resolved to files.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { preProcessFile } from 'typescript';

export const SIM_ROOT = join(__dirname, '../../simulator');

/** Every .ts file under simulator/, as a path relative to it with forward slashes (`gateway/front.ts`). */
export function simulatorFiles(root = SIM_ROOT): string[] {
	const out: string[] = [];
	const walk = (dir: string) => {
		for (const name of readdirSync(dir)) {
			const full = join(dir, name);
			if (statSync(full).isDirectory()) walk(full);
			else if (name.endsWith('.ts')) out.push(relative(root, full).split('\\').join('/'));
		}
	};
	walk(root);
	return out.sort();
}

function resolveImport(root: string, from: string, spec: string): string | undefined {
	const base = resolve(root, dirname(from), spec);
	for (const candidate of [`${base}.ts`, join(base, 'index.ts'), base]) {
		if (existsSync(candidate) && statSync(candidate).isFile())
			return relative(root, candidate).split('\\').join('/');
	}
	return undefined;
}

/** file → the simulator files it imports (relative imports that leave simulator/ are kept with their `../` path). */
export function importGraph(root = SIM_ROOT): Map<string, string[]> {
	const graph = new Map<string, string[]>();
	for (const file of simulatorFiles(root)) {
		const { importedFiles } = preProcessFile(readFileSync(join(root, file), 'utf8'), true, true);
		const targets = importedFiles
			.map((i) => i.fileName)
			.filter((spec) => spec.startsWith('.'))
			.map((spec) => resolveImport(root, file, spec) ?? `unresolved:${spec}`);
		graph.set(file, [...new Set(targets)]);
	}
	return graph;
}

/** Every import circle (strongly connected component of more than one file, or a file importing itself), each sorted. */
export function importCycles(graph: Map<string, string[]>): string[][] {
	let index = 0;
	const indices = new Map<string, number>();
	const low = new Map<string, number>();
	const stack: string[] = [];
	const onStack = new Set<string>();
	const cycles: string[][] = [];
	const connect = (v: string) => {
		indices.set(v, index);
		low.set(v, index);
		index++;
		stack.push(v);
		onStack.add(v);
		for (const w of graph.get(v) ?? []) {
			if (!graph.has(w)) continue;
			if (!indices.has(w)) {
				connect(w);
				low.set(v, Math.min(low.get(v)!, low.get(w)!));
			} else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, indices.get(w)!));
		}
		if (low.get(v) === indices.get(v)) {
			const component: string[] = [];
			let w: string;
			do {
				w = stack.pop()!;
				onStack.delete(w);
				component.push(w);
			} while (w !== v);
			if (component.length > 1 || (graph.get(v) ?? []).includes(v)) cycles.push(component.sort());
		}
	};
	for (const v of graph.keys()) if (!indices.has(v)) connect(v);
	return cycles;
}

/** The layer of a file: its folder (`gateway`, `faults`, …), `faults/book` for the fault book, `state`, or `top` (index.ts, cli.ts). */
export function layerOf(file: string): string {
	if (file === 'faults/book.ts') return 'faults/book';
	if (file === 'state.ts') return 'state';
	return file.includes('/') ? file.split('/')[0] : 'top';
}

/**
 * What each layer may import, bottom up: the catalog (models, keys, prices, sizes, rules) and the media import only
 * themselves; the language model's rules the catalog and media; the state those and the fault book (plain data);
 * the faithful gateway all of these but never the fault layer; the fault layer the gateway; the top everything.
 */
export const MAY_IMPORT: Record<string, string[]> = {
	catalog: ['catalog'],
	media: ['media'],
	llm: ['llm', 'catalog', 'media'],
	'faults/book': [],
	state: ['catalog', 'media', 'faults/book'],
	gateway: ['gateway', 'catalog', 'media', 'llm', 'state'],
	faults: ['faults', 'faults/book', 'gateway', 'catalog', 'media', 'llm', 'state'],
	top: ['top', 'state', 'gateway', 'faults', 'faults/book', 'catalog', 'media', 'llm'],
};
