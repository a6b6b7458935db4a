/** Streams that never finish: keep-alives only, one `data:` line that never ends, or valid deltas for ever. */
import type { ServerResponse } from 'node:http';
import { pause } from './delivery';

function sseHead(res: ServerResponse): void {
	res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
}

/** `: PING` every `intervalMs`, never an event, never `[DONE]` or a completion; ends only when the client leaves. */
export async function stalledStream(res: ServerResponse, intervalMs: number): Promise<void> {
	sseHead(res);
	while (!res.destroyed) {
		res.write(': PING\n\n');
		await pause(res, intervalMs);
	}
}

/** Valid chat content deltas of 16 KiB each, for ever (paced by backpressure); never `[DONE]`. */
export async function endlessDeltas(res: ServerResponse): Promise<void> {
	sseHead(res);
	const event = Buffer.from(`data: ${JSON.stringify({ id: 'chatcmpl-endless', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: 'y'.repeat(16 * 1024) } }] })}\n\n`);
	while (!res.destroyed) {
		if (!res.write(event)) await new Promise<void>((r) => (res.once('drain', r), res.once('close', r)));
		else await new Promise((r) => setImmediate(r));
	}
}

/** `data: ` and then bytes without a newline, for ever (paced by backpressure, or `intervalMs` between chunks). */
export async function endlessLine(res: ServerResponse, intervalMs: number): Promise<void> {
	sseHead(res);
	res.write('data: {"choices":[{"index":0,"delta":{"content":"');
	const chunk = Buffer.alloc(64 * 1024, 0x61);
	while (!res.destroyed) {
		if (!res.write(chunk)) await new Promise<void>((r) => (res.once('drain', r), res.once('close', r)));
		if (intervalMs > 0) await pause(res, intervalMs);
		else await new Promise((r) => setImmediate(r));
	}
}
