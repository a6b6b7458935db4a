/**
 * The test layout rule (docs/development.md, *Test layout*; issue 33): every folder of `test/` is either a kind folder
 * (tests that cross many modules, named by what they check) or mirrors one source folder by its name, and no two test
 * folders mirror the same source folder.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../../scripts/lib/repo';

/** Kind folders: tests and helpers that cross many modules. */
const KINDS = ['e2e', 'property', 'spec', 'reliability', 'fuzz', 'package', 'harness', 'fixtures'];
/** Top-level source folders a test folder may mirror by their own name. */
const TOP = ['credentials', 'simulator', 'scripts'];

const folders = (dir: string) =>
	readdirSync(join(ROOT, dir)).filter((f) => statSync(join(ROOT, dir, f)).isDirectory());

/** A node folder's test folder: its display name without "GenGateway", in kebab case ("GenGateway Chat Model" → chat-model). */
function nodeTestFolder(displayName: string): string {
	return displayName
		.replace(/^GenGateway /, '')
		.toLowerCase()
		.replace(/ +/g, '-');
}

function displayNameOf(nodeFolder: string): string {
	for (const f of readdirSync(join(ROOT, 'nodes', nodeFolder)).filter((f) => f.endsWith('.ts'))) {
		const m = /displayName: '(GenGateway [^']+)'/.exec(
			readFileSync(join(ROOT, 'nodes', nodeFolder, f), 'utf8'),
		);
		if (m) return m[1];
	}
	throw new Error(`nodes/${nodeFolder}: no displayName 'GenGateway …'`);
}

/** Every source folder a test folder may mirror, by the test folder's name. */
function mirrors(): Map<string, string[]> {
	const by = new Map<string, string[]>();
	const add = (name: string, source: string) => by.set(name, [...(by.get(name) ?? []), source]);
	for (const area of folders('nodes/shared')) add(area, `nodes/shared/${area}`);
	for (const node of folders('nodes').filter((f) => f !== 'shared'))
		add(nodeTestFolder(displayNameOf(node)), `nodes/${node}`);
	for (const top of TOP) add(top, top);
	return by;
}

describe('tests a newcomer can find: test/ mirrors the source', () => {
	it('names a node folder the way the rule says (a readable example)', () => {
		expect(nodeTestFolder('GenGateway Chat Model')).toBe('chat-model');
		expect(nodeTestFolder('GenGateway Image Submit')).toBe('image-submit');
	});

	it('every test folder is a kind folder or names exactly one source folder', () => {
		const by = mirrors();
		const wrong = folders('test')
			.filter((t) => !KINDS.includes(t))
			.filter((t) => by.get(t)?.length !== 1)
			.map((t) => `test/${t} (${by.get(t)?.join(', ') ?? 'no source folder of that name'})`);
		expect(wrong).toEqual([]);
	});

	it('no kind folder has a source folder’s name, and no two source folders share one', () => {
		const by = mirrors();
		expect(KINDS.filter((k) => by.has(k))).toEqual([]);
		expect([...by].filter(([, s]) => s.length > 1)).toEqual([]);
	});
});
