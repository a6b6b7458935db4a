/**
 * P4b: SSE parsing throughput on the path the nodes take. The Chat and Responses nodes (nodes/shared/text/run.ts) and
 * the Chat Model (nodes/LmChatGenGateway/model/model.ts) read a streamed answer with `pumpStream` driving a
 * `ChatStreamParser` or `ResponsesStreamParser` (bytes → UTF-8 → lines → eventsource-parser → the answer, each delta
 * handed on as it arrives); here the body is a 50 MB stream in 16 KiB chunks from memory instead of a socket. Beside
 * each, a naive baseline on the same chunks: decode, split on blank lines, JSON.parse the data lines (no keep-alive,
 * boundary, limit or error care). The fastest of three runs each.
 */
import { Readable } from 'node:stream';
import { ChatStreamParser } from '../nodes/shared/text/chatStream';
import { ResponsesStreamParser } from '../nodes/shared/text/responsesStream';
import { pumpStream } from '../nodes/shared/text/pump';
import type { StreamParser } from '../nodes/shared/text/sse';

export interface SseRow {
	what: string;
	mb: number;
	parserMBs: number;
	naiveMBs: number;
	ratio: number;
	chars: number;
}

const RUNS = 3;

/** Events of about `bytes` bytes, cut into chunks of 16 KiB + 7 (so events and multi-byte characters straddle chunks). */
function chunked(event: (k: number) => string, tail: string, bytes: number): Buffer[] {
	const parts: string[] = [];
	let size = 0;
	for (let k = 0; size < bytes; k++) {
		const ev = event(k);
		parts.push(ev);
		size += Buffer.byteLength(ev);
	}
	parts.push(tail);
	const all = Buffer.from(parts.join(''), 'utf8');
	const chunks: Buffer[] = [];
	for (let i = 0; i < all.length; i += 16 * 1024 + 7)
		chunks.push(all.subarray(i, i + 16 * 1024 + 7));
	return chunks;
}

/** chat completions: content deltas, a keep-alive every 50 events, a usage chunk and [DONE] */
const chatStream = (bytes: number) =>
	chunked(
		(k) =>
			`data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"word${k} ünï "},"finish_reason":null}]}\n\n${(k + 1) % 50 === 0 ? ': PING\n\n' : ''}`,
		'data: {"id":"c","choices":[],"usage":{"total_tokens":1}}\n\ndata: [DONE]\n\n',
		bytes,
	);

/** Responses: named output_text.delta events, a keep-alive every 50, and response.completed (without the text again: a 50 MB text in one line is past the 8 MiB line limit) */
const responsesStream = (bytes: number) =>
	chunked(
		(k) =>
			`${k === 0 ? 'event: response.created\ndata: {"type":"response.created","response":{"id":"r","model":"m","status":"in_progress","output":[]}}\n\n' : ''}event: response.output_text.delta\ndata: {"type":"response.output_text.delta","output_index":0,"content_index":0,"delta":"word${k} ünï "}\n\n${(k + 1) % 50 === 0 ? ': PING\n\n' : ''}`,
		'event: response.completed\ndata: {"type":"response.completed","response":{"id":"r","model":"m","status":"completed","output":[],"usage":{"total_tokens":1}}}\n\n',
		bytes,
	);

/** The answer's text through pumpStream and the node's parser; deltas handed on one by one as the nodes forward them. */
async function ours(
	chunks: Buffer[],
	parser: (onDelta: (t: string) => void) => StreamParser & { result: unknown },
	text: (p: StreamParser & { result: unknown }) => string,
): Promise<{ sec: number; text: string }> {
	let forwarded = 0;
	const p = parser((t) => (forwarded += t.length));
	const t0 = process.hrtime.bigint();
	await pumpStream(Readable.from(chunks), p, { idleMs: 60_000 });
	const sec = Number(process.hrtime.bigint() - t0) / 1e9;
	const out = text(p);
	if (forwarded !== out.length)
		throw new Error(`forwarded ${forwarded} characters of ${out.length}`);
	return { sec, text: out };
}

/** The naive split: the text of every data line's JSON that `delta` reads. */
function naive(
	chunks: Buffer[],
	delta: (json: Record<string, unknown>) => string,
): { sec: number; text: string } {
	const t0 = process.hrtime.bigint();
	const decoder = new TextDecoder();
	let buf = '';
	let text = '';
	for (const c of chunks) {
		buf += decoder.decode(c, { stream: true });
		let idx;
		while ((idx = buf.indexOf('\n\n')) >= 0) {
			const ev = buf.slice(0, idx);
			buf = buf.slice(idx + 2);
			const data = ev.split('\n').find((l) => l.startsWith('data: '));
			if (!data || data === 'data: [DONE]') continue;
			text += delta(JSON.parse(data.slice(6)));
		}
	}
	return { sec: Number(process.hrtime.bigint() - t0) / 1e9, text };
}

async function fastest<T extends { sec: number }>(run: () => T | Promise<T>): Promise<T> {
	let best: T | undefined;
	for (let k = 0; k < RUNS; k++) {
		const r = await run();
		if (!best || r.sec < best.sec) best = r;
	}
	return best!;
}

async function row(
	what: string,
	chunks: Buffer[],
	parser: Parameters<typeof ours>[1],
	text: Parameters<typeof ours>[2],
	delta: Parameters<typeof naive>[1],
): Promise<SseRow> {
	const mb = chunks.reduce((s, c) => s + c.length, 0) / 1048576;
	const a = await fastest(() => ours(chunks, parser, text));
	const b = await fastest(() => naive(chunks, delta));
	if (a.text !== b.text) throw new Error(`${what}: the parsers disagree`);
	return {
		what,
		mb,
		parserMBs: mb / a.sec,
		naiveMBs: mb / b.sec,
		ratio: b.sec / a.sec,
		chars: a.text.length,
	};
}

export async function benchSse(mb = 50): Promise<SseRow[]> {
	const bytes = mb * 1024 * 1024;
	const chat = await row(
		'Chat (chat completions): pumpStream + ChatStreamParser',
		chatStream(bytes),
		(d) => new ChatStreamParser(d),
		(p) => (p as ChatStreamParser).result.content,
		(j) =>
			(j.choices as Array<{ delta?: { content?: string } }> | undefined)?.[0]?.delta?.content ?? '',
	);
	const responses = await row(
		'Responses: pumpStream + ResponsesStreamParser',
		responsesStream(bytes),
		(d) => new ResponsesStreamParser(d),
		(p) => (p as ResponsesStreamParser).result.text,
		(j) => (j.type === 'response.output_text.delta' && typeof j.delta === 'string' ? j.delta : ''),
	);
	return [chat, responses];
}
