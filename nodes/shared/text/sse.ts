/**
 * Reading a text/event-stream body: bytes → streaming UTF-8 decoder → lines (split here in one linear pass, each
 * line and event capped) → eventsource-parser (SSE fields and event boundaries, never network chunks) → an event
 * interpreter (chatStream.ts / responsesStream.ts). `pumpStream` (pump.ts) drives a parser from an HTTP body.
 */
import { createParser, type EventSourceMessage, type EventSourceParser } from 'eventsource-parser';
import { extractGatewayError } from '../errors';
import { mib } from '../transport/body';

/** Bounds of one SSE stream's lines and events, in characters. */
/** An SSE event and a readable body, as the stream readers take them (for code outside shared/, which keeps no runtime imports). */
export type { EventSourceMessage as SseEvent };

export interface SseLimits {
	/** the longest line (a `data:` line holds a whole JSON event); default 8 MiB */
	maxLineChars: number;
	/** the longest event (its lines together); default 16 MiB */
	maxEventChars: number;
}

export const DEFAULT_SSE_LIMITS: SseLimits = {
	maxLineChars: 8 * 1024 * 1024,
	maxEventChars: 16 * 1024 * 1024,
};

export type StreamErrorKind =
	/** the gateway sent an error event (or an error body) */
	| 'upstream'
	/** the stream ended or broke off before its completion marker */
	| 'incomplete'
	/** an event that is not the JSON it must be */
	| 'unreadable'
	/** nothing arrived for the idle timeout */
	| 'idle'
	/** the execution was cancelled */
	| 'cancelled';

/** The most of a failed answer's text an item keeps (characters): a failure's leftovers must not fill memory. */
export const MAX_PARTIAL_TEXT_CHARS = 1024 * 1024;

/** A text answer that cannot be used. Never a truncated answer: the partial text is kept apart, capped. */
export class StreamError extends Error {
	/** text received before the failure (not an answer), its first MAX_PARTIAL_TEXT_CHARS characters */
	public readonly partialText: string;
	/** how many characters had arrived (more than partialText holds when it was cut) */
	public readonly receivedChars: number;

	constructor(
		message: string,
		public readonly kind: StreamErrorKind = 'incomplete',
		partialText = '',
	) {
		super(message);
		this.name = 'StreamError';
		this.receivedChars = partialText.length;
		this.partialText =
			partialText.length > MAX_PARTIAL_TEXT_CHARS
				? partialText.slice(0, MAX_PARTIAL_TEXT_CHARS)
				: partialText;
	}
}

/** Interprets one SSE event; returns the text delta it adds (for forwarding), '' for none. Throws StreamError. */
export interface EventInterpreter {
	onEvent(e: EventSourceMessage, atEnd: boolean): string;
	/** true once the completion marker was read; later events are ignored */
	readonly finished: boolean;
	/** text received so far (for error messages) */
	readonly receivedText: string;
}

/** A byte-level stream parser: feed bytes as they arrive, then `end()`. */
export interface StreamParser {
	feed(chunk: Uint8Array | string): void;
	/** flushes; throws StreamError('incomplete') when the completion marker never came */
	end(): void;
	readonly finished: boolean;
	readonly receivedText: string;
	/** how the completion marker is called, for messages: `[DONE]`, `response.completed` */
	readonly marker: string;
}

/**
 * The byte → event layer shared by both parsers. Multi-byte UTF-8 characters split across chunks are
 * decoded by a streaming TextDecoder; comment and keep-alive lines (`: PING`) are dropped by the SSE parser.
 * Lines are split here, in time linear in the stream (a line without an end is kept as pieces, joined once),
 * and handed to eventsource-parser one by one; a line or an event past its limit ends the stream as unreadable.
 */
export class SseByteParser implements StreamParser {
	private readonly decoder = new TextDecoder('utf-8');
	private readonly sse: EventSourceParser;
	private readonly limits: SseLimits;
	private atEnd = false;
	private ended = false;
	private delta: (text: string) => void;
	/** pieces of the line not ended yet, and their length */
	private pending: string[] = [];
	private pendingChars = 0;
	/** the last chunk ended with CR: an LF at the start of the next one belongs to it */
	private lastCR = false;
	private eventChars = 0;

	constructor(
		private readonly interpreter: EventInterpreter,
		readonly marker: string,
		onDelta?: (text: string) => void,
		limits: Partial<SseLimits> = {},
	) {
		this.delta = onDelta ?? (() => {});
		this.limits = { ...DEFAULT_SSE_LIMITS, ...limits };
		this.sse = createParser({
			onEvent: (e) => {
				if (this.interpreter.finished) return;
				const d = this.interpreter.onEvent(e, this.atEnd);
				if (d) this.delta(d);
			},
			// unknown fields and bad `retry:` values are ignored, as EventSource does
		});
	}

	get finished(): boolean {
		return this.interpreter.finished;
	}

	get receivedText(): string {
		return this.interpreter.receivedText;
	}

	feed(chunk: Uint8Array | string): void {
		if (this.ended || this.interpreter.finished) return;
		const text = typeof chunk === 'string' ? chunk : this.decoder.decode(chunk, { stream: true });
		if (text) this.feedText(text);
	}

	end(): void {
		if (this.ended) return;
		this.ended = true;
		if (!this.interpreter.finished) {
			// A last event without its blank line (`data: [DONE]` at EOF) still counts; a half event at EOF is
			// judged by the interpreter with atEnd = true (unreadable JSON there means the stream was cut).
			this.atEnd = true;
			const rest = this.decoder.decode();
			if (rest) this.feedText(rest);
			if (this.pending.length && !this.interpreter.finished) this.line(this.takePending(''));
			if (!this.interpreter.finished) this.line('');
		}
		if (!this.interpreter.finished) {
			throw incompleteError(this, 'the stream ended');
		}
	}

	private feedText(text: string): void {
		const n = text.length;
		let start = 0;
		if (this.lastCR) {
			this.lastCR = false;
			if (text.charCodeAt(0) === 10) start = 1;
		}
		let lf = text.indexOf('\n', start);
		let cr = text.indexOf('\r', start);
		while (start < n) {
			if (lf !== -1 && lf < start) lf = text.indexOf('\n', start);
			if (cr !== -1 && cr < start) cr = text.indexOf('\r', start);
			const end = lf === -1 ? cr : cr === -1 ? lf : Math.min(lf, cr);
			if (end === -1) break;
			const piece = text.slice(start, end);
			this.line(this.pending.length ? this.takePending(piece) : this.checkLine(piece));
			start = end + 1;
			if (end === cr) {
				if (start < n) {
					if (text.charCodeAt(start) === 10) start++;
				} else this.lastCR = true;
			}
			if (this.interpreter.finished) return;
		}
		if (start < n) {
			const rest = start === 0 ? text : text.slice(start);
			this.pendingChars += rest.length;
			this.checkLine(undefined, this.pendingChars);
			this.pending.push(rest);
		}
	}

	private takePending(last: string): string {
		this.pending.push(last);
		const line = this.pending.join('');
		this.pending = [];
		this.pendingChars = 0;
		return this.checkLine(line);
	}

	private checkLine<T extends string | undefined>(line: T, chars = line?.length ?? 0): T {
		if (chars > this.limits.maxLineChars) {
			throw new StreamError(
				`the stream carried a line longer than ${mib(this.limits.maxLineChars)} (characters): the answer cannot be read`,
				'unreadable',
				this.receivedText,
			);
		}
		return line;
	}

	private line(line: string): void {
		if (line === '') {
			// a blank line ends an event; after another blank line (or at the start) there is nothing to end
			if (this.eventChars === 0) return;
			this.eventChars = 0;
			this.sse.feed('\n');
			return;
		}
		// a comment or keep-alive (`: PING`) is not part of any event
		if (line.charCodeAt(0) === 58) return;
		this.eventChars += line.length;
		if (this.eventChars > this.limits.maxEventChars) {
			throw new StreamError(
				`the stream carried an event longer than ${mib(this.limits.maxEventChars)} (characters): the answer cannot be read`,
				'unreadable',
				this.receivedText,
			);
		}
		this.sse.feed(line + '\n');
	}
}

/** Characters (code points) of a text, counted without copying it: a 64 MiB answer spread into an array took 1.4 GB. */
function codePoints(s: string): number {
	let n = s.length;
	for (let i = 0; i < s.length; i++) {
		const c = s.charCodeAt(i);
		if (c >= 0xdc00 && c <= 0xdfff) n--;
	}
	return n;
}

export function incompleteError(
	p: Pick<StreamParser, 'receivedText' | 'marker'>,
	what: string,
	kind: StreamErrorKind = 'incomplete',
): StreamError {
	const n = codePoints(p.receivedText);
	return new StreamError(
		`${what} before ${p.marker} after ${n} character${n === 1 ? '' : 's'} of text: the answer is incomplete and was not used`,
		kind,
		p.receivedText,
	);
}

/** Parses an event's data as a JSON object, or throws 'unreadable' (at the end of a cut stream: 'incomplete'). */
export function eventJson(
	e: EventSourceMessage,
	atEnd: boolean,
	p: Pick<StreamParser, 'receivedText' | 'marker'>,
): Record<string, unknown> {
	let json: unknown;
	try {
		json = JSON.parse(e.data);
	} catch {
		json = undefined;
	}
	if (json && typeof json === 'object' && !Array.isArray(json))
		return json as Record<string, unknown>;
	if (atEnd) throw incompleteError(p, 'the stream was cut inside an event');
	throw new StreamError(
		`the stream carried an event that is not a JSON object: ${JSON.stringify(e.data.slice(0, 80))}`,
		'unreadable',
		p.receivedText,
	);
}

/** An `event: error` whose data is not JSON: its text is the message. */
export function errorEventText(
	e: EventSourceMessage,
	receivedText: string,
): StreamError | undefined {
	if (e.event !== 'error') return undefined;
	try {
		const json = JSON.parse(e.data);
		if (json && typeof json === 'object' && !Array.isArray(json))
			return upstreamError(json as Record<string, unknown>, receivedText);
	} catch {
		// plain text
	}
	return new StreamError(
		`the gateway reported an error in the answer: ${e.data.trim().slice(0, 300) || '(no message)'}`,
		'upstream',
		receivedText,
	);
}

/** The message of an error event or error body (`{error:{message}}`, `{message}`, `{code}`). */
export function upstreamError(json: Record<string, unknown>, receivedText: string): StreamError {
	const ex = extractGatewayError(json, 200, '');
	const code = ex.code ? ` (${ex.code})` : '';
	const message =
		ex.message === 'HTTP 200 (empty body)' ? JSON.stringify(json).slice(0, 200) : ex.message;
	return new StreamError(
		`the gateway reported an error in the answer: ${message}${code}`,
		'upstream',
		receivedText,
	);
}
