/**
 * The file bars of issue 45 (docs/development.md, beside the function bar): no file in `nodes/` over 400 lines unless
 * docs/development.md names it, with why, in its list of single-job parsers and rule tables (this test reads that
 * list: a file over the bar not in it fails, and so does a listed one that is no longer over); and at most 20 lines in
 * `nodes/` over 160 characters, counted in characters (code points) as `grep -c '.\{161,\}'` counts them.
 */
import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { ROOT } from '../../scripts/lib/repo';

const MAX_FILE_LINES = 400;
const LONG_LINE = 160;
const MAX_LONG_LINES = 20;

/** The sentence the list follows in docs/development.md. */
const LIST_AFTER = 'may pass 400 lines when it is named in this list with why';

/** The files docs/development.md names as allowed over the bar: `- \`nodes/…\`: why` items after LIST_AFTER. */
function namedExceptions(doc: string): Map<string, string> {
	const at = doc.indexOf(LIST_AFTER);
	if (at < 0) throw new Error(`docs/development.md no longer says "${LIST_AFTER}"`);
	const lines = doc.slice(at).split('\n').slice(1);
	const items: string[] = [];
	for (const line of lines.slice(lines.findIndex((l) => l.startsWith('- ')))) {
		if (!line.startsWith('- ')) break;
		items.push(line);
	}
	const named = new Map<string, string>();
	for (const item of items) {
		const m = /^- `(nodes\/[^`]+\.ts)`: (.+)$/.exec(item);
		if (m) named.set(m[1], m[2].trim());
		else if (item !== '- (none at this writing)')
			throw new Error(`not a "- \`file\`: why" item: ${item}`);
	}
	return named;
}

/** Lines of a text, and those longer than LONG_LINE characters (code points, as grep counts them). */
function measure(text: string): { lines: number; long: number[] } {
	const lines = text.split('\n');
	if (lines[lines.length - 1] === '') lines.pop();
	const long = lines.flatMap((l, i) => ([...l].length > LONG_LINE ? [i + 1] : []));
	return { lines: lines.length, long };
}

describe(`files in nodes/: ${MAX_FILE_LINES} lines, ${MAX_LONG_LINES} lines over ${LONG_LINE} characters`, () => {
	const files = execFileSync('git', ['ls-files', 'nodes/**/*.ts'], { cwd: ROOT, encoding: 'utf8' })
		.trim()
		.split('\n');
	const sizes = new Map(files.map((f) => [f, measure(readFileSync(`${ROOT}/${f}`, 'utf8'))]));
	const named = namedExceptions(readFileSync(`${ROOT}/docs/development.md`, 'utf8'));

	it(`no file over ${MAX_FILE_LINES} lines unless docs/development.md names it with why`, () => {
		const over = [...sizes]
			.filter(([f, s]) => s.lines > MAX_FILE_LINES && !named.has(f))
			.map(([f, s]) => `${f} (${s.lines} lines)`);
		expect(over).toEqual([]);
	});

	it('every file the list names is still over the bar (the list only shrinks)', () => {
		const stale = [...named.keys()].filter((f) => (sizes.get(f)?.lines ?? 0) <= MAX_FILE_LINES);
		expect(stale).toEqual([]);
	});

	it(`at most ${MAX_LONG_LINES} lines over ${LONG_LINE} characters`, () => {
		const long = [...sizes].flatMap(([f, s]) => s.long.map((n) => `${f}:${n}`));
		// over the bar, every long line is listed (each one to split)
		expect(long.length <= MAX_LONG_LINES ? [] : long).toEqual([]);
	});

	it('the measures: lines, code points, and the list read from its markdown', () => {
		const text = ['a'.repeat(160), 'é'.repeat(160), 'b'.repeat(161), '', 'x'].join('\n') + '\n';
		expect(measure(text)).toEqual({ lines: 5, long: [3] });
		const doc = [
			`A parser ${LIST_AFTER}:`,
			'',
			'- `nodes/a.ts`: one job, the standard field after field',
			'- `nodes/b.ts`: a rule table',
			'',
			'- `nodes/c.ts`: after the list, not in it',
		].join('\n');
		expect([...namedExceptions(doc)]).toEqual([
			['nodes/a.ts', 'one job, the standard field after field'],
			['nodes/b.ts', 'a rule table'],
		]);
		expect(() => namedExceptions(`${LIST_AFTER}:\n\n- nodes/d.ts without its why`)).toThrow();
	});
});
