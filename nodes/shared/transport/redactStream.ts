/**
 * The redaction of a text that arrives in pieces (streams, chunked bodies): a held-back tail that may still become a
 * form of a secret, never longer than the redactor's stream bound. The redactor itself: redact.ts.
 */
import { Transform, type TransformCallback } from 'node:stream';
import { BodyDecoder } from './charset';

/** What the streams ask of the redactor (redact.ts's Redactor). */
interface StreamRedactor {
	text(s: string): string;
	holdStart(s: string): number;
	hasDelimiter(s: string): boolean;
	readonly streamBound: number;
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

	constructor(private readonly redactor: StreamRedactor) {}

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

	constructor(redactor: StreamRedactor, charset?: string) {
		this.decoder = new BodyDecoder(charset);
		this.text = new TextRedactionStream(redactor);
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

export class RedactingStream extends Transform {
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
