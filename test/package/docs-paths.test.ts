/**
 * The docs name files and folders of this repository (`nodes/shared/runners/paid.ts`, `test/property/…`): every one
 * of them exists, so a move in the house cannot leave the docs pointing at a file that is gone (issue 33).
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../../scripts/lib/repo';

const DOCS = [
	'README.md',
	'CHANGELOG.md',
	'simulator/README.md',
	...readdirSync(join(ROOT, 'docs'))
		.filter((f) => f.endsWith('.md'))
		.map((f) => `docs/${f}`),
];
// a path in the docs: a top-level folder of ours, then path segments; a file (with its extension) or a folder (ending in /)
const PATH =
	/(?<![\w./-])((?:nodes|test|scripts|bench|simulator|examples|credentials)\/[A-Za-z0-9_.\-/]*[A-Za-z0-9_/])(?![\w*{<-])/g;

/** The repository paths a doc names (glob patterns and placeholders left out). */
export function pathsIn(text: string): string[] {
	return [...text.matchAll(PATH)]
		.map((m) => m[1].replace(/\/$/, ''))
		.filter(
			(p) => !/[<>*{}]/.test(p) && (/\.(ts|js|json|md|sh|sql|mjs)$/.test(p) || !p.includes('.')),
		);
}

describe('the docs name only files that exist', () => {
	it('finds paths the way a reader sees them (a readable example)', () => {
		expect(
			pathsIn(
				'see `nodes/shared/runners/paid.ts` and test/property/ (`dist/nodes/x.js` is not ours)',
			),
		).toEqual(['nodes/shared/runners/paid.ts', 'test/property']);
	});

	it.each(DOCS)('%s', (doc) => {
		const missing = [...new Set(pathsIn(readFileSync(join(ROOT, doc), 'utf8')))].filter(
			(p) => !existsSync(join(ROOT, p)),
		);
		expect(missing).toEqual([]);
	});
});
