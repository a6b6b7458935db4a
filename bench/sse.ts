/** P4b: SSE parsing throughput of the chat stream reader on a 50 MB stream, beside a naive split baseline. */
import { Readable } from 'node:stream';
import { ChatStreamAccumulator } from '../nodes/shared/text/chatStream';
import { readSse } from '../nodes/shared/text/sse';

function makeStream(bytes: number): Buffer[] {
	const chunks: Buffer[] = [];
	let size = 0;
	let k = 0;
	const parts: string[] = [];
	while (size < bytes) {
		const ev = `data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"word${k++} ünï "},"finish_reason":null}]}\n\n${k % 50 === 0 ? ': PING\n\n' : ''}`;
		parts.push(ev);
		size += Buffer.byteLength(ev);
	}
	parts.push('data: {"id":"c","choices":[],"usage":{"total_tokens":1}}\n\ndata: [DONE]\n\n');
	const all = Buffer.from(parts.join(''), 'utf8');
	for (let i = 0; i < all.length; i += 16 * 1024 + 7) chunks.push(all.subarray(i, i + 16 * 1024 + 7));
	return chunks;
}

export async function benchSse(mb = 50): Promise<{ mb: number; parserMBs: number; naiveMBs: number; ratio: number; chars: number }> {
	const chunks = makeStream(mb * 1024 * 1024);
	const total = chunks.reduce((s, c) => s + c.length, 0) / 1048576;
	const t0 = process.hrtime.bigint();
	const acc = new ChatStreamAccumulator();
	await readSse(Readable.from(chunks), (e) => (acc.feed(e) === 'done' ? 'stop' : undefined), 60_000);
	const parserSec = Number(process.hrtime.bigint() - t0) / 1e9;
	// naive baseline: decode, split on blank lines, JSON.parse data lines (no keep-alive or boundary care)
	const t1 = process.hrtime.bigint();
	const decoder = new TextDecoder();
	let buf = '';
	let naive = '';
	for (const c of chunks) {
		buf += decoder.decode(c, { stream: true });
		let idx;
		while ((idx = buf.indexOf('\n\n')) >= 0) {
			const ev = buf.slice(0, idx);
			buf = buf.slice(idx + 2);
			if (!ev.startsWith('data: ') || ev === 'data: [DONE]') continue;
			const j = JSON.parse(ev.slice(6));
			naive += j.choices?.[0]?.delta?.content ?? '';
		}
	}
	const naiveSec = Number(process.hrtime.bigint() - t1) / 1e9;
	if (naive !== acc.result.content) throw new Error('parsers disagree');
	return { mb: total, parserMBs: total / parserSec, naiveMBs: total / naiveSec, ratio: total / parserSec / (total / naiveSec), chars: acc.result.content.length };
}
