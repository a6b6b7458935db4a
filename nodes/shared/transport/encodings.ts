/**
 * The encodings a text can hide a secret in, each read back one layer at a time (redact.ts tries every sequence of
 * them). One layer of one kind, `decodeLayer(s, kind)`, undoes wherever they appear in the text:
 *
 * - `percent`: `%73`, any hex case, UTF-8 sequences (`%C3%A9`); a run of `25`s after the `%` is read as one escape
 *   (`%2573`, `%252573` → `s`): percent-encoding repeated any number of times costs one layer;
 * - `html`: character references as HTML reads them: decimal `&#115;` and hex `&#x73;` / `&#X73;` with any number
 *   of leading zeros (the `;` may be left out), and the named references of ASCII characters (`&sol;`, `&lowbar;`,
 *   `&amp;` …); `&amp;#115;` is two layers;
 * - `json`: JSON string escapes: `\u0073` (any hex case), `\/`, `\"`, `\b\f\n\r\t`, `\\` (a JSON string inside a
 *   JSON string, `\\u0073`, is two layers);
 * - `nul`: NUL characters (UTF-16 text read as UTF-8 or Latin-1 has one beside every ASCII character) are dropped;
 *   a NUL an escape of another kind stands for (`\u0000`, `%00`) is dropped with it.
 *
 * Every escape is self-delimiting and starts with its kind's character (`%`, `&`, `\`, NUL): a text without it is
 * its own decoding. One layer never makes a text longer.
 */

export type EscapeKind = 'percent' | 'html' | 'json' | 'nul';
export const ESCAPE_KINDS: readonly EscapeKind[] = ['percent', 'html', 'json', 'nul'];
/** The character every escape of a kind starts with. */
export const ESCAPE_START: Readonly<Record<EscapeKind, string>> = {
	percent: '%',
	html: '&',
	json: '\\',
	nul: '\0',
};
/** The characters escapes start with. */
export const ESCAPE_STARTS = ESCAPE_KINDS.map((k) => ESCAPE_START[k]);

/** HTML named character references that stand for ASCII characters (and the no-break space). */
export const NAMED_REFS: Readonly<Record<string, string>> = {
	Tab: '\t',
	NewLine: '\n',
	nbsp: '\u00a0',
	excl: '!',
	quot: '"',
	QUOT: '"',
	num: '#',
	dollar: '$',
	percnt: '%',
	amp: '&',
	AMP: '&',
	apos: "'",
	lpar: '(',
	rpar: ')',
	ast: '*',
	midast: '*',
	plus: '+',
	comma: ',',
	period: '.',
	sol: '/',
	colon: ':',
	semi: ';',
	lt: '<',
	LT: '<',
	equals: '=',
	gt: '>',
	GT: '>',
	quest: '?',
	commat: '@',
	lsqb: '[',
	lbrack: '[',
	bsol: '\\',
	rsqb: ']',
	rbrack: ']',
	Hat: '^',
	lowbar: '_',
	UnderBar: '_',
	grave: '`',
	DiacriticalGrave: '`',
	lcub: '{',
	lbrace: '{',
	verbar: '|',
	vert: '|',
	VerticalLine: '|',
	rcub: '}',
	rbrace: '}',
	fjlig: 'fj',
};

/** Every beginning of a name above (the empty one too): `&lowb` at the end of a text may still become `&lowbar;`. */
const NAME_PREFIXES = new Set(
	Object.keys(NAMED_REFS).flatMap((n) => [...n].map((_, i) => n.slice(0, i)).concat(n)),
);
const LONGEST_NAME = Math.max(...Object.keys(NAMED_REFS).map((n) => n.length));

/** The names that stand for `ch`. */
export function namesOf(ch: string): string[] {
	return Object.keys(NAMED_REFS).filter((n) => NAMED_REFS[n] === ch);
}

const isHex = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
const isDigit = (c: number) => c >= 48 && c <= 57;
const isAlnum = (c: number) =>
	(c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
const hexAt = (s: string, i: number) =>
	i + 1 < s.length && isHex(s.charCodeAt(i)) && isHex(s.charCodeAt(i + 1));
/** Whether s[from..] (to its end) holds only hex digits, fewer than `n`: the beginning of an escape cut by the end. */
const hexTail = (s: string, from: number, n: number) => {
	if (s.length - from >= n) return false;
	for (let k = from; k < s.length; k++) if (!isHex(s.charCodeAt(k))) return false;
	return true;
};
/** A code point as text; NUL as nothing (it is dropped), anything that is not a character as U+FFFD. */
const charOf = (cp: number) =>
	cp === 0
		? ''
		: cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)
			? '\ufffd'
			: String.fromCodePoint(cp);

const INCOMPLETE = 'incomplete' as const;
/**
 * What starts at some index: an escape (its text and the index after it), a run to copy as it is (`text` undefined),
 * INCOMPLETE when the text ends inside what may still become an escape (only when the text is not final), or
 * undefined: nothing, the character is copied.
 */
type Read = { text?: string; end: number } | typeof INCOMPLETE | undefined;

/** `%` at i, with any number of `25`s after it: the byte and the index after it. */
function percentByte(
	s: string,
	i: number,
	final: boolean,
): { byte: number; end: number } | typeof INCOMPLETE | undefined {
	let k = i + 1;
	while (s.charCodeAt(k) === 50 && s.charCodeAt(k + 1) === 53 && hexAt(s, k + 2)) k += 2;
	if (hexAt(s, k)) return { byte: parseInt(s.slice(k, k + 2), 16), end: k + 2 };
	return !final && hexTail(s, k, 2) ? INCOMPLETE : undefined;
}

function percentAt(s: string, i: number, final: boolean): Read {
	const first = percentByte(s, i, final);
	if (first === INCOMPLETE || first === undefined) return first;
	const b = first.byte;
	if (b < 0x80) return { text: charOf(b), end: first.end };
	const more =
		b >= 0xc2 && b <= 0xdf ? 1 : b >= 0xe0 && b <= 0xef ? 2 : b >= 0xf0 && b <= 0xf4 ? 3 : -1;
	const invalid = { text: '\ufffd', end: first.end };
	if (more < 0) return invalid;
	let cp = b & (0x3f >> more);
	let end = first.end;
	for (let n = 0; n < more; n++) {
		if (end >= s.length) return final ? invalid : INCOMPLETE;
		if (s.charCodeAt(end) !== 37) return invalid;
		const next = percentByte(s, end, final);
		if (next === INCOMPLETE) return INCOMPLETE;
		if (!next || (next.byte & 0xc0) !== 0x80) return invalid;
		cp = (cp << 6) | (next.byte & 0x3f);
		end = next.end;
	}
	return { text: charOf(cp), end };
}

function htmlAt(s: string, i: number, final: boolean): Read {
	const k = i + 1;
	if (s.charCodeAt(k) === 35) {
		let m = k + 1;
		const hex = s.charCodeAt(m) === 120 || s.charCodeAt(m) === 88;
		if (hex) m++;
		const d0 = m;
		while (m < s.length && (hex ? isHex : isDigit)(s.charCodeAt(m))) m++;
		// digits cut by the end may go on (`&#11` → `&#115;`)
		if (!final && m >= s.length) return INCOMPLETE;
		if (m > d0) {
			const digits = s.slice(d0, m).replace(/^0+(?=.)/, '');
			const cp = digits.length > 8 ? Infinity : parseInt(digits, hex ? 16 : 10);
			return { text: charOf(cp), end: s.charCodeAt(m) === 59 ? m + 1 : m };
		}
		return undefined;
	}
	let m = k;
	while (m < s.length && m - k <= LONGEST_NAME && isAlnum(s.charCodeAt(m))) m++;
	if (!final && m >= s.length && NAME_PREFIXES.has(s.slice(k, m))) return INCOMPLETE;
	if (m > k && s.charCodeAt(m) === 59) {
		const v = NAMED_REFS[s.slice(k, m)];
		if (v !== undefined) return { text: v, end: m + 1 };
	}
	return undefined;
}

const JSON_SHORT: Record<string, string> = {
	'/': '/',
	'"': '"',
	b: '\b',
	f: '\f',
	n: '\n',
	r: '\r',
	t: '\t',
};

/**
 * A run of backslashes at i (i is its first), read as JSON reads it: each pair is one backslash, and an odd one left
 * over escapes what follows it (`\\\u0073` is `\` and `s`); a left-over backslash before anything else stays.
 */
function backslashAt(s: string, i: number, final: boolean): Read {
	let r = i;
	while (r < s.length && s.charCodeAt(r) === 92) r++;
	const n = r - i;
	const pairs = '\\'.repeat(n >> 1);
	if (r >= s.length)
		return final
			? n > 1
				? { text: pairs + (n & 1 ? '\\' : ''), end: r }
				: { end: r }
			: INCOMPLETE;
	if (n % 2 === 0) return { text: pairs, end: r };
	const c = s[r];
	if (c === 'u') {
		if (r + 5 <= s.length && hexAt(s, r + 1) && hexAt(s, r + 3))
			return { text: pairs + charOf(parseInt(s.slice(r + 1, r + 5), 16)), end: r + 5 };
		if (!final && hexTail(s, r + 1, 4)) return INCOMPLETE;
	} else if (JSON_SHORT[c] !== undefined) return { text: pairs + JSON_SHORT[c], end: r + 1 };
	return n > 1 ? { text: pairs + '\\', end: r } : { end: r };
}

export interface Layer {
	/** the text with one layer of escapes undone (the same string when there was none) */
	text: string;
	/** for every character of `text`, the index in the original text of the character or escape it comes from (when a map was given) */
	map?: number[];
	/** where in the input an escape starts that the end of the text cut short (`%7`, `&#11`, `\u00`, `\`), or -1 (always -1 when final) */
	incomplete: number;
	/** where that escape, copied as it is, starts in `text` (what follows it there is not known yet), or -1 */
	incompleteAt: number;
	changed: boolean;
}

export interface LayerOptions {
	/** the original index of every character of the input: the result maps its characters back to the original text */
	map?: ArrayLike<number>;
	/**
	 * true (the default): the end of the text ends every escape (`&#121` is `y`, a lone `%7` is itself). false: the text
	 * may go on (a stream's tail), an escape the end cuts short is left as it is and reported as `incomplete`.
	 */
	final?: boolean;
}

const READERS: Record<EscapeKind, (s: string, i: number, final: boolean) => Read> = {
	percent: percentAt,
	html: htmlAt,
	json: backslashAt,
	nul: (_s, i) => ({ text: '', end: i + 1 }),
};

/**
 * What an escape of each kind looks like, for a whole text read without a map: one regular-expression pass over it
 * (far faster on a large body than reading escape by escape), each match read by the same reader as below.
 */
const WHOLE: Record<EscapeKind, RegExp> = {
	percent: /(?:%(?:25)*[0-9A-Fa-f]{2})+/g,
	html: /&(?:#(?:[xX][0-9A-Fa-f]+|[0-9]+);?|[A-Za-z][A-Za-z0-9]{0,31};)/g,
	json: /\\+(?:u[0-9A-Fa-f]{4}|["/bfnrt])?/g,
	nul: /\0+/g,
};

/** A match of WHOLE read as the loop below reads it, the common cases inline. */
const WHOLE_READERS: Record<EscapeKind, (m: string) => string> = {
	percent: (m) => {
		// ASCII escapes (one byte, one character) inline; a UTF-8 sequence by the loop
		const bytes = m.match(/[0-9A-Fa-f]{2}(?=%|$)/g)!;
		return bytes.every((b) => b < '8')
			? bytes.map((b) => charOf(parseInt(b, 16))).join('')
			: readAll(m, 'percent', true).text;
	},
	html: (m) => {
		const e = htmlAt(m, 0, true);
		return e && e !== INCOMPLETE && e.text !== undefined ? e.text : m;
	},
	json: (m) => {
		let n = 0;
		while (m.charCodeAt(n) === 92) n++;
		const pairs = n > 1 ? '\\'.repeat(n >> 1) : '';
		const rest = m.slice(n);
		if (n % 2 === 0) return pairs + rest;
		if (!rest) return n > 1 ? pairs + '\\' : m;
		return pairs + (rest.length === 5 ? charOf(parseInt(rest.slice(1), 16)) : JSON_SHORT[rest]);
	},
	nul: () => '',
};

/** Undoes one layer of escapes of one kind (see the file's comment). */
export function decodeLayer(s: string, kind: EscapeKind, opts: LayerOptions = {}): Layer {
	const { map, final = true } = opts;
	if (!s.includes(ESCAPE_START[kind]))
		return {
			text: s,
			map: map && Array.from(map),
			incomplete: -1,
			incompleteAt: -1,
			changed: false,
		};
	if (final && !map) {
		// each match is whole escapes (for percent a run of them: a UTF-8 sequence spans escapes), read as the loop reads them
		let text = s;
		if (kind === 'json' && !s.includes('\\\\')) {
			// no backslash pairs: each backslash starts its own escape, and the common ones need no callback
			if (text.includes('\\/')) text = text.replaceAll('\\/', '/');
			if (text.includes('\\"')) text = text.replaceAll('\\"', '"');
		}
		if (text.includes(ESCAPE_START[kind])) text = text.replace(WHOLE[kind], WHOLE_READERS[kind]);
		return { text, incomplete: -1, incompleteAt: -1, changed: text !== s };
	}
	return readAll(s, kind, final, map);
}

/** decodeLayer escape by escape, with the map. */
function readAll(s: string, kind: EscapeKind, final: boolean, map?: ArrayLike<number>): Layer {
	const start = ESCAPE_START[kind];
	const read = READERS[kind];
	let i = s.indexOf(start);
	const out: string[] = [];
	const outMap: number[] | undefined = map ? [] : undefined;
	let pos = 0;
	let changed = false;
	let incomplete = -1;
	let incompleteAt = -1;
	let length = 0;
	const copy = (from: number, to: number) => {
		if (to <= from) return;
		out.push(s.slice(from, to));
		length += to - from;
		if (outMap) for (let k = from; k < to; k++) outMap.push(map![k]);
	};
	while (i >= 0) {
		copy(pos, i);
		const e = read(s, i, final);
		if (e === INCOMPLETE) {
			incomplete = i;
			incompleteAt = length;
			pos = i;
			break;
		}
		if (e === undefined || e.text === undefined) {
			const end = e?.end ?? i + 1;
			copy(i, end);
			pos = end;
		} else {
			changed = true;
			out.push(e.text);
			length += e.text.length;
			if (outMap) for (let k = 0; k < e.text.length; k++) outMap.push(map![i]);
			pos = e.end;
		}
		i = s.indexOf(start, pos);
	}
	copy(pos, s.length);
	if (!changed) return { text: s, map: map && Array.from(map), incomplete, incompleteAt, changed };
	return { text: out.join(''), map: outMap, incomplete, incompleteAt, changed };
}
