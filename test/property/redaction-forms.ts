/**
 * Generated keys, the forms a text can hide them in, and texts around them, for the redaction properties. A form is
 * the key (or the Base64 of some bytes around it, at any alignment) under up to FORM_DEPTH layers, each layer
 * one of: percent-encoding, HTML references, JSON escapes (each over a random share of the characters, always over
 * its own escape character, so the layer reads back), or NULs beside every character (UTF-16 read byte by byte).
 * Everything is applied deterministically from generated numbers, so a failing case shrinks and replays.
 */
import fc from 'fast-check';

/** The depth docs/behaviour.md promises (the redactor's REDACTION_DEPTH must reach it; the generator does not read it). */
export const FORM_DEPTH = 3;

const chars = (s: string) => [...s];
const ALNUM = chars('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789');
const text = (alphabet: string[], min: number, max: number) =>
	fc.string({ unit: fc.constantFrom(...alphabet), minLength: min, maxLength: max });

/** Keys as gateways issue them: `sk-` + 20–60 of [A-Za-z0-9_-] mostly, and other shapes. */
export const keyArb: fc.Arbitrary<string> = fc.oneof(
	{ weight: 5, arbitrary: text([...ALNUM, '_', '-'], 20, 60).map((s) => `sk-${s}`) },
	{ weight: 1, arbitrary: text(chars('0123456789abcdef'), 32, 64) },
	{ weight: 1, arbitrary: fc.uuid() },
	{
		weight: 1,
		arbitrary: fc
			.tuple(text([...ALNUM, '+', '/'], 24, 48), fc.constantFrom('', '=', '=='))
			.map(([s, pad]) => s + pad),
	},
	{
		weight: 1,
		arbitrary: fc
			.tuple(
				text([...ALNUM, '-', '_'], 10, 20),
				text([...ALNUM, '-', '_'], 10, 30),
				text([...ALNUM, '-', '_'], 10, 20),
			)
			.map((p) => p.join('.')),
	},
	{
		weight: 1,
		arbitrary: fc
			.tuple(fc.constantFrom('gw_live_', 'key-', 'AKIA', 'pk.'), text(ALNUM, 16, 40))
			.map(([a, b]) => a + b),
	},
);

export type LayerKind = 'percent' | 'html' | 'json' | 'nul';
export interface LayerSpec {
	kind: LayerKind;
	/** per cent of the characters encoded (the layer's own escape character always is) */
	share: number;
	/** numbers that decide, character by character, whether and how it is written */
	picks: number[];
}
export interface Base64Spec {
	before: number[];
	after: number[];
	urlAlphabet: boolean;
	padding: boolean;
}
export interface FormSpec {
	base64?: Base64Spec;
	layers: LayerSpec[];
}

const layerArb: fc.Arbitrary<LayerSpec> = fc.record({
	kind: fc.constantFrom<LayerKind>('percent', 'html', 'json', 'nul'),
	share: fc.constantFrom(0, 30, 60, 100),
	picks: fc.array(fc.nat(), { minLength: 1, maxLength: 24 }),
});

export const formArb: fc.Arbitrary<FormSpec> = fc.record(
	{
		base64: fc.record({
			before: fc.array(fc.nat(255), { maxLength: 40 }),
			after: fc.array(fc.nat(255), { maxLength: 40 }),
			urlAlphabet: fc.boolean(),
			padding: fc.boolean(),
		}),
		layers: fc.array(layerArb, { maxLength: FORM_DEPTH }),
	},
	{ requiredKeys: ['layers'] },
);

const hex = (n: number, width: number, lower: boolean) => {
	const h = n.toString(16).padStart(width, '0');
	return lower ? h.toLowerCase() : h.toUpperCase();
};

const NAMED: Record<string, string[]> = {
	'&': ['amp', 'AMP'],
	'/': ['sol'],
	'+': ['plus'],
	'=': ['equals'],
	_: ['lowbar', 'UnderBar'],
	'.': ['period'],
	'%': ['percnt'],
	'#': ['num'],
	';': ['semi'],
	'\\': ['bsol'],
	':': ['colon'],
};

/** One layer over `s`. */
export function applyLayer(s: string, l: LayerSpec): string {
	const pick = (i: number) => l.picks[i % l.picks.length] ?? 0;
	const cs = chars(s);
	if (l.kind === 'nul') return cs.map((c) => (pick(0) % 2 ? `\0${c}` : `${c}\0`)).join('');
	return cs
		.map((c, i) => {
			const r = pick(i);
			const own = l.kind === 'percent' ? c === '%' : l.kind === 'html' ? c === '&' : c === '\\';
			if (!own && r % 100 >= l.share) return c;
			const lower = ((r >> 7) & 1) === 1;
			const code = c.codePointAt(0)!;
			if (l.kind === 'percent')
				return [...Buffer.from(c, 'utf8')].map((b) => `%${hex(b, 2, lower)}`).join('');
			if (l.kind === 'json') {
				if ((c === '\\' || c === '/' || c === '"') && (r >> 8) % 2) return `\\${c}`;
				return [...Array(c.length).keys()]
					.map((k) => `\\u${hex(c.charCodeAt(k), 4, lower)}`)
					.join('');
			}
			// html: a NUL has no reference (HTML reads &#0; as U+FFFD)
			if (code === 0) return c;
			const zeros = '0'.repeat((r >> 9) % 4);
			const variant = (r >> 11) % 4;
			const names = NAMED[c];
			if (variant === 3 && names) return `&${names[(r >> 13) % names.length]};`;
			if (variant === 0) return `&#${zeros}${code};`;
			return `&#${variant === 1 ? 'x' : 'X'}${zeros}${hex(code, 1, lower)};`;
		})
		.join('');
}

/** The form of `key` a spec describes. */
export function formOf(key: string, f: FormSpec): string {
	let s = key;
	if (f.base64) {
		const b = f.base64;
		s = Buffer.concat([
			Buffer.from(b.before),
			Buffer.from(key, 'utf8'),
			Buffer.from(b.after),
		]).toString('base64');
		if (b.urlAlphabet) s = s.replace(/\+/g, '-').replace(/\//g, '_');
		if (!b.padding) s = s.replace(/=+$/, '');
	}
	for (const l of f.layers) s = applyLayer(s, l);
	return s;
}

export const describeForm = (f: FormSpec) =>
	[
		f.base64
			? `base64(+${f.base64.before.length}/${f.base64.after.length} bytes${f.base64.urlAlphabet ? ', url' : ''})`
			: 'key',
		...f.layers.map((l) => `${l.kind}${l.kind === 'nul' ? '' : ` ${l.share}%`}`),
	].join(' > ');

/** Text around a form: anything (escape characters too), but never a `\`, `%` or `&` right beside it. */
const noise = text(
	[...ALNUM, ...chars(' \n\t"\'<>{}[](),:;=?!#.*%&\\/+-_~@$^|`'), 'é', '€', '\0'],
	0,
	30,
);
const separator = fc.constantFrom(
	' ',
	'"',
	"'",
	'<',
	'>',
	'(',
	')',
	',',
	':',
	'\n',
	'?',
	'!',
	'|',
	'[',
	']',
	'{',
	'}',
);

export type Context = 'text' | 'json' | 'html' | 'url' | 'twice';
export const contextArb = fc.constantFrom<Context>('text', 'json', 'html', 'url', 'twice');

export interface Embedding {
	context: Context;
	left: string;
	right: string;
	sepLeft: string;
	sepRight: string;
}
export const embeddingArb: fc.Arbitrary<Embedding> = fc.record({
	context: contextArb,
	left: noise,
	right: noise,
	sepLeft: separator,
	sepRight: separator,
});

/** `form` inside a text of the embedding's kind. */
export function embed(form: string, e: Embedding): string {
	const inner = `${e.left}${e.sepLeft}${form}${e.sepRight}${e.right}`;
	switch (e.context) {
		case 'json':
			return `{"error":{"message":"upstream said: ${inner}","code":"bad_key"},"echo":"${form}"}`;
		case 'html':
			return `<html><body><p title="${form}">${inner}</p></body></html>`;
		case 'url':
			return `GET https://x.example/v1/tasks?key=${form}&n=1 ${inner}`;
		case 'twice':
			return `${inner} and again:${form}`;
		default:
			return inner;
	}
}

/** Texts without the key: noise, escapes, Base64 blobs, ordinary answers, and forms of another key. */
export const cleanTextArb = (otherKey: fc.Arbitrary<string>): fc.Arbitrary<string> =>
	fc.oneof(
		noise.map((s) => s.repeat(3)),
		fc.tuple(otherKey, formArb, embeddingArb).map(([k, f, e]) => embed(formOf(k, f), e)),
		fc
			.array(fc.nat(255), { minLength: 30, maxLength: 300 })
			.map((b) => `{"b64_json":"${Buffer.from(b).toString('base64').replace(/\//g, '\\/')}"}`),
		fc
			.tuple(noise, fc.array(layerArb, { maxLength: 3 }))
			.map(([s, layers]) => layers.reduce(applyLayer, s)),
	);
