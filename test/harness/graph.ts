/** Import-graph helpers the package tests share (test/package/imports.test.ts, cycles.test.ts). */

/** every cycle's members (Tarjan's strongly connected components with more than one member, or a self-import) */
export function cycles(graph: Map<string, string[]>): string[][] {
	const index = new Map<string, number>();
	const low = new Map<string, number>();
	const stack: string[] = [];
	const onStack = new Set<string>();
	const found: string[][] = [];
	let next = 0;
	const visit = (v: string): void => {
		index.set(v, next);
		low.set(v, next++);
		stack.push(v);
		onStack.add(v);
		for (const w of graph.get(v) ?? []) {
			if (!index.has(w)) {
				visit(w);
				low.set(v, Math.min(low.get(v)!, low.get(w)!));
			} else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
		}
		if (low.get(v) === index.get(v)) {
			const comp: string[] = [];
			let w: string;
			do {
				w = stack.pop()!;
				onStack.delete(w);
				comp.push(w);
			} while (w !== v);
			if (comp.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(comp.sort());
		}
	};
	for (const v of graph.keys()) if (!index.has(v)) visit(v);
	return found;
}
