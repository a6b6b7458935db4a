/**
 * The one text call: a chat-completions or responses POST, plain or streamed, read to its end — for every door that
 * pays for text (the Chat and Responses nodes, the Chat Model's turns). It sends once (the caller's paid send wraps
 * it: ../runners/send.ts) and reads every answer shape and label the gateway may send: an event stream; a whole JSON
 * answer to a streamed request (a gateway that ignores `stream: true`); an event stream a proxy relabelled with
 * another content type. What it returns says which of three things happened: the outcome is unknown (a 5xx, a cut, a
 * timeout: never sent again), the gateway answered 2xx but the answer is unusable (an error event, no end marker, no
 * choices), or the answer.
 */
import { Readable } from 'node:stream';
import type { GatewayTransport } from '../transport';
import {
	ChatStreamAccumulator,
	ChatStreamParser,
	chatFromJson,
	type ChatResult,
} from './chatStream';
import { ResponsesStreamParser, responsesFromJson, type ResponsesResult } from './responsesStream';
import { pumpStream } from './pump';
import { StreamError, type SseEvent } from './sse';

export type TextKind = 'chat' | 'responses';

export const TEXT_PATHS: Record<TextKind, string> = {
	chat: '/v1/chat/completions',
	responses: '/v1/responses',
};

type Json = Record<string, unknown>;

/** A usable answer, plain or streamed. */
export interface TextAnswer {
	/** the answer arrived as an event stream (a relabelled one included) */
	streamed: boolean;
	/** the whole answer: the JSON body, or a stream joined into the shape of a non-streaming answer */
	full: Json;
	/** chat: the answer read */
	chat?: ChatResult;
	/** responses: the answer read */
	responses?: ResponsesResult;
	/** chat streams: tool-call arguments a stream sent as objects (the parser joins only strings), by call position */
	objectArgs?: Array<Json | undefined>;
}

export type TextExchange =
	/** the outcome is unknown: it may have been billed, so it is never sent again */
	| { uncertain: string; status?: number; body?: unknown; streamed: boolean }
	/** the gateway answered 2xx, but the answer cannot be used (it may be billed) */
	| { failed: StreamError; streamed: boolean }
	| { answer: TextAnswer };

export interface ExchangeOptions {
	/** longest gap between two chunks of a stream (or of a whole answer to a streamed request) */
	idleMs: number;
	/** the whole streamed answer */
	maxDurationMs?: number;
	/** right before an event stream is read */
	onStreamStart?(): void;
	/** choice 0's text as each event arrives */
	onDelta?(text: string): void;
}

/** Sends one text request (`body.stream` says whether it asks for a stream) and reads its answer to the end. */
export async function exchangeText(
	transport: GatewayTransport,
	kind: TextKind,
	body: Json,
	o: ExchangeOptions,
): Promise<TextExchange> {
	const path = TEXT_PATHS[kind];
	if (body.stream !== true) {
		const out = await transport.submit(path, { json: body }, { timeout: 'text' });
		if (out.kind === 'uncertain')
			return { uncertain: out.reason, status: out.status, body: out.body, streamed: false };
		return readJson(kind, out.body);
	}
	const res = await transport.postStream(path, body, {
		timeout: 'text',
		idleTimeoutMs: o.idleMs,
		maxDurationMs: o.maxDurationMs,
	});
	if ('kind' in res)
		return { uncertain: res.reason, status: res.status, body: res.body, streamed: true };
	if (!res.whole) return readStream(kind, res.body, o, transport);

	// not labelled an event stream, read whole as the plain path reads it: a whole JSON answer (the gateway ignored
	// `stream: true`), or a relabelled stream
	const { json, text } = res.whole;
	if (json === undefined && /^\s*(data|event|id):|^\s*:/.test(text))
		return readStream(kind, Readable.from([text]), o, transport);
	if (!json || typeof json !== 'object' || Array.isArray(json)) {
		return {
			uncertain:
				`asked for a stream; HTTP ${res.status} answered ` +
				`${res.contentType || 'no content type'} that is neither an event stream nor a ` +
				`JSON object (${describe(text)})`,
			streamed: false,
		};
	}
	return readJson(kind, json as Json);
}

/** A whole JSON answer; an error body or one without choices is a failed answer. */
function readJson(kind: TextKind, json: Json): TextExchange {
	try {
		return kind === 'chat'
			? { answer: { streamed: false, full: json, chat: chatFromJson(json) } }
			: { answer: { streamed: false, full: json, responses: responsesFromJson(json) } };
	} catch (err) {
		if (err instanceof StreamError) return { failed: err, streamed: false };
		throw err;
	}
}

/** An event stream, read to its end marker within its bounds; a cancellation is thrown, never an answer. */
async function readStream(
	kind: TextKind,
	body: Readable,
	o: ExchangeOptions,
	transport: GatewayTransport,
): Promise<TextExchange> {
	o.onStreamStart?.();
	const signal = transport.signal;
	const onDelta = (t: string) => o.onDelta?.(t);
	const args = new ObjectArgsAccumulator();
	const parser =
		kind === 'chat' ? new ChatStreamParser(onDelta, args) : new ResponsesStreamParser(onDelta);
	try {
		await pumpStream(body, parser, { idleMs: o.idleMs, signal });
	} catch (err) {
		if (!(err instanceof StreamError) || err.kind === 'cancelled' || signal?.aborted) throw err;
		return { failed: err, streamed: true };
	}
	if (parser instanceof ChatStreamParser) {
		const chat = parser.result;
		return {
			answer: {
				streamed: true,
				full: parser.accumulator.toCompletion(),
				chat,
				objectArgs: chat.toolCalls.map((c, i) =>
					c.function.arguments ? undefined : args.objectArgs.get(args.indexAt(i) ?? -1),
				),
			},
		};
	}
	const responses = parser.result;
	return { answer: { streamed: true, full: responses.response as Json, responses } };
}

/** Records tool-call `arguments` a stream sent as objects (the shared parser joins only strings), by call index. */
class ObjectArgsAccumulator extends ChatStreamAccumulator {
	readonly objectArgs = new Map<number, Json>();
	private readonly indices = new Set<number>();
	override onEvent(e: SseEvent, atEnd: boolean): string {
		const delta = super.onEvent(e, atEnd);
		if (e.data.includes('"tool_calls"')) {
			try {
				const json = JSON.parse(e.data) as Json;
				const choice = ((json.choices as Json[] | undefined) ?? [])[0] ?? {};
				const calls = ((choice.delta as Json | undefined)?.tool_calls as Json[] | undefined) ?? [];
				calls.forEach((c, pos) => {
					const index = typeof c?.index === 'number' ? c.index : pos;
					this.indices.add(index);
					const args = (c?.function as Json | undefined)?.arguments;
					if (args && typeof args === 'object' && !Array.isArray(args))
						this.objectArgs.set(index, {
							...(this.objectArgs.get(index) ?? {}),
							...(args as Json),
						});
				});
			} catch {
				// the parser above already judged the event
			}
		}
		return delta;
	}
	/** the call index of the i-th tool call of the result (the result lists them in index order) */
	indexAt(i: number): number | undefined {
		return [...this.indices].sort((a, b) => a - b)[i];
	}
}

function describe(text: string): string {
	const t = text.trim();
	if (!t) return 'empty';
	if (t.startsWith('<')) return 'HTML';
	return `${Buffer.byteLength(t)} bytes`;
}
