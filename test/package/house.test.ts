/**
 * The house rule (docs/development.md, issue 33): an operation lives in its node's folder; `nodes/shared/` holds only
 * what two or more nodes import (directly, or through other shared modules). A node folder never imports another's,
 * and a shared module never imports a node folder (what two nodes need lives below them, not in one of them).
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { ROOT } from '../../scripts/lib/repo';

const NODES = join(ROOT, 'nodes');
const walk = (dir: string): string[] =>
	readdirSync(dir).flatMap((f) =>
		statSync(join(dir, f)).isDirectory()
			? walk(join(dir, f))
			: f.endsWith('.ts')
				? [join(dir, f)]
				: [],
	);

/** The relative modules a file imports (static imports, re-exports, dynamic imports), as absolute .ts paths. */
function importsOf(file: string): string[] {
	const text = readFileSync(file, 'utf8');
	const specs = [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)].map((m) => m[1]);
	return specs
		.map((s) => resolve(dirname(file), s))
		.map((p) =>
			existsSync(`${p}.ts`) ? `${p}.ts` : existsSync(join(p, 'index.ts')) ? join(p, 'index.ts') : p,
		)
		.filter((p) => p.endsWith('.ts'));
}

/** The node folder a file belongs to (GenGatewayChat, LmChatGenGateway …), or 'shared'. */
const ownerOf = (file: string) => relative(NODES, file).split('/')[0];

/** For every shared module: the node folders that reach it through imports. */
export function usersOfShared(files: string[]): Map<string, Set<string>> {
	const graph = new Map(files.map((f) => [f, importsOf(f)]));
	const users = new Map<string, Set<string>>();
	for (const f of files)
		if (ownerOf(f) !== 'shared') {
			const seen = new Set<string>();
			const stack = [...(graph.get(f) ?? [])];
			while (stack.length) {
				const m = stack.pop()!;
				if (seen.has(m)) continue;
				seen.add(m);
				if (ownerOf(m) !== 'shared') continue;
				if (!users.has(m)) users.set(m, new Set());
				users.get(m)!.add(ownerOf(f));
				stack.push(...(graph.get(m) ?? []));
			}
		}
	return users;
}

describe('an operation lives in its node; shared/ is what two nodes import', () => {
	const files = walk(NODES);

	it('every module of nodes/shared/ is reached from two or more node folders', () => {
		const users = usersOfShared(files);
		const single = files
			.filter((f) => ownerOf(f) === 'shared')
			.map((f) => [relative(ROOT, f), [...(users.get(f) ?? [])]] as const)
			.filter(([, u]) => u.length < 2)
			.map(([f, u]) => `${f} (${u.length ? `only ${u[0]}` : 'no node'})`);
		expect(single).toEqual([]);
	});

	it('no node folder imports another node folder', () => {
		const crossing = files
			.filter((f) => ownerOf(f) !== 'shared')
			.flatMap((f) =>
				importsOf(f)
					.filter(
						(m) => m.startsWith(NODES) && ownerOf(m) !== 'shared' && ownerOf(m) !== ownerOf(f),
					)
					.map((m) => `${relative(ROOT, f)} → ${relative(ROOT, m)}`),
			);
		expect(crossing).toEqual([]);
	});

	it('no shared module imports a node folder', () => {
		const upward = files
			.filter((f) => ownerOf(f) === 'shared')
			.flatMap((f) =>
				importsOf(f)
					.filter((m) => m.startsWith(NODES) && ownerOf(m) !== 'shared')
					.map((m) => `${relative(ROOT, f)} → ${relative(ROOT, m)}`),
			);
		expect(upward).toEqual([]);
	});
});
