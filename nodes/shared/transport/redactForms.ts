/**
 * The forms a secret can take, for the one redaction (redact.ts): each character's forms as regular expression
 * source (raw, percent-encoded to any depth, HTML references, JSON escapes, a NUL after it), the parts of its Base64
 * that do not depend on what surrounds it, and the longest it can grow under REDACTION_DEPTH layers (the stream bound).
 */
import { namesOf } from './encodings';

/**
 * How many layers of escapes (percent, HTML references, JSON escapes, NUL bytes; one kind per layer, in any order,
 * each over any part of the text) a secret or its Base64 may be wrapped in and still be found, in whole texts and in
 * streams. Percent-encoding repeated (`%252573`) is read as one layer; `&amp;#115;` and a JSON string inside a JSON
 * string (`\\u0073`) are two. Each character written raw, percent-encoded, as an HTML reference or a `\u` escape is
 * also replaced where it stands whatever the depth (the regular expression).
 */
export const REDACTION_DEPTH = 3;

/** The digits (leading zeros included) of an HTML numeric reference that the stream bound makes room for. */
export const BOUND_REF_DIGITS = 7;

const hex = (n: number, width = 0) => n.toString(16).toUpperCase().padStart(width, '0');
/** A number in hex as a regex source, each letter digit in either case. */
const hexRe = (n: number, width = 0) =>
	[...hex(n, width)].map((d) => (/[A-F]/.test(d) ? `[${d}${d.toLowerCase()}]` : d)).join('');
const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');

/**
 * The forms one character of a secret takes in the regular expression (regex source). The first character's
 * backslash forms match only from the first backslash of a run: a match tried from inside a run of n backslashes
 * would scan the rest of it again, and n of them cost n² (a body of 40,000 backslashes took 15 s; now linear).
 */
export function charForms(ch: string, first = false): string {
	const run = first ? '(?<!\\\\)\\\\+' : '\\\\+';
	const code = ch.codePointAt(0)!;
	const amps = '&(?:amp;)*';
	const forms = [
		escapeRe(ch),
		[...Buffer.from(ch, 'utf8')].map((b) => '%(?:25)*' + hexRe(b, 2)).join(''),
		`${amps}#(?:0*${code}(?:;|(?![0-9%\\\\]))|[xX]0*${hexRe(code)}(?:;|(?![0-9A-Fa-f%\\\\])))`,
		...namesOf(ch).map((name) => `${amps}${name};`),
	];
	if (code <= 0xffff) forms.push(`${run}u${hexRe(code, 4)}`);
	if (ch === '/' || ch === '"') forms.push(run + escapeRe(ch));
	return `(?:${forms.join('|')})`;
}

/** A NUL (of UTF-16 text read byte by byte) after a character, raw or escaped. */
export const NUL_FORM =
	'(?:\\0|\\\\+u0000|%(?:25)*00|&(?:amp;)*#(?:0+(?:;|(?![0-9%\\\\]))|[xX]0+(?:;|(?![0-9A-Fa-f%\\\\]))))?';

/**
 * The parts of a secret's Base64 that do not depend on what surrounds it, for each of the three alignments it can
 * sit at inside a longer Base64 text, in the standard and the URL alphabet. Too short a part would match ordinary
 * text, so only parts of 8 characters or more are kept.
 */
export function base64Forms(bytes: Buffer): string[] {
	const forms: string[] = [];
	for (let k = 0; k < 3; k++) {
		const b = Buffer.concat([Buffer.alloc(k), bytes]).toString('base64');
		const part = b.slice(Math.ceil((k * 8) / 6), Math.floor(((k + bytes.length) * 8) / 6));
		if (part.length >= 8) forms.push(part, part.replace(/\+/g, '-').replace(/\//g, '_'));
	}
	return forms;
}

/** The characters escapes are written with: never a token delimiter. */
export const ESCAPE_ALPHABET = '%&#;\\';

/** KMP failure table of a pattern. */
export function failureTable(p: string): Int32Array {
	const f = new Int32Array(p.length + 1);
	f[0] = -1;
	for (let i = 1, k = -1; i <= p.length; i++) {
		while (k >= 0 && p[k] !== p[i - 1]) k = f[k];
		f[i] = ++k;
	}
	return f;
}

/**
 * The longest single-layer encodings of a character (for the stream bound): percent-encoded, as a JSON `\u` escape,
 * as a decimal or hex reference with BOUND_REF_DIGITS digits, as each named reference.
 */
function encodingsOf(ch: string): string[] {
	const code = ch.codePointAt(0)!;
	const out = [[...Buffer.from(ch, 'utf8')].map((b) => '%' + hex(b, 2)).join('')];
	out.push([...Array(ch.length).keys()].map((i) => '\\u' + hex(ch.charCodeAt(i), 4)).join(''));
	if (code !== 0) {
		out.push(
			'&#' + String(code).padStart(BOUND_REF_DIGITS, '0') + ';',
			'&#x' + hex(code).padStart(BOUND_REF_DIGITS, '0') + ';',
		);
		for (const name of namesOf(ch)) out.push(`&${name};`);
	}
	return out;
}

/** The longest a text `s` can become under `depth` layers of escapes (and NULs beside every character). */
export function longestForm(s: string, depth: number): number {
	const memo = new Map<string, number>();
	const grow = (ch: string, d: number): number => {
		if (d === 0) return 1;
		const key = `${d}:${ch}`;
		let n = memo.get(key);
		if (n === undefined) {
			n = Math.max(
				grow(ch, d - 1),
				grow(ch, d - 1) + grow('\0', d - 1),
				...encodingsOf(ch).map((e) => [...e].reduce((sum, c) => sum + grow(c, d - 1), 0)),
			);
			memo.set(key, n);
		}
		return n;
	};
	return [...s].reduce((sum, ch) => sum + grow(ch, depth), 0);
}
