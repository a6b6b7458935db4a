/**
 * Sends a chat-completions or responses request (plain or streamed) and returns the joined answer; the one
 * place both text nodes use. A POST is never resent: an outcome the transport calls uncertain becomes an
 * item marked `submission_uncertain`, never a throw (n8n's Retry On Fail would resend it and pay twice).
 */
import { NodeOperationError, type IDataObject, type IExecuteFunctions } from 'n8n-workflow';
import { Readable } from 'node:stream';
import { exitOf, type ChatOut } from '../exit';
import { completedItem, uncertainItem } from '../items/shapes';
import { alarm, type Alarm } from '../transport/clock';
import type { GatewayTransport } from '../transport';
import { ChatStreamParser, chatFromJson, type ChatResult, type ChatToolCall } from './chatStream';
import { ResponsesStreamParser, responsesFromJson, type ResponsesResult } from './responsesStream';
import { StreamError, pumpStream } from './sse';

export type TextKind = 'chat' | 'responses';

export const TEXT_PATHS: Record<TextKind, string> = {
	chat: '/v1/chat/completions',
	responses: '/v1/responses',
};

export interface TextOutcome {
	/** the reason, when the outcome of the POST is unknown */
	uncertain?: string;
	/** the gateway answered 2xx but the answer is unusable (a stream cut or ended by an error, no text): never thrown */
	failed?: { error: NodeOperationError; fields: IDataObject };
	text: string;
	finishReason: string | null;
	usage?: IDataObject;
	id?: string;
	model?: string;
	/** the answer arrived as an SSE stream */
	streamed: boolean;
	toolCalls?: ChatToolCall[];
	/** the whole answer (for a stream: joined into the shape of a non-streaming answer) */
	full?: IDataObject;
	/** Response Format JSON Schema: the answer's value once it validated */
	structured?: unknown;
	/** Response Format JSON Schema: what was wrong with the first answer, which got the one repair request */
	repair?: IDataObject;
	/** Response Format JSON Schema: why the answer did not validate (it gets the one repair request) */
	schemaErrors?: string[];
}

export interface SendOptions {
	/** longest gap between two chunks of a stream */
	idleMs: number;
	/** false: never forward the text to n8n's chat as it arrives (an answer still to be checked against a JSON Schema) */
	forward?: boolean;
	/** the whole streamed answer */
	maxDurationMs?: number;
}

export async function sendText(
	ctx: IExecuteFunctions,
	transport: GatewayTransport,
	kind: TextKind,
	body: Record<string, unknown>,
	itemIndex: number,
	opts: SendOptions,
): Promise<TextOutcome> {
	const path = TEXT_PATHS[kind];
	if (body.stream !== true) {
		const out = await transport.submit(path, { json: body }, { timeout: 'text' });
		if (out.kind === 'uncertain') return uncertain(out.reason, false);
		return answerError(ctx, itemIndex, () => fromJson(kind, out.body, false));
	}

	const res = await transport.postStream(path, body, {
		timeout: 'text',
		idleTimeoutMs: opts.idleMs,
		maxDurationMs: opts.maxDurationMs,
	});
	if ('kind' in res) return uncertain(res.reason, true);
	const forward = exitOf(ctx).chat(itemIndex, opts.forward !== false);

	if (!/^\s*text\/event-stream/i.test(res.contentType)) {
		// The gateway ignored `stream: true` and answered with one JSON body.
		let text: string;
		try {
			text = await readAll(res.body, opts.idleMs, transport.signal);
		} catch (err) {
			if (transport.signal?.aborted) throw err;
			// the gateway answered 2xx and the body broke off: it ran, so this is not a definite failure
			return uncertain(
				`HTTP ${res.status} answer (${res.contentType || 'no content type'}) broke off while reading: ${(err as Error).message}`,
				false,
			);
		}
		let json: unknown;
		try {
			// the text is redacted; what parsing decodes (JSON escapes) is redacted again
			json = transport.redactor.parsed(text, JSON.parse(text));
		} catch {
			json = undefined;
		}
		if (json === undefined && /^\s*(data|event|id):|^\s*:/.test(text)) {
			// an event stream under another content type (some proxies relabel it): read it as one
			return readStream(
				ctx,
				kind,
				Readable.from([text]),
				itemIndex,
				path,
				forward,
				opts.idleMs,
				transport.signal,
			);
		}
		if (!json || typeof json !== 'object' || Array.isArray(json)) {
			return uncertain(
				`asked for a stream; HTTP ${res.status} answered ${res.contentType || 'no content type'} that is neither an event stream nor a JSON object (${describe(text)})`,
				false,
			);
		}
		let outcome: TextOutcome;
		try {
			outcome = answerError(
				ctx,
				itemIndex,
				() => fromJson(kind, json as Record<string, unknown>, false),
				forward,
			);
		} finally {
			await forward.flush();
		}
		if (outcome.failed) return outcome;
		forward.item(outcome.text);
		forward.end();
		await forward.flush();
		return outcome;
	}

	return readStream(ctx, kind, res.body, itemIndex, path, forward, opts.idleMs, transport.signal);
}

async function readStream(
	ctx: IExecuteFunctions,
	kind: TextKind,
	body: Readable,
	itemIndex: number,
	path: string,
	forward: ChatOut,
	idleMs: number,
	signal?: AbortSignal,
): Promise<TextOutcome> {
	forward.begin();
	const onDelta = (t: string) => forward.item(t);
	const parser =
		kind === 'chat' ? new ChatStreamParser(onDelta) : new ResponsesStreamParser(onDelta);
	try {
		await pumpStream(body, parser, { idleMs, signal });
	} catch (err) {
		forward.error(err instanceof Error ? err.message : String(err));
		await forward.flush();
		if (!(err instanceof StreamError) || err.kind === 'cancelled' || signal?.aborted) throw err;
		return streamFailure(ctx, itemIndex, err, path);
	}
	forward.end();
	await forward.flush();
	if (parser instanceof ChatStreamParser)
		return chatOutcome(parser.result, true, parser.accumulator.toCompletion() as IDataObject);
	const r = parser.result;
	return responsesOutcome(r, true, r.response as IDataObject);
}

/** 5xx codes that say no model ever saw the request (no channel for it in the key's group). */
function uncertain(reason: string, streamed: boolean): TextOutcome {
	return { uncertain: reason, text: '', finishReason: null, streamed };
}

function fromJson(kind: TextKind, body: Record<string, unknown>, streamed: boolean): TextOutcome {
	if (kind === 'chat') return chatOutcome(chatFromJson(body), streamed, body as IDataObject);
	return responsesOutcome(responsesFromJson(body), streamed, body as IDataObject);
}

/** A chat answer (streamed or whole) as the item's outcome; `full` is the completion the item keeps. */
function chatOutcome(r: ChatResult, streamed: boolean, full: IDataObject): TextOutcome {
	return {
		text: r.content,
		finishReason: r.finishReason,
		usage: r.usage as IDataObject,
		id: r.id,
		model: r.model,
		streamed,
		toolCalls: r.toolCalls.length ? r.toolCalls : undefined,
		full,
	};
}

/** A responses answer (streamed or whole) as the item's outcome; `full` is the response the item keeps. */
function responsesOutcome(r: ResponsesResult, streamed: boolean, full: IDataObject): TextOutcome {
	return {
		text: r.text,
		finishReason: r.incompleteReason ?? r.status ?? null,
		usage: r.usage as IDataObject,
		id: r.id,
		model: r.model,
		streamed,
		full,
	};
}

/** An unusable JSON answer (error body, no choices) is a failed item with the gateway's message (it may be billed). */
function answerError(
	ctx: IExecuteFunctions,
	itemIndex: number,
	read: () => TextOutcome,
	forward?: ChatOut,
): TextOutcome {
	try {
		return read();
	} catch (err) {
		if (!(err instanceof StreamError)) throw err;
		forward?.error(err.message);
		const error = new NodeOperationError(ctx.getNode(), err.message, {
			itemIndex,
			description:
				'The gateway answered, but the answer holds no usable text. It was not resent; the call may be billed.',
		});
		return { failed: { error, fields: {} }, text: '', finishReason: null, streamed: false };
	}
}

/** A stream that failed after the gateway answered 2xx: a failed item (kept apart from any partial text), never a truncated answer. */
function streamFailure(
	ctx: IExecuteFunctions,
	itemIndex: number,
	err: StreamError,
	path: string,
): TextOutcome {
	const descriptions: Record<StreamError['kind'], string> = {
		upstream: `The gateway sent an error event in the stream (${err.message.replace(/^the gateway reported an error in the answer: /, '')}).`,
		incomplete: 'The stream stopped before its end marker, so the answer is incomplete.',
		unreadable:
			'The stream carried an event that could not be read, so the answer cannot be trusted.',
		idle: 'Raise "Stream Idle Timeout" if the model pauses for long, or check the gateway.',
		cancelled: 'The execution was stopped.',
	};
	const error = new NodeOperationError(ctx.getNode(), `POST ${path}: ${err.message}`, {
		itemIndex,
		description: `${descriptions[err.kind]} The request reached the gateway and may be billed; it was not resent.`,
	});
	const fields: IDataObject = { stream_error: err.kind };
	if (err.partialText) fields.partial_text = err.partialText;
	if (err.receivedChars > err.partialText.length) {
		fields.partial_text_cut = `kept the first ${err.partialText.length} of ${err.receivedChars} characters received`;
	}
	return { failed: { error, fields }, text: '', finishReason: null, streamed: true };
}

/** Reads a whole (small) body as UTF-8 with the idle timeout and the cancel signal. */
function readAll(body: Readable, idleMs: number, signal?: AbortSignal): Promise<string> {
	return new Promise((resolve, reject) => {
		const decoder = new TextDecoder('utf-8');
		let text = '';
		let timer: Alarm | undefined;
		let done = false;
		const finish = (err?: Error) => {
			if (done) return;
			done = true;
			timer?.stop();
			signal?.removeEventListener('abort', onAbort);
			if (err) {
				body.destroy();
				reject(err);
			} else resolve(text);
		};
		const arm = () => {
			if (timer) timer.reset();
			else
				timer = alarm(idleMs, () =>
					finish(new StreamError(`no data arrived for ${idleMs} ms`, 'idle')),
				);
		};
		const onAbort = () => finish(new StreamError('the execution was cancelled', 'cancelled'));
		if (signal?.aborted) return onAbort();
		signal?.addEventListener('abort', onAbort, { once: true });
		arm();
		body.on('data', (c: Buffer | string) => {
			arm();
			text += typeof c === 'string' ? c : decoder.decode(c, { stream: true });
		});
		body.on('end', () => {
			text += decoder.decode();
			finish();
		});
		body.on('error', (e: Error) => finish(e));
		body.on('close', () =>
			finish(new StreamError('the connection closed before the answer ended', 'incomplete')),
		);
	});
}

function describe(text: string): string {
	const t = text.trim();
	if (!t) return 'empty';
	if (t.startsWith('<')) return 'HTML';
	return `${Buffer.byteLength(t)} bytes`;
}

/** The output item for a text outcome: simplified (text, finish reason, usage) or the full answer. */
export function textItem(
	o: TextOutcome,
	simplify: boolean,
	ctx: { kind: TextKind; model: string },
): IDataObject {
	if (o.uncertain !== undefined) {
		return uncertainItem(
			{ endpoint: `POST ${TEXT_PATHS[ctx.kind]}`, model: ctx.model },
			o.uncertain,
		);
	}
	if (simplify || !o.full) {
		const simple: IDataObject = {
			text: o.text,
			finish_reason: o.finishReason ?? null,
			usage: o.usage ?? null,
			model: o.model ?? ctx.model,
			id: o.id ?? null,
			streamed: o.streamed,
		};
		if (o.toolCalls?.length) simple.tool_calls = o.toolCalls as unknown as IDataObject[];
		return completedItem(simple);
	}
	// the full answer, with the joined text beside it (the answer itself never carries a reliable top-level text);
	// a Responses answer's own `status` word moves to gateway_status
	const { status: gatewayStatus, ...full } = o.full as IDataObject;
	return completedItem({ ...full, text: o.text, streamed: o.streamed }, gatewayStatus);
}
