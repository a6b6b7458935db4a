/**
 * knip's entries are the real ones (issue 45): outside the nodes, the credential and the test files, every entry is
 * one file that exists and that something starts, never a folder's every file (with `scripts/**` as an entry, a
 * module nothing imports any more, such as the old scripts/lib/n8n/index.ts, passed as used).
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../../scripts/lib/repo';

const knip = JSON.parse(readFileSync(join(ROOT, 'knip.json'), 'utf8')) as { entry: string[] };
/** the patterns that stand for many files, each one a kind n8n, jest or the package.json section loads */
const PATTERNS = [
	'nodes/*/*.node.ts',
	'credentials/*.credentials.ts',
	'test/**/*.test.ts',
	'test/setup-*.ts',
];

/** package.json's scripts and the shell scripts: where the commands are that start a TypeScript file */
const commands = [
	readFileSync(join(ROOT, 'package.json'), 'utf8'),
	...readdirSync(join(ROOT, 'scripts'))
		.filter((f) => f.endsWith('.sh'))
		.map((f) => readFileSync(join(ROOT, 'scripts', f), 'utf8')),
].join('\n');

describe("knip's entries", () => {
	const files = knip.entry.filter((e) => !PATTERNS.includes(e));

	it('are the known patterns and single files, no other wildcard', () => {
		expect(files.filter((e) => /[*?{[]/.test(e))).toEqual([]);
		expect(knip.entry).toEqual(expect.arrayContaining(PATTERNS));
	});

	it('name files that exist', () => {
		expect(files.filter((f) => !existsSync(join(ROOT, f)))).toEqual([]);
	});

	it('name scripts and benchmarks that a command, a usage line or a test starts', () => {
		const started = (f: string) => {
			const own = readFileSync(join(ROOT, f), 'utf8');
			return (
				commands.includes(f) || own.includes(`npx tsx ${f}`) || /require\.main === module/.test(own)
			);
		};
		const scripts = files.filter((f) => /^(scripts|bench)\//.test(f));
		expect(scripts.length).toBeGreaterThan(5);
		expect(scripts.filter((f) => !started(f))).toEqual([]);
	});
});
