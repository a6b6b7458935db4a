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
import type { Transform } from 'node:stream';
import { ESCAPE_KINDS, ESCAPE_START, ESCAPE_STARTS, decodeLayer, type Layer } from './encodings';
import {
	ESCAPE_ALPHABET,
	NUL_FORM,
	REDACTION_DEPTH,
	base64Forms,
	charForms,
	failureTable,
	longestForm,
} from './redactForms';
import { ChunkRedactor, RedactingStream, TextRedactionStream } from './redactStream';

export const REDACTED = '***';

/** Secrets shorter than this are not redacted (they would match ordinary words). */
const MIN_SECRET_LENGTH = 4;

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
