/**
 * The mutation check of the ten guarantees (`npm run mutate`, scripts/mutation/) stays aimed at the code: each
 * mutant's text occurs exactly once in its file (a refactor that moves it fails here, naming the mutant), its tests
 * exist, and the ten guarantees are the ones docs/development.md lists. Running the mutants is `npm run mutate`: minutes.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../../scripts/lib/repo';
import { MUTANTS, mutated } from '../../scripts/mutation/mutants';

describe('the mutation check of the ten guarantees', () => {
	it('has ten mutants with distinct names', () => {
		expect(MUTANTS).toHaveLength(10);
		expect(new Set(MUTANTS.map((m) => m.id)).size).toBe(10);
	});

	it.each(MUTANTS.map((m) => [m.id, m] as const))(
		'%s: its text occurs once in its file, the mutant changes it, its tests exist',
		(_, m) => {
			const source = readFileSync(join(ROOT, m.file), 'utf8');
			const out = mutated(source, m);
			expect(out).not.toEqual(expect.objectContaining({ error: expect.any(String) }));
			expect(out).not.toBe(source);
			for (const t of m.tests) expect(existsSync(join(ROOT, t))).toBe(true);
		},
	);

	it('docs/development.md lists each guarantee with its mutant', () => {
		const docs = readFileSync(join(ROOT, 'docs/development.md'), 'utf8');
		for (const m of MUTANTS) expect(docs).toContain(`\`${m.id}\``);
	});
});
