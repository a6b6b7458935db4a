/**
 * One exit for everything the package hands n8n (issue 31): every node's `execute` runs through `runNode`, the Chat
 * Model's `supplyData` through `runSupply`, every list search through the exit; hints, chat chunks and stored binary
 * data are reached only through `exitOf(ctx)` (the lint rule in eslint.config.mjs refuses n8n's own helpers elsewhere).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import * as methods from '../../nodes/shared/methods';

const ROOT = join(__dirname, '../..');
const nodeFiles = readdirSync(join(ROOT, 'nodes'))
	.filter((d) => d !== 'shared')
	.map((d) => join(ROOT, 'nodes', d, `${d}.node.ts`));

test.each(nodeFiles.map((f) => [f.slice(ROOT.length + 1), f]))(
	'%s leaves through the exit',
	(_, file) => {
		const src = readFileSync(file, 'utf8');
		const execute = /async execute\(this: IExecuteFunctions\)[^{]*\{([\s\S]*?)\n\t\}/.exec(
			src,
		)?.[1];
		const supply =
			/async supplyData\(this: ISupplyDataFunctions[^)]*\)[^{]*\{([\s\S]*?)\n\t\}/.exec(src)?.[1];
		expect(execute ?? supply).toBeDefined();
		if (execute) expect(execute.trim()).toMatch(/^return runNode\(\s*this,/);
		if (supply) expect(supply.trim()).toMatch(/^return runSupply\(this, /);
	},
);

test('every list search runs through the exit', () => {
	for (const set of Object.values(methods)) {
		for (const fn of Object.values(
			(set as { listSearch?: Record<string, Function> }).listSearch ?? {},
		))
			expect(fn.toString()).toMatch(/runSupply/);
	}
});

/** ESLint's findings for `code` as if it were the file `path` (the project's own config, in a child process). */
function lint(code: string, path: string): Array<{ ruleId: string | null; message: string }> {
	const r = spawnSync(
		process.execPath,
		[
			join(ROOT, 'node_modules/eslint/bin/eslint.js'),
			'--stdin',
			'--stdin-filename',
			path,
			'--format',
			'json',
		],
		{ cwd: ROOT, input: code, encoding: 'utf8' },
	);
	return (
		JSON.parse(r.stdout) as Array<{ messages: Array<{ ruleId: string | null; message: string }> }>
	)[0].messages;
}

test("lint refuses n8n's hint, chunk and binary helpers outside nodes/shared/exit", () => {
	const code =
		"export function f(ctx: any) { ctx.addExecutionHints({ message: 'x' }); ctx.sendChunk('item', 0, 'x'); return ctx.helpers.prepareBinaryData(Buffer.from('x')); }\n";
	expect(
		lint(code, 'nodes/shared/text/probe.ts').filter((m) => m.ruleId === 'no-restricted-syntax'),
	).toHaveLength(3);
	expect(
		lint(code, 'nodes/shared/exit/probe.ts').filter((m) => m.ruleId === 'no-restricted-syntax'),
	).toHaveLength(0);
}, 60_000);
