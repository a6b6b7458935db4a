/**
 * Text bodies read in the charset they declare. `charset=` of the Content-Type picks the decoder (UTF-8 when there is
 * none or it is unknown); a byte order mark at the start of the body decides over it (EF BB BF UTF-8, FF FE UTF-16LE,
 * FE FF UTF-16BE) and is not part of the text. `utf-16` without a mark is read as little-endian unless its first byte
 * is NUL and its second is not (big-endian ASCII). `iso-8859-1` / `latin1` / `us-ascii` are read byte for byte,
 * `windows-1252` byte for byte with its characters at 0x80–0x9F (Node 20's TextDecoder reads it as Latin-1), any
 * other label Node's TextDecoder knows with that decoder.
 */

/** Node's global TextDecoder, as far as this module uses it. */
type Decoder = { decode(input?: Uint8Array, options?: { stream?: boolean }): string };

export type Encoding =
	'utf-8' | 'utf-16le' | 'utf-16be' | 'latin1' | 'windows-1252' | { label: string };

/** The charset parameter of a Content-Type, lower-case, without quotes; undefined when there is none. */
export function charsetOf(contentType: string | undefined): string | undefined {
	const m = /;\s*charset\s*=\s*("?)([^";\s]+)\1/i.exec(contentType ?? '');
	return m ? m[2].toLowerCase() : undefined;
}

const UTF8 = new Set(['utf-8', 'utf8', 'unicode-1-1-utf-8']);
const CP1252 = new Set(['windows-1252', 'cp1252', 'x-cp1252']);
const LATIN1 = new Set([
	'iso-8859-1',
	'iso8859-1',
	'latin1',
	'l1',
	'iso_8859-1',
	'us-ascii',
	'ascii',
	'iso-ir-100',
	'cp819',
	'ibm819',
]);

/** The decoder for a declared charset (before any byte order mark is seen). */
function declared(charset: string | undefined): Encoding | 'utf-16' {
	if (!charset || UTF8.has(charset)) return 'utf-8';
	if (charset === 'utf-16le' || charset === 'utf-16be') return charset;
	if (charset === 'utf-16' || charset === 'ucs-2' || charset === 'unicode') return 'utf-16';
	if (LATIN1.has(charset)) return 'latin1';
	if (CP1252.has(charset)) return 'windows-1252';
	try {
		new TextDecoder(charset);
		return { label: charset };
	} catch {
		return 'utf-8';
	}
}

/**
 * How the body that starts with `head` is read: the encoding and how many bytes of mark to skip. `undefined` while
 * `head` is too short to tell (a stream's first bytes; pass `final` at its end).
 */
export function sniff(
	head: Uint8Array,
	charset: string | undefined,
	final = true,
): { encoding: Encoding; skip: number } | undefined {
	if (head.length === 0 && !final) return undefined;
	const [a, b, c] = head;
	if (a === 0xef && (head.length < 2 || b === 0xbb) && (head.length < 3 || c === 0xbf)) {
		if (head.length >= 3) return { encoding: 'utf-8', skip: 3 };
		if (!final) return undefined;
	} else if (a === 0xff && (head.length < 2 || b === 0xfe)) {
		if (head.length >= 2) return { encoding: 'utf-16le', skip: 2 };
		if (!final) return undefined;
	} else if (a === 0xfe && (head.length < 2 || b === 0xff)) {
		if (head.length >= 2) return { encoding: 'utf-16be', skip: 2 };
		if (!final) return undefined;
	}
	const d = declared(charset);
	if (d !== 'utf-16') return { encoding: d, skip: 0 };
	if (head.length < 2 && !final) return undefined;
	return { encoding: a === 0 && b !== 0 && head.length >= 2 ? 'utf-16be' : 'utf-16le', skip: 0 };
}

/**
 * windows-1252's characters at 0x80–0x9F (where it differs from Latin-1; the five it leaves undefined stay as they
 * are).
 */
const CP1252_HIGH =
	'\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f' +
	'\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';
const cp1252 = (b: Buffer) =>
	b.toString('latin1').replace(/[\x80-\x9f]/g, (c) => CP1252_HIGH[c.charCodeAt(0) - 0x80]);

function decoderFor(e: Encoding): Decoder {
	return new TextDecoder(typeof e === 'string' ? e : e.label, { ignoreBOM: true });
}

/** A whole body as text, in the charset its Content-Type declares (a byte order mark decides). */
export function decodeBody(
	bytes: Buffer,
	contentType: string | undefined,
): { text: string; encoding: Encoding } {
	const { encoding, skip } = sniff(bytes, charsetOf(contentType))!;
	const body = skip ? bytes.subarray(skip) : bytes;
	if (encoding === 'utf-8') return { text: body.toString('utf8'), encoding };
	if (encoding === 'latin1') return { text: body.toString('latin1'), encoding };
	if (encoding === 'windows-1252') return { text: cp1252(body), encoding };
	if (encoding === 'utf-16le') return { text: body.toString('utf16le'), encoding };
	if (encoding === 'utf-16be') {
		const even = Buffer.from(body.subarray(0, body.length & ~1));
		return { text: even.swap16().toString('utf16le'), encoding };
	}
	return { text: decoderFor(encoding).decode(body), encoding };
}

/** A body that arrives in chunks, decoded as it comes (characters split across chunks are joined). */
export class BodyDecoder {
	private head: Buffer | undefined = Buffer.alloc(0);
	private decoder?: Decoder;
	/** a charset of one byte per character: no decoder state */
	private bytewise?: (b: Buffer) => string;
	encoding?: Encoding;

	constructor(private readonly charset: string | undefined) {}

	write(chunk: Buffer): string {
		if (this.head) {
			const head = Buffer.concat([this.head, chunk]);
			const s = sniff(head, this.charset, false);
			if (!s) {
				this.head = head;
				return '';
			}
			this.start(s.encoding);
			this.head = undefined;
			return this.decode(head.subarray(s.skip), true);
		}
		return this.decode(chunk, true);
	}

	end(): string {
		if (this.head) {
			const s = sniff(this.head, this.charset, true)!;
			this.start(s.encoding);
			const rest = this.head.subarray(s.skip);
			this.head = undefined;
			return this.decode(rest, false);
		}
		return this.decode(Buffer.alloc(0), false);
	}

	private start(e: Encoding): void {
		this.encoding = e;
		if (e === 'latin1') this.bytewise = (b) => b.toString('latin1');
		else if (e === 'windows-1252') this.bytewise = cp1252;
		else this.decoder = decoderFor(e);
	}

	private decode(b: Buffer, stream: boolean): string {
		if (this.bytewise) return this.bytewise(b);
		return this.decoder!.decode(b, { stream });
	}
}
