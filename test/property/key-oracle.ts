/**
 * The oracle of the redaction properties: whether a text still holds a key in any form, found with decoders written
 * apart from the package's (nodes/shared/transport/encodings.ts) and stricter than it, each undoing exactly one
 * layer: decodeURIComponent on every run of percent escapes, an HTML reference decoder (numeric and named, as HTML
 * reads them), JSON.parse of every JSON escape, NUL removal, and Base64 decoding of every Base64 run at each of its
 * four alignments (read as UTF-8, Latin-1, UTF-16LE and UTF-16BE). Every sequence of up to `depth` decoders is tried.
 */

/** One layer of percent-encoding: every run of `%XX` through decodeURIComponent (a run that is no UTF-8 stays). */
export function percentDecode(s: string): string {
	return s.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => {
		try {
			return decodeURIComponent(run);
		} catch {
			return run;
		}
	});
}

/** HTML's named references of ASCII characters (WHATWG's table, the part a key or an escape is written with). */
const NAMED: Record<string, string> = {
	amp: '&',
	AMP: '&',
	lt: '<',
	LT: '<',
	gt: '>',
	GT: '>',
	quot: '"',
	QUOT: '"',
	apos: "'",
	sol: '/',
	bsol: '\\',
	percnt: '%',
	num: '#',
	semi: ';',
	colon: ':',
	equals: '=',
	plus: '+',
	lowbar: '_',
	UnderBar: '_',
	period: '.',
	comma: ',',
	excl: '!',
	quest: '?',
	commat: '@',
	dollar: '$',
	lpar: '(',
	rpar: ')',
	ast: '*',
	midast: '*',
	lsqb: '[',
	lbrack: '[',
	rsqb: ']',
	rbrack: ']',
	lcub: '{',
	lbrace: '{',
	rcub: '}',
	rbrace: '}',
	verbar: '|',
	vert: '|',
	VerticalLine: '|',
	Hat: '^',
	grave: '`',
	DiacriticalGrave: '`',
	Tab: '\t',
	NewLine: '\n',
	nbsp: '\u00a0',
	fjlig: 'fj',
};

/** One layer of HTML character references, as an HTML parser reads them in text (NUL and non-characters become U+FFFD). */
export function htmlDecode(s: string): string {
	return s.replace(
		/&(?:#[xX]([0-9A-Fa-f]+);?|#([0-9]+);?|([A-Za-z][A-Za-z0-9]*);)/g,
		(m, hex?: string, dec?: string, name?: string) => {
			if (name !== undefined) return NAMED[name] ?? m;
			const cp = parseInt((hex ?? dec)!, hex !== undefined ? 16 : 10);
			return cp === 0 || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)
				? '\ufffd'
				: String.fromCodePoint(cp);
		},
	);
}

/** One layer of JSON string escapes, each read by JSON.parse. */
export function jsonUnescape(s: string): string {
	return s.replace(/\\(?:u[0-9A-Fa-f]{4}|["\\/bfnrt])/g, (m) => JSON.parse(`"${m}"`) as string);
}

export const nulStrip = (s: string) => s.replace(/\0/g, '');

const DECODERS: Record<string, (s: string) => string> = {
	percent: percentDecode,
	html: htmlDecode,
	json: jsonUnescape,
	nul: nulStrip,
};

/** A-Z a-z 0-9 + / _ - */
const isB64 = (c: number) =>
	(c >= 65 && c <= 90) ||
	(c >= 97 && c <= 122) ||
	(c >= 48 && c <= 57) ||
	c === 43 ||
	c === 47 ||
	c === 95 ||
	c === 45;

/**
 * The runs of Base64 characters in `s` (8 or more), found by a loop: V8's regular expressions throw "Maximum call stack
 * size exceeded" on `[…]{8,}` over a run of more than about 5.5 million characters (its backtrack stack). Some text of
 * a run got that long only under load (the seed alone does not reproduce it): the stack overflow issue 40 saw in the
 * streamed properties, caught in CI with its stack at last (seed 353636974).
 */
function base64Runs(s: string): string[] {
	const runs: string[] = [];
	let start = -1;
	for (let i = 0; i <= s.length; i++) {
		const inRun = i < s.length && isB64(s.charCodeAt(i));
		if (inRun && start < 0) start = i;
		else if (!inRun && start >= 0) {
			if (i - start >= 8) runs.push(s.slice(start, i));
			start = -1;
		}
	}
	return runs;
}

/** Whether a Base64 run of `s`, at any alignment, decodes to bytes holding the key (UTF-8/Latin-1, UTF-16LE or BE). */
function base64Holds(s: string, key: string): boolean {
	const wanted = [
		Buffer.from(key, 'utf8'),
		Buffer.from(key, 'utf16le'),
		Buffer.from(key, 'utf16le').swap16(),
	];
	for (const run of base64Runs(s)) {
		for (let k = 0; k < 4; k++) {
			const bytes = Buffer.from(run.slice(k).replace(/-/g, '+').replace(/_/g, '/'), 'base64');
			if (wanted.some((w) => bytes.includes(w))) return true;
		}
	}
	return false;
}

/**
 * How the key is found in `s` (e.g. "percent > html > raw", "json > base64"), or undefined: it holds no form of the key
 * within `depth` decoders. The search stops growing past `maxTexts` distinct texts per level.
 */
export function findKey(s: string, key: string, depth = 4, maxTexts = 400): string | undefined {
	let level = new Map<string, string>([[s, '']]);
	const seen = new Set<string>([s]);
	for (let d = 0; d <= depth; d++) {
		for (const [t, path] of level) {
			if (t.includes(key)) return `${path}raw`;
			if (base64Holds(t, key)) return `${path}base64`;
		}
		if (d === depth) break;
		const next = new Map<string, string>();
		for (const [t, path] of level) {
			for (const [name, decode] of Object.entries(DECODERS)) {
				const u = decode(t);
				if (u === t || seen.has(u) || next.size >= maxTexts) continue;
				seen.add(u);
				next.set(u, `${path}${name} > `);
			}
		}
		level = next;
	}
	return undefined;
}
