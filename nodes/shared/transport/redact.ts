/**
 * The one redaction of credential secrets. A secret is replaced by `***` in every form a text can hide it in:
 *
 * - raw (also inside `Bearer <key>`), and its Base64 (the parts of it that do not depend on what surrounds it, at each
 *   of the three alignments, standard and URL alphabet: inside `Basic …` or any longer Base64 text);
 * - written with escapes, in any mix and nesting up to REDACTION_DEPTH layers (encodings.ts reads one layer):
 *   percent-encoding (any depth: `%73`, `%2573`, `%25%37%33`), HTML character references (`&#115;`, `&#x73;`, leading
 *   zeros, named ones, `&amp;#115;`), JSON escapes (`\u0073`, `\/`, escaped several times) and NULs (UTF-16 text read
 *   as UTF-8 or Latin-1, `s\0k\0` or `s\u0000k\u0000`), the Base64 forms too (`c2st\u0062…`).
 *
 * How: the raw and Base64 forms are plain substring searches over the whole text. Only the tokens of the text that
 * hold a `%`, `&`, `\` or NUL are looked at further (a token is a maximal run without a delimiter: whitespace,
 * quotes, angle brackets and the other ASCII punctuation no form of a secret contains); a text without those four
 * characters takes no other path. In such a token, the forms one regular expression knows (each character of the
 * secret raw, percent-encoded to any depth, as an HTML reference, as a JSON `\u` escape, each followed by an optional
 * NUL) are replaced where they stand; then the token is decoded by every sequence of up to REDACTION_DEPTH layers,
 * one kind per layer, and if one still holds a secret or its Base64 (a nesting the expression does not know), the
 * whole token becomes `***`. A token shorter than the shortest secret (or Base64 form) is skipped: decoding never
 * lengthens a text.
 *
 * `text(s)` returns `s` itself when nothing was found, so `contains(s) === (text(s) !== s)` for every text. Streams
 * (`textStream()`, `chunks()`, `stream()`) hold back only a tail that may still become a form (see `holdStart`), never
 * more than `streamBound` characters.
 */
import { Transform, type TransformCallback } from 'node:stream';
import { BodyDecoder } from './charset';
import {
	ESCAPE_KINDS,
	ESCAPE_START,
	ESCAPE_STARTS,
	decodeLayer,
	namesOf,
	type Layer,
} from './encodings';

export const REDACTED = '***';

/** Secrets shorter than this are not redacted (they would match ordinary words). */
const MIN_SECRET_LENGTH = 4;

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
function charForms(ch: string, first = false): string {
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
const NUL_FORM =
	'(?:\\0|\\\\+u0000|%(?:25)*00|&(?:amp;)*#(?:0+(?:;|(?![0-9%\\\\]))|[xX]0+(?:;|(?![0-9A-Fa-f%\\\\]))))?';

/**
 * The parts of a secret's Base64 that do not depend on what surrounds it, for each of the three alignments it can
 * sit at inside a longer Base64 text, in the standard and the URL alphabet. Too short a part would match ordinary
 * text, so only parts of 8 characters or more are kept.
 */
function base64Forms(bytes: Buffer): string[] {
	const forms: string[] = [];
	for (let k = 0; k < 3; k++) {
		const b = Buffer.concat([Buffer.alloc(k), bytes]).toString('base64');
		const part = b.slice(Math.ceil((k * 8) / 6), Math.floor(((k + bytes.length) * 8) / 6));
		if (part.length >= 8) forms.push(part, part.replace(/\+/g, '-').replace(/\//g, '_'));
	}
	return forms;
}

/** The characters escapes are written with: never a token delimiter. */
const ESCAPE_ALPHABET = '%&#;\\';

/** KMP failure table of a pattern. */
function failureTable(p: string): Int32Array {
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
function longestForm(s: string, depth: number): number {
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

export class Redactor {
	private readonly re?: RegExp;
	private readonly secrets: string[];
	/** what is searched for as it is, after each layer of decoding: the secrets and their Base64 forms, longest first */
	private readonly literals: string[];
	private readonly failure: Int32Array[];
	/** the length of the shortest literal: no token shorter than it can hold a form */
	private readonly shortest: number;
	/** 1 for the ASCII characters that end a token */
	private readonly delimiters = new Uint8Array(128);
	/** finds the next delimiter (global, from lastIndex) */
	private readonly delimiterRe: RegExp;
	/** whether `"` ends a token (no secret or Base64 form holds one) */
	private readonly quoteDelimits: boolean;
	/**
	 * The most characters a stream holds back: the longest form a secret (or its Base64) takes under REDACTION_DEPTH
	 * layers, with numeric references of BOUND_REF_DIGITS digits.
	 */
	readonly streamBound: number;

	constructor(secrets: Array<string | undefined>) {
		this.secrets = [
			...new Set(
				secrets.filter((s): s is string => typeof s === 'string' && s.length >= MIN_SECRET_LENGTH),
			),
		].sort((a, b) => b.length - a.length);
		const b64 = this.secrets.flatMap((s) => base64Forms(Buffer.from(s, 'utf8')));
		this.literals = [...new Set([...this.secrets, ...b64])].sort((a, b) => b.length - a.length);
		this.failure = this.literals.map(failureTable);
		this.shortest = Math.min(...this.literals.map((l) => l.length));
		const used = new Set([...this.literals.join(''), ...ESCAPE_ALPHABET]);
		for (let c = 1; c < 128; c++) {
			const ch = String.fromCharCode(c);
			if (!/[A-Za-z0-9]/.test(ch) && !used.has(ch)) this.delimiters[c] = 1;
		}
		this.quoteDelimits = this.delimiters[34] === 1;
		const delimiterChars = [...this.delimiters.keys()]
			.filter((c) => this.delimiters[c])
			.map((c) => `\\x${c.toString(16).padStart(2, '0')}`);
		this.delimiterRe = new RegExp(`[${delimiterChars.join('')}]`, 'g');
		this.streamBound = Math.max(0, ...this.literals.map((l) => longestForm(l, REDACTION_DEPTH)));
		if (this.secrets.length)
			this.re = new RegExp(
				this.secrets
					.map((s) => [...s].map((ch, i) => charForms(ch, i === 0) + NUL_FORM).join(''))
					.join('|'),
				'g',
			);
	}

	get active(): boolean {
		return this.re !== undefined;
	}

	private isDelimiter(c: number): boolean {
		return c < 128 && this.delimiters[c] === 1;
	}

	/** Whether `s` holds a character that ends a token. */
	hasDelimiter(s: string): boolean {
		for (let i = 0; i < s.length; i++) if (this.isDelimiter(s.charCodeAt(i))) return true;
		return false;
	}

	/** The text with every form of every secret replaced; `s` itself when it holds none. */
	text(s: string): string {
		if (!this.re || s.length < MIN_SECRET_LENGTH) return s;
		let out = s;
		for (const l of this.literals) if (out.includes(l)) out = out.replaceAll(l, REDACTED);
		return this.tokens(out);
	}

	/** Whether the text holds a secret in any form: exactly when `text(s) !== s`. */
	contains(s: string): boolean {
		return this.text(s) !== s;
	}

	/** Every token with an escape in it redacted (see the file's comment). Hot on large bodies: kept to plain loops. */
	private tokens(s: string): string {
		let np = s.indexOf('%');
		let na = s.indexOf('&');
		let nb = s.indexOf('\\');
		let nn = s.indexOf('\0');
		if (np < 0 && na < 0 && nb < 0 && nn < 0) return s;
		const delimiters = this.delimiters;
		const isDelimiter = (c: number) => c < 128 && delimiters[c] === 1;
		const parts: string[] = [];
		let copied = 0;
		let pos = 0;
		for (;;) {
			if (np >= 0 && np < pos) np = s.indexOf('%', pos);
			if (na >= 0 && na < pos) na = s.indexOf('&', pos);
			if (nb >= 0 && nb < pos) nb = s.indexOf('\\', pos);
			if (nn >= 0 && nn < pos) nn = s.indexOf('\0', pos);
			let i = np;
			if (na >= 0 && (i < 0 || na < i)) i = na;
			if (nb >= 0 && (i < 0 || nb < i)) i = nb;
			if (nn >= 0 && (i < 0 || nn < i)) i = nn;
			if (i < 0) break;
			// the token around i: back to the delimiter before it, on to the one after it (a short look first, then the expression)
			let a = i;
			while (a > pos && !isDelimiter(s.charCodeAt(a - 1))) a--;
			let b = i + 1;
			const near = Math.min(s.length, i + 64);
			while (b < near && !isDelimiter(s.charCodeAt(b))) b++;
			if (b === near && b < s.length) {
				this.delimiterRe.lastIndex = b;
				b = this.delimiterRe.exec(s)?.index ?? s.length;
			}
			pos = b;
			// no form is shorter than the shortest literal (decoding never lengthens a text)
			if (b - a < this.shortest) continue;
			// backslashes that end a token escape the delimiter after them (`\/`, `\"`): no form holds them
			let e = b;
			while (e > i && s.charCodeAt(e - 1) === 92) e--;
			if (!(
				(np >= 0 && np < e) ||
				(na >= 0 && na < e) ||
				(nb >= 0 && nb < e) ||
				(nn >= 0 && nn < e)
			))
				continue;
			const token = s.slice(a, b);
			const out = this.token(token);
			if (out !== token) {
				parts.push(s.slice(copied, a), out);
				copied = b;
			}
		}
		if (!parts.length) return s;
		parts.push(s.slice(copied));
		return parts.join('');
	}

	private token(t: string): string {
		const out = t.replace(this.re!, REDACTED);
		return this.holdsDecoded(out) ? REDACTED : out;
	}

	/** Whether some sequence of up to REDACTION_DEPTH layers (of any kinds) decodes `t` to a text holding a literal. */
	private holdsDecoded(t: string): boolean {
		let level = [t];
		const seen = new Set(level);
		for (let d = 0; d < REDACTION_DEPTH && level.length; d++) {
			const next: string[] = [];
			for (const u of level) {
				for (const kind of ESCAPE_KINDS) {
					if (!u.includes(ESCAPE_START[kind])) continue;
					const { text, changed } = decodeLayer(u, kind);
					if (!changed || seen.has(text)) continue;
					if (this.literals.some((l) => text.includes(l))) return true;
					seen.add(text);
					next.push(text);
				}
			}
			level = next;
		}
		return false;
	}

	/** A copy of any JSON-like value with every string (and object key) redacted; the value itself when nothing changes. */
	value<T>(v: T, depth = 0): T {
		if (!this.re) return v;
		if (typeof v === 'string') return this.text(v) as T;
		if (!v || typeof v !== 'object' || depth > 200) return v;
		if (Buffer.isBuffer(v) || ArrayBuffer.isView(v)) return v;
		if (Array.isArray(v)) {
			let out: unknown[] | undefined;
			v.forEach((x, i) => {
				const r = this.value(x, depth + 1);
				if (r !== x) (out ??= [...v])[i] = r;
			});
			return (out ?? v) as T;
		}
		if (Object.getPrototypeOf(v) !== Object.prototype && Object.getPrototypeOf(v) !== null)
			return v;
		let changed = false;
		const out: Record<string, unknown> = {};
		for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
			const rk = this.text(k);
			const rx = this.value(x, depth + 1);
			if (rk !== k || rx !== x) changed = true;
			out[rk] = rx;
		}
		return changed ? (out as T) : v;
	}

	/**
	 * The value JSON.parse made of `redactedText` (a text `text()` returned), redacted again where parsing can have
	 * made a form appear: a JSON escape turned into its character (`c2st\u0062…` into Base64 of the key). Without a
	 * backslash in the text every string of the value is a run of whole tokens of the text, redacted already.
	 */
	parsed<T>(redactedText: string, value: T): T {
		if (!this.re) return value;
		if (this.quoteDelimits && !redactedText.includes('\\')) return value;
		return this.value(value);
	}

	/**
	 * Where a tail begins at the end of `s` that may still become a form of a secret when more text follows (its
	 * index), or `s.length` when none can. Only the last token counts (a form holds no delimiter), and at most its
	 * last `streamBound` characters; the tail is decoded by every sequence of up to REDACTION_DEPTH layers (what
	 * follows an escape the end cuts short is not known yet: a layer stops there), each decoded character mapped back
	 * to `s`, and the tail begins where some decoding ends with the beginning of a secret or of its Base64, or with an
	 * escape the end cuts short (`%7`, `&#x7`, `\u00`, a lone `\`).
	 */
	holdStart(s: string): number {
		if (!this.re) return s.length;
		let a = s.length;
		const floor = Math.max(0, s.length - this.streamBound);
		while (a > floor && !this.isDelimiter(s.charCodeAt(a - 1))) a--;
		if (a === s.length) return s.length;
		let best = s.length;
		const region = s.slice(a);
		/** a decoding of the region: its known text (up to where a cut escape begins) and where each character comes from in s */
		type Node = { u: string; map?: number[] };
		let level: Node[] = [{ u: region }];
		for (let d = 0; level.length; d++) {
			const next: Node[] = [];
			for (const { u, map } of level) {
				const at = (i: number) => (map ? map[i] : a + i);
				let end = u.length;
				const layers: Layer[] = [];
				if (d < REDACTION_DEPTH) {
					const from =
						map ?? (ESCAPE_STARTS.some((c) => u.includes(c)) ? identity(a, s.length) : undefined);
					for (const kind of ESCAPE_KINDS) {
						if (!u.includes(ESCAPE_START[kind])) continue;
						const layer = decodeLayer(u, kind, { map: from, final: false });
						if (layer.incomplete >= 0) {
							end = Math.min(end, layer.incomplete);
							best = Math.min(best, at(layer.incomplete));
						}
						layers.push(layer);
					}
				}
				const k = this.partialAtEnd(u, end);
				if (k > 0) best = Math.min(best, at(end - k));
				for (const layer of layers) {
					// the next layer ends where this one's cut escape begins: what follows it there is not known yet
					const known = layer.incompleteAt >= 0 ? layer.incompleteAt : layer.text.length;
					if (!layer.changed && layer.incomplete < 0) continue;
					next.push({ u: layer.text.slice(0, known), map: layer.map!.slice(0, known) });
				}
			}
			level = next;
		}
		return best;
	}

	/** The length of the longest end of u[0..end) that is the beginning of a literal (a secret or a Base64 form). */
	private partialAtEnd(u: string, end: number): number {
		let best = 0;
		this.literals.forEach((p, n) => {
			if (p.length <= best) return;
			const f = this.failure[n];
			let k = 0;
			for (let i = Math.max(0, end - p.length); i < end; i++) {
				const c = u[i];
				while (k >= 0 && (k === p.length || p[k] !== c)) k = f[k];
				k++;
			}
			if (k > best) best = k;
		});
		return best;
	}

	/** A redactor for decoded text that arrives in pieces (strings in, strings out): see TextRedactionStream. */
	textStream(): TextRedactionStream {
		return new TextRedactionStream(this);
	}

	/** A chunk-by-chunk redactor for one body: bytes in the charset it declares (default UTF-8) or strings in, text out. */
	chunks(opts: { charset?: string } = {}): ChunkRedactor {
		return new ChunkRedactor(this, opts.charset);
	}

	/** A Transform for text bodies (SSE, JSON): bytes in the declared charset in, redacted UTF-8 out (see TextRedactionStream). */
	stream(opts: { charset?: string } = {}): Transform {
		return new RedactingStream(this.chunks(opts));
	}
}

function identity(from: number, to: number): number[] {
	const m = new Array<number>(to - from);
	for (let i = from; i < to; i++) m[i - from] = i;
	return m;
}

/**
 * A held tail longer than this is looked at again only once the text after it has grown by a quarter of its length
 * (or a delimiter ended it, or it would pass the bound): the cost of a stream stays linear in its length even when a
 * hostile stream keeps a long tail undecided and sends it a character at a time.
 */
const LONG_TAIL = 128;

/**
 * Redacts a text that arrives in pieces. Each write gives back everything that can no longer be part of a form of a
 * secret, redacted; a tail that may still become one (Redactor.holdStart) is held back until the next write, never
 * more than `bound` (= Redactor.streamBound) characters. The pieces given back, joined, are the whole text with no
 * form of a secret in it: the same as `text()` of the whole, or more redacted where a token was cut.
 */
export class TextRedactionStream {
	private carry = '';
	/** characters written since the held tail was last looked at, and the tail's length then */
	private fresh = 0;
	private looked = 0;

	constructor(private readonly redactor: Redactor) {}

	/** characters held back now */
	get pending(): number {
		return this.carry.length;
	}

	/** the most characters ever held back */
	get bound(): number {
		return this.redactor.streamBound;
	}

	write(s: string): string {
		if (!s) return '';
		this.carry += s;
		this.fresh += s.length;
		if (
			this.looked > LONG_TAIL &&
			this.fresh * 4 < this.looked &&
			this.carry.length <= this.bound &&
			!this.redactor.hasDelimiter(s)
		)
			return '';
		const clean = this.redactor.text(this.carry);
		const keep = this.redactor.holdStart(clean);
		this.carry = clean.slice(keep);
		this.looked = this.carry.length;
		this.fresh = 0;
		return keep === clean.length ? clean : clean.slice(0, keep);
	}

	end(): string {
		const rest = this.redactor.text(this.carry);
		this.carry = '';
		this.looked = this.fresh = 0;
		return rest;
	}
}

/** Redacts one body that arrives in chunks: bytes (decoded in the declared charset) or strings in, text out. */
export class ChunkRedactor {
	private readonly decoder: BodyDecoder;
	private readonly text: TextRedactionStream;

	constructor(redactor: Redactor, charset?: string) {
		this.decoder = new BodyDecoder(charset);
		this.text = redactor.textStream();
	}

	get pending(): number {
		return this.text.pending;
	}

	write(chunk: Buffer | string): string {
		return this.text.write(typeof chunk === 'string' ? chunk : this.decoder.write(chunk));
	}

	end(): string {
		return this.text.write(this.decoder.end()) + this.text.end();
	}

	/** The same, bytes in and UTF-8 bytes out (for GuardedBody's `map`). */
	asBytes(): { write(chunk: Buffer): Buffer | undefined; end(): Buffer | undefined } {
		const bytes = (s: string) => (s ? Buffer.from(s, 'utf8') : undefined);
		return { write: (c) => bytes(this.write(c)), end: () => bytes(this.end()) };
	}
}

class RedactingStream extends Transform {
	constructor(private readonly chunks: ChunkRedactor) {
		super();
	}

	override _transform(chunk: Buffer | string, _enc: BufferEncoding, done: TransformCallback): void {
		const out = this.chunks.write(chunk);
		if (out) this.push(Buffer.from(out, 'utf8'));
		done();
	}

	override _flush(done: TransformCallback): void {
		const rest = this.chunks.end();
		if (rest) this.push(Buffer.from(rest, 'utf8'));
		done();
	}
}

const cache = new Map<string, Redactor>();

/** A Redactor for these secrets (reused: building one compiles a regular expression). */
export function redactorFor(secrets: Array<string | undefined>): Redactor {
	const key = JSON.stringify(secrets.filter(Boolean));
	let r = cache.get(key);
	if (!r) {
		if (cache.size >= 32) cache.delete(cache.keys().next().value!);
		cache.set(key, (r = new Redactor(secrets)));
	}
	return r;
}

/** Every form of every secret in `text` replaced by `***`. */
export function redactSecrets(text: string, secrets: Array<string | undefined>): string {
	return redactorFor(secrets).text(text);
}
