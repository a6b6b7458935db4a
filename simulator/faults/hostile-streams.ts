/** Hostile streams: events split at arbitrary bytes or cut mid-way; streams that never finish (keep-alives only, one `data:` line that never ends, valid deltas for ever). */
import type { ServerResponse } from 'node:http';
import { SSE_HEAD } from '../gateway/answer';
import { drained, pause } from '../media/send';

function sseHead(res: ServerResponse): void {
	res.writeHead(200, SSE_HEAD);
}

/** Writes SSE events, optionally in small random pieces with keep-alive comments between events, optionally cut mid-way. */
export async function writeSse(
	res: ServerResponse,
	events: string[],
	opts: { split?: boolean; cut?: boolean; seed: number },
): Promise<void> {
	sseHead(res);
	let all = events.map((e) => ({ text: e }));
	if (opts.cut) {
		const total = events.join('').length;
		let kept = 0;
		const cutAt = Math.floor(total / 2);
		all = all.flatMap((e) => {
			if (kept >= cutAt) return [];
			const piece = e.text.slice(0, cutAt - kept);
			kept += e.text.length;
			return [{ text: piece }];
		});
	}
	let rnd = opts.seed;
	for (const e of all) {
		if (!opts.split) {
			res.write(e.text);
			continue;
		}
		// tiny pieces at arbitrary byte boundaries; keep-alive comments only between events
		const bytes = Buffer.from(e.text, 'utf8');
		let i = 0;
		while (i < bytes.length) {
			rnd = (rnd * 1103515245 + 12345) >>> 0;
			const n = 1 + (rnd % 7);
			res.write(bytes.subarray(i, i + n));
			i += n;
			if (rnd % 3 === 0) await new Promise((r) => setImmediate(r));
		}
		if (rnd % 2 === 0) res.write(': PING\n\n');
	}
	if (opts.cut) {
		// let the first half reach the client, then drop the connection
		await new Promise((r) => setTimeout(r, 30));
		return void res.socket?.destroy();
	}
	res.end();
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
	const event = Buffer.from(
		`data: ${JSON.stringify({ id: 'chatcmpl-endless', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: 'y'.repeat(16 * 1024) } }] })}\n\n`,
	);
	while (!res.destroyed) {
		if (!res.write(event)) await drained(res);
		else await new Promise((r) => setImmediate(r));
	}
}

/** `data: ` and then bytes without a newline, for ever (paced by backpressure, or `intervalMs` between chunks). */
export async function endlessLine(res: ServerResponse, intervalMs: number): Promise<void> {
	sseHead(res);
	res.write('data: {"choices":[{"index":0,"delta":{"content":"');
	const chunk = Buffer.alloc(64 * 1024, 0x61);
	while (!res.destroyed) {
		if (!res.write(chunk)) await drained(res);
		if (intervalMs > 0) await pause(res, intervalMs);
		else await new Promise((r) => setImmediate(r));
	}
}
