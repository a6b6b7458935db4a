/**
 * The ten guarantees a user pays for, each with one mutant: a small change to the code that breaks it, and the tests
 * that must then fail. `npm run mutate` (./run.ts) applies each mutant to a copy of the checkout and runs its tests;
 * a mutant the tests let pass is a guarantee no test holds. docs/development.md ("The ten guarantees and their
 * mutation check") lists them; test/package/mutation.test.ts holds each `find` to the code (it occurs exactly once in
 * its file, so a refactor that moves it fails there, not silently here).
 */
export interface Mutant {
	/** a short name, used by `npm run mutate -- <id>` */
	id: string;
	/** the guarantee, in the README's words */
	guarantee: string;
	/** the file the mutant changes, from the repository's root */
	file: string;
	/** the exact text replaced (occurs exactly once in the file) */
	find: string;
	replace: string;
	/** the test files that must fail (unit project), from the repository's root */
	tests: string[];
	/** jest's `-t`: only these tests of the files */
	grep?: string;
	/** environment of the test run (a property's seed, so the kill replays) */
	env?: Record<string, string>;
}

export const MUTANTS: Mutant[] = [
	{
		id: 'pay-once',
		guarantee:
			'a paid call is sent once: a try of Retry On Fail reuses what the first got (the ledger by place)',
		file: 'nodes/shared/runners/ledger.ts',
		find: 'get: (place) => book.calls.get(placeKey(place)) as LedgerEntry<S> | undefined,',
		replace: 'get: () => undefined,',
		tests: ['test/runners/retry-on-fail.test.ts'],
	},
	{
		id: 'one-answer-per-question',
		guarantee:
			'an answer is never handed to another question: a Chat Model call is known by its place and its question',
		file: 'nodes/LmChatGenGateway/model/supply.ts',
		find: '.update(JSON.stringify([to, asked]))',
		replace: '.update(JSON.stringify([to]))',
		tests: ['test/chat-model/roots.test.ts'],
		grep: 'never handed',
	},
	{
		id: 'key-home',
		guarantee: 'the key never leaves: every output item is redacted at the exit',
		file: 'nodes/shared/exit/exit.ts',
		find: 'const out: INodeExecutionData = { ...item, json };',
		replace:
			'const out: INodeExecutionData = { ...item, json: json === item.json ? json : item.json };',
		tests: ['test/property/exit.property.test.ts'],
		env: { FUZZ_SEED: '1' },
	},
	{
		id: 'completed-decodes',
		guarantee: 'Completed only when the file decodes: every image is decoded to its last pixel',
		file: 'nodes/shared/media/image.ts',
		find: "if (found.mimeType !== 'image/bmp') await decodeFully(b, NAMES[found.mimeType], l);",
		replace: "if (found.mimeType === 'image/none') await decodeFully(b, NAMES[found.mimeType], l);",
		tests: ['test/media/results-decode.test.ts'],
	},
	{
		id: 'item-pairing',
		guarantee: 'every input item yields exactly one output item, paired to it (a failed item too)',
		file: 'nodes/shared/runners/failures.ts',
		find: 'return { json, pairedItem: { item: itemIndex } };',
		replace: 'return { json, pairedItem: { item: 0 } };',
		tests: ['test/reliability/bad-input.test.ts'],
	},
	{
		id: 'address-rule',
		guarantee:
			"bad input is refused naming the field before any request: an address carrying the credential's key",
		file: 'nodes/shared/rules/mediaUrl.ts',
		find: 'if (opts.containsSecret?.(text) || opts.containsSecret?.(safeDecode(text)))',
		replace: "if (opts.containsSecret?.('') && !text)",
		tests: ['test/rules/mediaUrl.test.ts'],
	},
	{
		id: 'options-as-written',
		guarantee:
			'options read as written: Quote Only given as the text " TRUE " quotes and sends nothing',
		file: 'nodes/shared/rules/options.ts',
		find: "const read = typeof raw === 'string' ? FLAG_TEXT[raw.trim().toLowerCase()] : undefined;",
		replace: "const read = typeof raw === 'string' ? FLAG_TEXT[raw] : undefined;",
		tests: ['test/property/options.property.test.ts'],
		grep: 'Quote Only',
	},
	{
		id: 'spend-cap',
		guarantee:
			'Max Expected Spend counts what the execution already spent: nothing is sent that could pass it',
		file: 'nodes/shared/money/cap.ts',
		find: 'if (!blockedUnpriced && !so.full && expected + so.quota <= cap) return undefined;',
		replace: 'if (!blockedUnpriced && !so.full && expected <= cap) return undefined;',
		tests: ['test/money/spend-cap.test.ts'],
	},
	{
		id: 'refusal-rule',
		guarantee:
			"the one 429 rule: a refused paid request waits the gateway's Retry-After before it goes again",
		file: 'nodes/shared/runners/send.ts',
		find: 'return Math.max(MIN_REFUSAL_WAIT_MS, err.retryAfterMs) + Math.round(random() * 250);',
		replace: 'return MIN_REFUSAL_WAIT_MS + Math.round(random() * 250);',
		tests: ['test/property/readable-invariants.test.ts'],
		grep: 'Retry-After',
	},
	{
		id: 'reasoning-round-trip',
		guarantee:
			"a thinking model's reasoning goes back with the tool calls it led to (the reasoning round trip)",
		file: 'nodes/LmChatGenGateway/model/reasoning.ts',
		find: 'for (const id of toolCallIds) if (id) this.store.byCall.set(this.at(id), { text, field });',
		replace:
			'for (const id of toolCallIds) if (!id) this.store.byCall.set(this.at(id), { text, field });',
		tests: ['test/chat-model/models.test.ts'],
		grep: 'reasoning',
	},
];

/** The file's text with the mutant applied, or why it cannot be (its text must occur exactly once). */
export function mutated(source: string, m: Mutant): string | { error: string } {
	const at = source.indexOf(m.find);
	if (at < 0) return { error: `${m.file} no longer holds: ${m.find}` };
	if (source.indexOf(m.find, at + 1) >= 0) return { error: `${m.file} holds its text twice` };
	return source.slice(0, at) + m.replace + source.slice(at + m.find.length);
}
