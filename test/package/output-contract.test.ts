/** The README's item reference is the output contract's vocabulary, word for word. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FAILED_AT, ITEM_STATUSES } from '../../nodes/shared/items/vocabulary';

const readme = readFileSync(join(__dirname, '../../README.md'), 'utf8');

function readmeTable(column: string): Record<string, string> {
	const start = readme.indexOf(`| \`${column}\` | meaning |`);
	expect(start).toBeGreaterThan(0);
	const rows: Record<string, string> = {};
	for (const line of readme.slice(start).split('\n').slice(2)) {
		const m = /^\| `([a-z_]+)` \| (.*) \|$/.exec(line);
		if (!m) break;
		rows[m[1]] = m[2];
	}
	return rows;
}

test('the README lists every status word of the contract, with its meaning, and no other', () => {
	expect(readmeTable('status')).toEqual({ ...ITEM_STATUSES });
});

test('the README lists every failed_at word of the contract, with its meaning, and no other', () => {
	expect(readmeTable('failed_at')).toEqual({ ...FAILED_AT });
});
