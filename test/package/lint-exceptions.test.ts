/**
 * docs/lint-exceptions.md says which of n8n's lint rules are switched off and where; eslint.config.mjs switches them
 * off. The two agree: every rule the config turns off is a row of the doc's tables with the same files, and every row
 * is a rule the config turns off (issue 33: tools that keep it so).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../../scripts/lib/repo';

const P = '@n8n/community-nodes';

/** rule → the `files` globs of the config blocks that turn it off */
export function offInConfig(config: string): Map<string, string[]> {
	const out = new Map<string, string[]>();
	// a config block: files: [...] … rules: { … [`${P}/rule`]: 'off' … }
	for (const block of config.split(/\n\t\{\n/).slice(1)) {
		const files = [...(block.match(/files:\s*\[([^\]]*)\]/)?.[1] ?? '').matchAll(/'([^']+)'/g)].map(
			(m) => m[1],
		);
		for (const m of block.matchAll(/\[`\$\{P\}\/([a-z-]+)`\]:\s*'off'/g))
			out.set(`${P}/${m[1]}`, [...(out.get(`${P}/${m[1]}`) ?? []), ...files]);
	}
	return out;
}

/** rule → the "Off for" cell of the doc's switch-off tables (every section but the scanner's findings) */
export function offInDocs(doc: string): Map<string, string> {
	const head = doc
		.split('\n## ')
		.filter((section) => !section.startsWith("n8n's scanner"))
		.join('\n');
	const out = new Map<string, string>();
	for (const m of head.matchAll(/^\| `(@n8n\/community-nodes\/[a-z-]+)` \| ([^|]+) \|/gm))
		out.set(m[1], m[2].trim());
	return out;
}

describe('docs/lint-exceptions.md agrees with eslint.config.mjs', () => {
	const config = offInConfig(readFileSync(join(ROOT, 'eslint.config.mjs'), 'utf8'));
	const docs = offInDocs(readFileSync(join(ROOT, 'docs/lint-exceptions.md'), 'utf8'));

	it('reads the config (a readable example)', () => {
		expect(config.get(`${P}/missing-paired-item`)).toEqual(['nodes/**/*.ts']);
	});

	it('every rule switched off in the config is documented, with the files it is off for', () => {
		for (const [rule, files] of config) {
			expect([rule, docs.has(rule)]).toEqual([rule, true]);
			for (const f of files)
				expect([rule, docs.get(rule)]).toEqual([
					rule,
					expect.stringContaining(
						f.replace(/\*\*\/\*\.ts$/, '**').replace(/\/\*\*\/\*\.ts$/, '/**'),
					),
				]);
		}
	});

	it('every documented switch-off is one the config makes', () => {
		expect([...docs.keys()].filter((r) => !config.has(r))).toEqual([]);
	});
});
