/**
 * Sends a chat-completions or responses request (plain or streamed) and returns the joined answer; the one
 * place both text nodes use. A POST is never resent: an outcome the transport calls uncertain becomes an
 * item marked `submission_uncertain`, never a throw (n8n's Retry On Fail would resend it and pay twice).
 */
import { NodeOperationError, type IDataObject, type IExecuteFunctions } from 'n8n-workflow';
import { exitOf } from '../exit';
import { completedItem, uncertainItem } from '../items/shapes';
import type { GatewayTransport } from '../transport';
import type { ChatResult, ChatToolCall } from './chatStream';
import { exchangeText, TEXT_PATHS, type TextKind } from './exchange';
import type { ResponsesResult } from './responsesStream';
import type { StreamError } from './sse';

export { TEXT_PATHS, type TextKind } from './exchange';

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
	/**
	 * An answer with a repair request: the usage of each request that left (the first, the repair), undefined where
	 * it is not known; the gateway charges each on its own, so the record prices each on its own
	 */
	requestUsages?: Array<IDataObject | undefined>;
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
	// a streamed answer goes to n8n's chat as it arrives (unless it is still to be checked)
	const forward =
		body.stream === true ? exitOf(ctx).chat(itemIndex, opts.forward !== false) : undefined;
	const x = await exchangeText(transport, kind, body, {
		idleMs: opts.idleMs,
		maxDurationMs: opts.maxDurationMs,
		onStreamStart: () => forward?.begin(),
		onDelta: (t) => forward?.item(t),
	});
	if ('uncertain' in x) return uncertain(x.uncertain, x.streamed);
	if ('failed' in x) {
		forward?.error(x.failed.message);
		await forward?.flush();
		return x.streamed
			? streamFailure(ctx, itemIndex, x.failed, TEXT_PATHS[kind])
			: answerFailure(ctx, itemIndex, x.failed);
	}
	const a = x.answer;
	const outcome = a.chat
		? chatOutcome(a.chat, a.streamed, a.full as IDataObject)
		: responsesOutcome(a.responses!, a.streamed, a.full as IDataObject);
	if (forward) {
		// a whole answer to a streamed request goes to the chat at once
		if (!a.streamed) forward.item(outcome.text);
		forward.end();
		await forward.flush();
	}
	return outcome;
}

/** 5xx codes that say no model ever saw the request (no channel for it in the key's group). */
function uncertain(reason: string, streamed: boolean): TextOutcome {
	return { uncertain: reason, text: '', finishReason: null, streamed };
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
function answerFailure(ctx: IExecuteFunctions, itemIndex: number, err: StreamError): TextOutcome {
	const error = new NodeOperationError(ctx.getNode(), err.message, {
		itemIndex,
		description:
			'The gateway answered, but the answer holds no usable text. It was not resent; the call may be billed.',
	});
	return { failed: { error, fields: {} }, text: '', finishReason: null, streamed: false };
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
