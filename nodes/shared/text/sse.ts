/**
 * Reading a text/event-stream body: bytes → streaming UTF-8 decoder → eventsource-parser (SSE event
 * boundaries, never network chunks) → an event interpreter (chatStream.ts / responsesStream.ts).
 * `pumpStream` drives a parser from an HTTP body with an idle timeout and the execution cancel signal.
 */
import { createParser, type EventSourceMessage, type EventSourceParser } from 'eventsource-parser';
import type { Readable } from 'node:stream';
import { extractGatewayError } from '../errors';

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

/** A text answer that cannot be used. Never a truncated answer: the partial text is kept apart. */
export class StreamError extends Error {
	constructor(
		message: string,
		public readonly kind: StreamErrorKind = 'incomplete',
		/** text received before the failure (not an answer) */
		public readonly partialText = '',
	) {
		super(message);
		this.name = 'StreamError';
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
 */
export class SseByteParser implements StreamParser {
	private readonly decoder = new TextDecoder('utf-8');
	private readonly sse: EventSourceParser;
	private atEnd = false;
	private ended = false;
	private delta: (text: string) => void;

	constructor(
		private readonly interpreter: EventInterpreter,
		readonly marker: string,
		onDelta?: (text: string) => void,
	) {
		this.delta = onDelta ?? (() => {});
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
		if (text) this.sse.feed(text);
	}

	end(): void {
		if (this.ended) return;
		this.ended = true;
		if (!this.interpreter.finished) {
			// A last event without its blank line (`data: [DONE]` at EOF) still counts; a half event at EOF is
			// judged by the interpreter with atEnd = true (unreadable JSON there means the stream was cut).
			this.atEnd = true;
			this.sse.feed(this.decoder.decode() + '\n\n');
		}
		if (!this.interpreter.finished) {
			throw incompleteError(this, 'the stream ended');
		}
	}
}

export function incompleteError(p: Pick<StreamParser, 'receivedText' | 'marker'>, what: string, kind: StreamErrorKind = 'incomplete'): StreamError {
	const n = [...p.receivedText].length;
	return new StreamError(`${what} before ${p.marker} after ${n} character${n === 1 ? '' : 's'} of text: the answer is incomplete and was not used`, kind, p.receivedText);
}

/** Parses an event's data as a JSON object, or throws 'unreadable' (at the end of a cut stream: 'incomplete'). */
export function eventJson(e: EventSourceMessage, atEnd: boolean, p: Pick<StreamParser, 'receivedText' | 'marker'>): Record<string, unknown> {
	let json: unknown;
	try {
		json = JSON.parse(e.data);
	} catch {
		json = undefined;
	}
	if (json && typeof json === 'object' && !Array.isArray(json)) return json as Record<string, unknown>;
	if (atEnd) throw incompleteError(p, 'the stream was cut inside an event');
	throw new StreamError(`the stream carried an event that is not a JSON object: ${JSON.stringify(e.data.slice(0, 80))}`, 'unreadable', p.receivedText);
}

/** An `event: error` whose data is not JSON: its text is the message. */
export function errorEventText(e: EventSourceMessage, receivedText: string): StreamError | undefined {
	if (e.event !== 'error') return undefined;
	try {
		const json = JSON.parse(e.data);
		if (json && typeof json === 'object' && !Array.isArray(json)) return upstreamError(json as Record<string, unknown>, receivedText);
	} catch {
		// plain text
	}
	return new StreamError(`the gateway reported an error in the answer: ${e.data.trim().slice(0, 300) || '(no message)'}`, 'upstream', receivedText);
}

/** The message of an error event or error body (`{error:{message}}`, `{message}`, `{code}`). */
export function upstreamError(json: Record<string, unknown>, receivedText: string): StreamError {
	const ex = extractGatewayError(json, 200, '');
	const code = ex.code ? ` (${ex.code})` : '';
	const message = ex.message === 'HTTP 200 (empty body)' ? JSON.stringify(json).slice(0, 200) : ex.message;
	return new StreamError(`the gateway reported an error in the answer: ${message}${code}`, 'upstream', receivedText);
}

/**
 * Reads `body` into `parser` until its completion marker or the end of the body. Rejects with a
 * StreamError on an error event, a cut stream, `idleMs` without a byte, or the cancel signal.
 */
export function pumpStream(body: Readable, parser: StreamParser, opts: { idleMs: number; signal?: AbortSignal }): Promise<void> {
	return new Promise((resolve, reject) => {
		let settled = false;
		let idle: NodeJS.Timeout | undefined;
		const finish = (err?: Error) => {
			if (settled) return;
			settled = true;
			if (idle) clearTimeout(idle);
			opts.signal?.removeEventListener('abort', onAbort);
			body.off('data', onData);
			// after the completion marker the rest of the body is not needed; on an error the connection is dropped
			if (err || !body.readableEnded) body.destroy();
			if (err) reject(err);
			else resolve();
		};
		const seconds = (ms: number) => (ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`);
		const armIdle = () => {
			if (idle) clearTimeout(idle);
			idle = setTimeout(() => finish(incompleteError(parser, `no data arrived for ${seconds(opts.idleMs)} (stream idle timeout)`, 'idle')), opts.idleMs);
		};
		const onAbort = () => finish(new StreamError('the execution was cancelled while the answer was streaming', 'cancelled', parser.receivedText));
		const onData = (chunk: Buffer | string) => {
			if (settled) return;
			armIdle();
			try {
				parser.feed(chunk);
			} catch (err) {
				return finish(err as Error);
			}
			if (parser.finished) finish();
		};
		if (opts.signal?.aborted) return onAbort();
		opts.signal?.addEventListener('abort', onAbort, { once: true });
		armIdle();
		body.on('data', onData);
		body.once('end', () => {
			if (settled) return;
			try {
				parser.end();
			} catch (err) {
				return finish(err as Error);
			}
			finish();
		});
		body.on('error', (err: Error & { code?: string }) => {
			if (settled) return;
			if (opts.signal?.aborted) return onAbort();
			if (err.code === 'UND_ERR_BODY_TIMEOUT') return finish(incompleteError(parser, `no data arrived for ${seconds(opts.idleMs)} (stream idle timeout)`, 'idle'));
			finish(incompleteError(parser, `the stream broke off (${err.message})`));
		});
		body.once('close', () => {
			if (!settled) finish(incompleteError(parser, 'the connection closed'));
		});
	});
}

/**
 * Reads a body by SSE events, calling `onEvent` for each; `'stop'` ends reading. Kept for callers that
 * interpret events themselves (bench); nodes use a StreamParser with `pumpStream`.
 */
export async function readSse(body: Readable, onEvent: (e: EventSourceMessage) => void | 'stop', idleMs: number, signal?: AbortSignal): Promise<{ stopped: boolean }> {
	let stopped = false;
	const parser = new SseByteParser(
		{
			get finished() {
				return stopped;
			},
			receivedText: '',
			onEvent(e) {
				if (onEvent(e) === 'stop') stopped = true;
				return '';
			},
		},
		'the end of the stream',
	);
	// a plain reader: the end of the body is a normal end, not an incomplete answer
	const lenient: StreamParser = {
		feed: (c) => parser.feed(c),
		end: () => {
			try {
				parser.end();
			} catch (err) {
				if (!(err instanceof StreamError) || err.kind !== 'incomplete') throw err;
			}
		},
		get finished() {
			return parser.finished;
		},
		receivedText: '',
		marker: parser.marker,
	};
	await pumpStream(body, lenient, { idleMs, signal });
	return { stopped };
}
