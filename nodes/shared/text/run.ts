/** Sends a chat/responses request (plain or streamed) and returns the joined result; one place for both nodes. */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import type { GatewayTransport } from '../transport/http';
import { ChatStreamAccumulator, chatFromJson } from './chatStream';
import { ResponsesStreamAccumulator, responsesFromJson } from './responsesStream';
import { StreamError, readSse } from './sse';

export type TextKind = 'chat' | 'responses';

export interface TextOutcome {
	uncertain?: string;
	text: string;
	finishReason?: string | null;
	usage?: IDataObject;
	id?: string;
	model?: string;
	streamed: boolean;
	raw?: IDataObject;
}

const PATHS: Record<TextKind, string> = { chat: '/v1/chat/completions', responses: '/v1/responses' };

function canStreamToN8n(ctx: IExecuteFunctions): boolean {
	return typeof ctx.isStreaming === 'function' && ctx.isStreaming() && typeof ctx.sendChunk === 'function';
}

export async function sendText(ctx: IExecuteFunctions, transport: GatewayTransport, kind: TextKind, body: Record<string, unknown>, itemIndex: number, idleMs: number): Promise<TextOutcome> {
	if (!body.stream) {
		const out = await transport.submit(PATHS[kind], { json: body }, { timeout: 'text' });
		if (out.kind === 'uncertain') return { uncertain: out.reason, text: '', streamed: false };
		return fromJson(kind, out.body);
	}
	const res = await transport.postStream(PATHS[kind], body, { timeout: 'text' });
	if ('kind' in res) return { uncertain: res.reason, text: '', streamed: true };
	if (!/text\/event-stream/i.test(res.contentType)) {
		// The gateway ignored stream: true and answered JSON.
		const text = await res.body.setEncoding('utf8').toArray().then((a) => a.join(''));
		let json: Record<string, unknown>;
		try {
			json = JSON.parse(text);
		} catch {
			throw new StreamError(`asked for a stream, got ${res.contentType || 'no content type'} that is not JSON either`);
		}
		return { ...fromJson(kind, json), streamed: false };
	}
	const forward = canStreamToN8n(ctx);
	if (forward) ctx.sendChunk('begin', itemIndex);
	const acc = kind === 'chat' ? new ChatStreamAccumulator() : new ResponsesStreamAccumulator();
	try {
		await readSse(
			res.body,
			(e) => {
				const delta = acc.feed(e);
				if (delta === 'done') return 'stop';
				if (delta && forward) ctx.sendChunk('item', itemIndex, delta);
				return undefined;
			},
			idleMs,
			transport.signal,
		);
	} catch (err) {
		if (forward) ctx.sendChunk('error', itemIndex, (err as Error).message);
		throw err;
	}
	if (forward) ctx.sendChunk('end', itemIndex);
	if (acc instanceof ChatStreamAccumulator) {
		const r = acc.result;
		if (!r.done) throw new StreamError(`the stream ended before [DONE] after ${r.content.length} characters: the answer is incomplete`);
		return { text: r.content, finishReason: r.finishReason ?? null, usage: r.usage as IDataObject, id: r.id, model: r.model, streamed: true };
	}
	const r = acc.result;
	if (!r.done) throw new StreamError(`the stream ended before response.completed after ${r.text.length} characters: the answer is incomplete`);
	return { text: r.text, finishReason: r.incompleteReason ?? r.status ?? null, usage: r.usage as IDataObject, id: r.id, model: r.model, streamed: true };
}

function fromJson(kind: TextKind, body: Record<string, unknown>): TextOutcome {
	if (kind === 'chat') {
		const r = chatFromJson(body);
		return { text: r.content, finishReason: r.finishReason, usage: r.usage as IDataObject, id: r.id, model: r.model, streamed: false, raw: body as IDataObject };
	}
	const r = responsesFromJson(body);
	return { text: r.text, finishReason: r.incompleteReason ?? r.status ?? null, usage: r.usage as IDataObject, id: r.id, model: r.model, streamed: false, raw: body as IDataObject };
}

/** The item JSON for a text outcome: simplified (text, finish reason, usage) or full. */
export function textItem(o: TextOutcome, simplify: boolean): IDataObject {
	if (o.uncertain) {
		return { submission_uncertain: true, reason: o.uncertain, note: 'The request may have been processed and billed; it was not resent. Check usage records before retrying.' };
	}
	const simple: IDataObject = { text: o.text, finish_reason: o.finishReason ?? null, usage: o.usage ?? null, model: o.model ?? null, id: o.id ?? null, streamed: o.streamed };
	if (simplify || !o.raw) return simple;
	return { ...o.raw, ...{ text: o.text } };
}
