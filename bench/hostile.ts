/**
 * P5: the cost of hostile answers, measured (tests only check what comes out): the key redaction on 8 and 64 MB
 * bodies, the SSE reader on floods, and the event loop while a stream names absurd indices. Each beside a plain
 * scan of the same bytes in the same run.
 */
import { ChatStreamParser } from '../nodes/shared/text/chatStream';
import { ResponsesStreamParser } from '../nodes/shared/text/responsesStream';
import type { StreamParser } from '../nodes/shared/text/sse';
import { Redactor } from '../nodes/shared/transport/redact';

const KEY = 'sk-bench-KEY-0123456789abcdef';

const ms = (fn: () => void): number => {
	const started = performance.now();
	fn();
	return performance.now() - started;
};
/** The fastest of `runs` (the least disturbed by the rest of the machine). */
const best = (runs: number, fn: () => void): number =>
	Math.min(...Array.from({ length: runs }, () => ms(fn)));

export interface RedactionRow {
	what: string;
	mb: number;
	ms: number;
	baselineMs: number;
}

/** Base64 JSON with escaped slashes in it (so every form of the key is searched for), then a plain one. */
export function benchRedaction(): { rows: RedactionRow[]; growth: number; runGrowth: number } {
	const r = new Redactor([KEY]);
	const escaped = (mb: number) =>
		JSON.stringify({
			data: [{ b64_json: Buffer.alloc(mb * 750_000, 7).toString('base64') }],
			url: 'https:\\/\\/x',
			e: KEY,
		});
	const rows: RedactionRow[] = [];
	for (const [what, body] of [
		['escaped slashes, 8 MB', escaped(8)],
		['escaped slashes, 64 MB', escaped(64)],
		[
			'plain, 64 MB',
			JSON.stringify({ data: [{ b64_json: Buffer.alloc(48e6, 7).toString('base64') }], e: KEY }),
		],
	] as const) {
		let out = '';
		const t = best(3, () => (out = r.text(body)));
		if (!out.endsWith('"e":"***"}')) throw new Error(`redaction missed the key in ${what}`);
		rows.push({
			what,
			mb: body.length / 1e6,
			ms: t,
			baselineMs: best(3, () => void body.replaceAll(KEY, '***')),
		});
	}
	// a run of backslashes (every one may start a `\\u0073` form): was n² (40,000 of them took 15 s), now linear
	for (const kb of [250, 1000]) {
		const body = `{"e":"${'\\'.repeat(kb * 1000)}u0073k"}`;
		const t = best(3, () => {
			r.text(body);
			const s = r.textStream();
			for (let i = 0; i < body.length; i += 16_384) s.write(body.slice(i, i + 16_384));
			s.end();
		});
		rows.push({
			what: `a run of backslashes, whole and streamed in 16 KiB pieces, ${kb / 1000} MB`,
			mb: body.length / 1e6,
			ms: t,
			baselineMs: best(3, () => void body.replaceAll(KEY, '***')),
		});
	}
	return { rows, growth: rows[1].ms / rows[0].ms, runGrowth: rows[4].ms / rows[3].ms };
}

export interface FloodRow {
	what: string;
	mib: number;
	ms: number;
	baselineMs: number;
	outcome: string;
}

function feedAll(parser: StreamParser, head: string, body: Buffer, chunk: number): string {
	try {
		parser.feed(head);
		for (let i = 0; i < body.length; i += chunk) parser.feed(body.subarray(i, i + chunk));
		return 'read';
	} catch (err) {
		return `refused: ${(err as Error).message.split(':')[0]}`;
	}
}

/** Floods fed to the chat stream reader, beside decoding the same chunks to text (the floor of any reader). */
export function benchFloods(): FloodRow[] {
	const cases: Array<[string, string, Buffer, number]> = [
		[
			'one line without a break, 24 MiB in 16 KiB chunks',
			'data: {"choices":[{"delta":{"content":"',
			Buffer.alloc(24 * 1024 * 1024, 'x'),
			16 * 1024,
		],
		[
			'a 6 MiB line under the limit, 4 KiB chunks',
			'',
			Buffer.from(
				`data: {"choices":[{"index":0,"delta":{"content":"${'y'.repeat(6 * 1024 * 1024)}"}}]}\n\ndata: [DONE]\n\n`,
			),
			4096,
		],
		['8 MiB of "\\n" lines, 64 KiB chunks', '', Buffer.alloc(8 * 1024 * 1024, '\n'), 64 * 1024],
		[
			'8 MiB of "\\r\\n" lines, 64 KiB chunks',
			'',
			Buffer.alloc(8 * 1024 * 1024, '\r\n'),
			64 * 1024,
		],
		[
			'8 MiB of ":\\n" comments, 64 KiB chunks',
			'',
			Buffer.alloc(8 * 1024 * 1024, ':\n'),
			64 * 1024,
		],
	];
	return cases.map(([what, head, body, chunk]) => {
		let outcome = '';
		const t = best(3, () => (outcome = feedAll(new ChatStreamParser(), head, body, chunk)));
		const baselineMs = best(3, () => {
			const d = new TextDecoder();
			for (let i = 0; i < body.length; i += chunk)
				d.decode(body.subarray(i, i + chunk), { stream: true });
		});
		return { what, mib: body.length / 1048576, ms: t, baselineMs, outcome };
	});
}

/** Largest gap between ticks of a 5 ms interval while `fn` runs. */
async function maxLoopLag(fn: () => Promise<void>): Promise<number> {
	let last = performance.now();
	let worst = 0;
	const timer = setInterval(() => {
		const now = performance.now();
		worst = Math.max(worst, now - last);
		last = now;
	}, 5);
	try {
		await fn();
		await new Promise((r) => setTimeout(r, 20));
	} finally {
		clearInterval(timer);
	}
	return worst;
}

const tick = () => new Promise((r) => setImmediate(r));

/** The event loop's worst gap while streams name indices 1e8 and 2^53-1, beside the same streams with small indices. */
export async function benchIndices(): Promise<
	Array<{ what: string; lagMs: number; baselineLagMs: number }>
> {
	const toolChunk = (index: number, args: string) =>
		`data: ${JSON.stringify({ choices: [{ index: 0, delta: { tool_calls: [{ index, id: `c${index}`, function: { name: 'f', arguments: args } }] } }] })}\n\n`;
	const chat = (big: number, huge: number) => async () => {
		const p = new ChatStreamParser();
		p.feed(toolChunk(0, '{"a":'));
		await tick();
		p.feed(toolChunk(big, '{}'));
		await tick();
		p.feed(toolChunk(huge, '{}'));
		await tick();
		p.feed(toolChunk(0, '1}') + 'data: [DONE]\n\n');
		p.end();
		JSON.stringify(p.accumulator.toCompletion());
	};
	const ev = (name: string, data: unknown) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
	const responses = (big: number) => async () => {
		const p = new ResponsesStreamParser();
		p.feed(
			ev('response.output_item.done', {
				output_index: big,
				item: { type: 'message', content: [{ type: 'output_text', text: 'B' }] },
			}),
		);
		await tick();
		p.feed(
			ev('response.output_item.done', {
				output_index: 2,
				item: { type: 'message', content: [{ type: 'output_text', text: 'A' }] },
			}),
		);
		p.feed(ev('response.output_text.done', { output_index: big, content_index: big, text: 'x' }));
		p.feed(ev('response.completed', { response: { status: 'completed' } }));
		p.end();
		void p.result.text;
	};
	return [
		{
			what: 'chat tool calls at index 1e8 and 2^53-1 (baseline: 1 and 2)',
			lagMs: await maxLoopLag(chat(1e8, Number.MAX_SAFE_INTEGER)),
			baselineLagMs: await maxLoopLag(chat(1, 2)),
		},
		{
			what: 'responses output_index 1e8 (baseline: 3)',
			lagMs: await maxLoopLag(responses(1e8)),
			baselineLagMs: await maxLoopLag(responses(3)),
		},
	];
}
