/**
 * The one redaction of credential secrets. A secret is found in the forms it realistically takes in an answer:
 * raw (also inside `Bearer <key>`), percent-encoded (any hex case, whole or in part, as in an echoed URL or form
 * body) and JSON-escaped (`\/`, `\"`, `\\`, `\u002d`, also escaped twice, as in a JSON string inside a JSON
 * string), in any mix. Each form is replaced by `***`.
 */
import { Transform, type TransformCallback } from 'node:stream';

export const REDACTED = '***';

/** Secrets shorter than this are not redacted (they would match ordinary words). */
const MIN_SECRET_LENGTH = 4;

const hex2 = (n: number) => n.toString(16).padStart(2, '0');
/** A hex digit in either case, as a regex character class. */
const hexClass = (d: string) => (/[a-f]/i.test(d) ? `[${d.toLowerCase()}${d.toUpperCase()}]` : d);
const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
/** Characters JSON may write as a backslash followed by the character itself. */
const JSON_SELF_ESCAPED = new Set(['"', '\\', '/']);

/** The alternatives one character of a secret may appear as (regex source). */
function charToken(ch: string): string {
	const forms = [escapeRe(ch)];
	const bytes = Buffer.from(ch, 'utf8');
	forms.push([...bytes].map((b) => '%' + [...hex2(b)].map(hexClass).join('')).join(''));
	const code = ch.codePointAt(0)!;
	if (code <= 0xffff) forms.push('\\\\+u' + [...code.toString(16).padStart(4, '0')].map(hexClass).join(''));
	if (JSON_SELF_ESCAPED.has(ch)) forms.push('\\\\+' + escapeRe(ch));
	return `(?:${forms.join('|')})`;
}

/** The longest text one character can be written as: `\\\\u00xx` (a few backslashes deep) or 4 UTF-8 bytes percent-encoded. */
const MAX_TOKEN_LENGTH = 12;

/**
 * The parts of a secret's Base64 that do not depend on what surrounds it, for each of the three alignments it can
 * sit at inside a longer Base64 text (as in `Basic base64(user:key)` or a Base64 blob), in the standard and the URL
 * alphabet. Too short a part would match ordinary text, so only parts of 8 characters or more are kept.
 */
function base64Forms(secret: string): string[] {
	const bytes = Buffer.from(secret, 'utf8');
	const forms = new Set<string>();
	for (let k = 0; k < 3; k++) {
		const b = Buffer.concat([Buffer.alloc(k), bytes]).toString('base64');
		const part = b.slice(Math.ceil((k * 8) / 6), Math.floor(((k + bytes.length) * 8) / 6));
		if (part.length >= 8) {
			forms.add(part);
			forms.add(part.replace(/\+/g, '-').replace(/\//g, '_'));
		}
	}
	return [...forms];
}

/** Every encoded form of a character starts with '%' or '\\': a text with neither can only hold raw forms. */
const onlyRawForms = (s: string) => !s.includes('%') && !s.includes('\\');

export class Redactor {
	private readonly re?: RegExp;
	private readonly secrets: string[];
	/** the Base64 forms of the secrets (see base64Forms) */
	private readonly b64: string[];
	/** the longest text a secret can be written as: the part of a stream that is held back */
	readonly maxMatchLength: number;

	constructor(secrets: Array<string | undefined>) {
		this.secrets = [...new Set(secrets.filter((s): s is string => typeof s === 'string' && s.length >= MIN_SECRET_LENGTH))].sort((a, b) => b.length - a.length);
		this.maxMatchLength = Math.max(0, ...this.secrets.map((s) => [...s].length * MAX_TOKEN_LENGTH));
		if (this.secrets.length) this.re = new RegExp(this.secrets.map((s) => [...s].map(charToken).join('')).join('|'), 'g');
		this.b64 = [...new Set(this.secrets.flatMap(base64Forms))].sort((a, b) => b.length - a.length);
	}

	private withoutBase64(s: string): string {
		let out = s;
		for (const form of this.b64) if (out.includes(form)) out = out.split(form).join(REDACTED);
		return out;
	}

	get active(): boolean {
		return this.re !== undefined;
	}

	/** The text with every form of every secret replaced. */
	text(s: string): string {
		if (!this.re || s.length < MIN_SECRET_LENGTH) return s;
		if (onlyRawForms(s)) {
			// without '%' or '\\' only the raw and Base64 forms can be there: plain substring search, far faster on large bodies
			let out = s;
			for (const secret of this.secrets) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
			return this.withoutBase64(out);
		}
		this.re.lastIndex = 0;
		return this.withoutBase64(this.re.test(s) ? s.replace(this.re, REDACTED) : s);
	}

	/** Whether the text holds a secret in any form. */
	contains(s: string): boolean {
		if (!this.re) return false;
		if (this.b64.some((form) => s.includes(form))) return true;
		if (onlyRawForms(s)) return this.secrets.some((secret) => s.includes(secret));
		this.re.lastIndex = 0;
		return this.re.test(s);
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
		if (Object.getPrototypeOf(v) !== Object.prototype && Object.getPrototypeOf(v) !== null) return v;
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
	 * A Transform for UTF-8 text streams (SSE, JSON): redacted text out. Whatever may be the start of a secret
	 * split across chunks is held back until the next chunk (at most `maxMatchLength` characters); everything else
	 * passes at once, so an event that ends its chunk is never delayed.
	 */
	stream(): Transform {
		return new RedactingStream(this);
	}

	/** A chunk-by-chunk redactor for one text stream. */
	chunks(): ChunkRedactor {
		return new ChunkRedactor(this);
	}

	/**
	 * Where a possibly incomplete secret starts at the end of `s` (its index), or `s.length` when the end of `s`
	 * cannot be the beginning of one.
	 */
	partialStart(s: string): number {
		if (!this.re) return s.length;
		for (let p = Math.max(0, s.length - this.maxMatchLength + 1); p < s.length; p++) {
			for (const secret of this.secrets) if (isPrefixOfForm(s, p, secret)) return p;
			const tail = s.slice(p);
			if (tail.length < (this.b64[0]?.length ?? 0) && this.b64.some((form) => form.startsWith(tail))) return p;
		}
		return s.length;
	}
}

/** Whether s[p..] (to its end) is the beginning of some written form of `secret`. */
function isPrefixOfForm(s: string, p: number, secret: string): boolean {
	let i = p;
	for (const ch of secret) {
		if (i >= s.length) return true;
		const next = consumeChar(s, i, ch);
		if (next === -1) return false;
		if (next === Infinity) return true;
		i = next;
	}
	// a whole secret here would have been replaced already
	return false;
}

/**
 * Consumes one written form of `ch` at s[i]: the index after it, -1 when none fits, Infinity when s ends
 * inside a form that still fits.
 */
function consumeChar(s: string, i: number, ch: string): number {
	const lit = s.startsWith(ch, i);
	if (lit) return i + ch.length;
	if (s.length - i < ch.length && ch.startsWith(s.slice(i))) return Infinity;
	const pct = [...Buffer.from(ch, 'utf8')].map((b) => '%' + hex2(b)).join('');
	const tail = s.slice(i, i + pct.length).toLowerCase();
	if (tail === pct) return i + pct.length;
	if (tail.length < pct.length && pct.startsWith(tail)) return Infinity;
	if (s[i] === '\\') {
		let j = i;
		while (j < s.length && s[j] === '\\') j++;
		if (j >= s.length) return Infinity;
		const code = ch.codePointAt(0)!;
		const u = code <= 0xffff ? 'u' + code.toString(16).padStart(4, '0') : undefined;
		const rest = s.slice(j, j + 5).toLowerCase();
		if (u && rest === u) return j + 5;
		if (u && rest.length < 5 && u.startsWith(rest)) return Infinity;
		if (JSON_SELF_ESCAPED.has(ch) && s[j] === ch) return j + 1;
	}
	return -1;
}

/**
 * Redacts a UTF-8 text that arrives in chunks. Whatever may be the start of a secret split across chunks is held
 * back (at most `maxMatchLength` characters) until the next chunk; everything else comes out at once.
 */
export class ChunkRedactor {
	private readonly decoder = new TextDecoder('utf-8');
	private carry = '';

	constructor(private readonly redactor: Redactor) {}

	write(chunk: Buffer | string): string {
		const text = this.carry + (typeof chunk === 'string' ? chunk : this.decoder.decode(chunk, { stream: true }));
		const clean = this.redactor.text(text);
		const keep = this.redactor.partialStart(clean);
		this.carry = clean.slice(keep);
		return keep === clean.length ? clean : clean.slice(0, keep);
	}

	end(): string {
		const rest = this.redactor.text(this.carry + this.decoder.decode());
		this.carry = '';
		return rest;
	}

	/** The same, bytes in and out (for GuardedBody's `map`). */
	asBytes(): { write(chunk: Buffer): Buffer | undefined; end(): Buffer | undefined } {
		const bytes = (s: string) => (s ? Buffer.from(s, 'utf8') : undefined);
		return { write: (c) => bytes(this.write(c)), end: () => bytes(this.end()) };
	}
}

class RedactingStream extends Transform {
	private readonly chunks: ChunkRedactor;

	constructor(redactor: Redactor) {
		super();
		this.chunks = new ChunkRedactor(redactor);
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
