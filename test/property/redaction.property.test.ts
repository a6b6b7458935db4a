/**
 * Properties of the one redaction (nodes/shared/transport/redact.ts), checked against an oracle with decoders of its
 * own (key-oracle.ts). For a generated key, a generated form of it (redaction-forms.ts: the key or its Base64 at any
 * alignment inside longer Base64, under up to FORM_DEPTH = 3 layers of percent-encoding, HTML references, JSON
 * escapes and NULs, in any order) and a text around it (plain, JSON, HTML, a URL, the form twice):
 *
 * (a) `text()` leaves no form of the key the oracle can find, `contains()` says so (and said yes before), and
 *     `text()` of its own output changes nothing;
 * (b) the same text cut into chunks (at every offset, at random offsets, as bytes in UTF-8 or UTF-16LE) through the
 *     stream redactors: what comes out, joined, holds no form of the key either, and the tail held back never passes
 *     `streamBound`;
 * (c) a text without the key (noise, escapes, Base64, forms of another key) comes out of `text()` and of the streams
 *     unchanged;
 * and one layer of each kind reads the same whole (the fast path of large bodies) as escape by escape (streams).
 *
 * A failure prints its seed and the command that replays it (check.ts); FUZZ_RUNS / FUZZ_SEED steer it.
 */
import fc from 'fast-check';
import { ESCAPE_KINDS, decodeLayer } from '../../nodes/shared/transport/encodings';
import { Redactor } from '../../nodes/shared/transport/redact';
import { checkSync } from './check';
import { findKey } from './key-oracle';
import {
	FORM_DEPTH,
	cleanTextArb,
	describeForm,
	embed,
	embeddingArb,
	formArb,
	formOf,
	keyArb,
} from './redaction-forms';

const FILE = 'redaction.property.test.ts';
/** the oracle tries every sequence of this many decoders: the layers and one more */
const ORACLE_DEPTH = FORM_DEPTH + 1;

const fail = (what: string, c: object) => {
	throw new Error(
		`${what}\n  ${Object.entries(c)
			.map(([k, v]) => `${k}: ${JSON.stringify(v)?.slice(0, 400)}`)
			.join('\n  ')}`,
	);
};

/** The text through a TextRedactionStream in the given pieces: what comes out, joined, and the most it held back. */
function streamed(r: Redactor, pieces: string[]): { out: string; held: number } {
	const s = r.textStream();
	let out = '';
	let held = 0;
	for (const p of pieces) {
		out += s.write(p);
		held = Math.max(held, s.pending);
	}
	return { out: out + s.end(), held };
}

/** The same with bytes in `encoding`, cut at the given byte offsets, through a ChunkRedactor reading that charset. */
function streamedBytes(
	r: Redactor,
	text: string,
	encoding: 'utf8' | 'utf16le',
	cuts: number[],
): { out: string; held: number } {
	const bytes = Buffer.from(text, encoding);
	const c = r.chunks({ charset: encoding === 'utf8' ? 'utf-8' : 'utf-16le' });
	let out = '';
	let held = 0;
	let from = 0;
	for (const cut of [
		...cuts.map((x) => x % (bytes.length + 1)).sort((a, b) => a - b),
		bytes.length,
	]) {
		out += c.write(bytes.subarray(from, Math.max(from, cut)));
		from = Math.max(from, cut);
		held = Math.max(held, c.pending);
	}
	return { out: out + c.end(), held };
}

const piecesAt = (text: string, cuts: number[]) => {
	const at = [...new Set(cuts.map((x) => x % (text.length + 1)))].sort((a, b) => a - b);
	return [...at, text.length].map((end, i) => text.slice(i ? at[i - 1] : 0, end));
};

/** Every cut into two pieces of a text this short or shorter; longer texts get the random cuts only. */
const EVERY_CUT_UP_TO = 400;

const caseArb = fc.record({
	key: keyArb,
	form: formArb,
	embedding: embeddingArb,
	cuts: fc.array(fc.nat(), { maxLength: 12 }),
});

it('(a, b) every generated form of the key, in any text, whole or in chunks, comes out with no form of the key left', () => {
	checkSync(
		FILE,
		caseArb,
		(c) => {
			const r = new Redactor([c.key]);
			const form = formOf(c.key, c.form);
			const input = embed(form, c.embedding);
			const info = { key: c.key, form: describeForm(c.form), input };
			if (!findKey(input, c.key, ORACLE_DEPTH))
				fail('the oracle does not see the key in the generated input (a generator bug)', info);
			if (!r.contains(input)) fail('contains() misses the form', info);
			const out = r.text(input);
			const found = findKey(out, c.key, ORACLE_DEPTH);
			if (found) fail(`text() left the key (${found})`, { ...info, out });
			if (r.contains(out) || r.text(out) !== out)
				fail('text() of the output changes it again', { ...info, out, again: r.text(out) });
			// (b) the same text in chunks: every cut in two, random cuts, and bytes in UTF-8 and UTF-16LE
			const outs = new Map<string, string>();
			const check = (what: string, s: { out: string; held: number }) => {
				if (s.held > r.streamBound)
					fail(
						`${what}: the stream held back ${s.held} characters, more than its bound ${r.streamBound}`,
						info,
					);
				if (s.out.includes(c.key) || r.contains(s.out))
					fail(`${what}: the stream let a form through`, { ...info, out: s.out });
				outs.set(s.out, what);
			};
			if (input.length <= EVERY_CUT_UP_TO)
				for (let cut = 1; cut < input.length; cut++)
					check(`cut at ${cut}`, streamed(r, [input.slice(0, cut), input.slice(cut)]));
			check(`cut at ${c.cuts.join(',')}`, streamed(r, piecesAt(input, c.cuts)));
			check('one character at a time', streamed(r, [...input]));
			check('UTF-8 bytes', streamedBytes(r, input, 'utf8', c.cuts));
			check('UTF-16LE bytes', streamedBytes(r, input, 'utf16le', c.cuts));
			for (const [o, what] of outs) {
				const leak = findKey(o, c.key, ORACLE_DEPTH);
				if (leak) fail(`${what}: the stream's output holds the key (${leak})`, { ...info, out: o });
			}
		},
		{ runs: 300, timeMs: 40_000 },
	);
}, 600_000);

it('(c) a text without the key comes out of text() and of the streams unchanged', () => {
	const arb = fc
		.tuple(keyArb, keyArb)
		.filter(([k, other]) => !k.includes(other) && !other.includes(k))
		.chain(([key, other]) =>
			fc.record({
				key: fc.constant(key),
				text: cleanTextArb(fc.constant(other)),
				cuts: fc.array(fc.nat(), { maxLength: 12 }),
			}),
		);
	checkSync(
		FILE,
		arb,
		(c) => {
			const r = new Redactor([c.key]);
			const info = { key: c.key, text: c.text };
			if (findKey(c.text, c.key, ORACLE_DEPTH)) return; // the other key's form holds this one after all
			if (r.text(c.text) !== c.text)
				fail('text() changed a text without the key', { ...info, out: r.text(c.text) });
			if (r.contains(c.text)) fail('contains() says yes to a text without the key', info);
			const cases: Array<[string, { out: string; held: number }]> = [
				[`cut at ${c.cuts.join(',')}`, streamed(r, piecesAt(c.text, c.cuts))],
				['one character at a time', streamed(r, [...c.text])],
				['UTF-8 bytes', streamedBytes(r, c.text, 'utf8', c.cuts)],
				['UTF-16LE bytes', streamedBytes(r, c.text, 'utf16le', c.cuts)],
			];
			if (c.text.length <= EVERY_CUT_UP_TO)
				for (let cut = 1; cut < c.text.length; cut++)
					cases.push([`cut at ${cut}`, streamed(r, [c.text.slice(0, cut), c.text.slice(cut)])]);
			for (const [what, s] of cases) {
				if (s.out !== c.text)
					fail(`${what}: the stream changed a text without the key`, { ...info, out: s.out });
				if (s.held > r.streamBound)
					fail(
						`${what}: held back ${s.held} characters, more than the bound ${r.streamBound}`,
						info,
					);
			}
		},
		{ runs: 300, timeMs: 30_000 },
	);
}, 600_000);

it('one layer read whole (a regular expression per kind) and escape by escape (with the map streams use) gives the same text', () => {
	const arb = fc.tuple(cleanTextArb(keyArb), fc.constantFrom(...ESCAPE_KINDS));
	checkSync(
		FILE,
		arb,
		([text, kind]) => {
			const whole = decodeLayer(text, kind);
			const mapped = decodeLayer(text, kind, {
				map: Array.from({ length: text.length }, (_, i) => i),
			});
			if (whole.text !== mapped.text || whole.changed !== mapped.changed)
				fail('the two readings differ', { kind, text, whole: whole.text, mapped: mapped.text });
			if (mapped.map!.length !== mapped.text.length)
				fail('the map does not cover the text', { kind, text });
		},
		{ runs: 1000, timeMs: 10_000 },
	);
});
