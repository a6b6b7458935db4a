/**
 * Hostile text streams: lines without an end, floods of blank lines, huge events, absurd indices and counts,
 * streams that never end (keep-alives forever) or never stop growing. Each is bounded and comes out whole or refused;
 * the time each takes, and the event loop meanwhile, are measured by `npm run bench -- p5`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ChatStreamParser, MAX_TOOL_CALLS, chatFromJson } from '../../nodes/shared/text/chatStream';
import { ResponsesStreamParser } from '../../nodes/shared/text/responsesStream';
import { pumpStream } from '../../nodes/shared/text/pump';
import { StreamError, type StreamParser } from '../../nodes/shared/text/sse';
import {
	rejectionOf,
	startServer,
	transportFor,
	withoutProxyEnv,
	type TestServer,
} from '../transport/support';

/** Feeds `total` characters of `fill` (in chunks of `chunk`) and returns what it threw. */
function flood(
	parser: StreamParser,
	head: string,
	fill: string,
	total: number,
	chunk: number,
): { error?: StreamError } {
	const piece = Buffer.from(fill.repeat(Math.ceil(chunk / fill.length)).slice(0, chunk));
	try {
		parser.feed(head);
		for (let sent = 0; sent < total; sent += chunk) parser.feed(piece);
	} catch (err) {
		return { error: err as StreamError };
	}
	return {};
}

// how long each flood takes, beside decoding the same bytes: npm run bench -- p5
describe('SSE lines and events: capped', () => {
	it('one line without a line break: refused at the line limit (8 MiB)', () => {
		const r = flood(
			new ChatStreamParser(),
			'data: {"choices":[{"delta":{"content":"',
			'x',
			24 * 1024 * 1024,
			16 * 1024,
		);
		expect(r.error).toBeInstanceOf(StreamError);
		expect(r.error!.kind).toBe('unreadable');
		expect(r.error!.message).toMatch(/a line longer than 8 MiB/);
	});

	it('a long line under the limit (6 MiB in 4 KiB chunks) is read whole', () => {
		const p = new ChatStreamParser();
		const content = 'y'.repeat(6 * 1024 * 1024);
		const event = Buffer.from(
			`data: {"choices":[{"index":0,"delta":{"content":"${content}"}}]}\n\ndata: [DONE]\n\n`,
		);
		for (let i = 0; i < event.length; i += 4096) p.feed(event.subarray(i, i + 4096));
		p.end();
		expect(p.result.content.length).toBe(content.length);
	});

	it.each(['\n', '\r\n', ':\n'])(
		'a flood of %j lines (8 MiB in 64 KiB chunks) is read, and carries no answer',
		(fill) => {
			const p = new ChatStreamParser();
			expect(flood(p, '', fill, 8 * 1024 * 1024, 64 * 1024).error).toBeUndefined();
			expect(p.result.content).toBe('');
		},
	);

	it('an event of many data lines past the event limit is refused', () => {
		const r = flood(
			new ChatStreamParser(undefined, undefined, { maxEventChars: 1024 * 1024 }),
			'',
			'data: aaaaaaaaaaaaaaaa\n',
			4 * 1024 * 1024,
			64 * 1024,
		);
		expect(r.error?.kind).toBe('unreadable');
		expect(r.error?.message).toMatch(/an event longer than 1 MiB/);
	});

	it('CR at the end of one chunk and LF at the start of the next is one line break, not two', () => {
		const p = new ChatStreamParser();
		p.feed('event: ping\r');
		p.feed('\ndata: {"choices":[{"index":0,"delta":{"content":"a"}}]}\r\n\r\ndata: [DONE]\r\n\r\n');
		p.end();
		// one `ping` event (not part of the answer); had the CRLF counted twice, the data would have been an unnamed event
		expect(p.result.content).toBe('');
	});
});

describe('numbers from the gateway never size an array or a loop', () => {
	const toolChunk = (index: unknown, args: string) =>
		`data: ${JSON.stringify({ choices: [{ index: 0, delta: { tool_calls: [{ index, id: `c${String(index)}`, function: { name: 'f', arguments: args } }] } }] })}\n\n`;

	// the event loop's worst gap while these are parsed, beside small indices: npm run bench -- p5
	it('a chat tool call with index 1e8 (and 2^53-1): kept by position, no slot for the indices between', () => {
		const p = new ChatStreamParser();
		p.feed(toolChunk(0, '{"a":'));
		p.feed(toolChunk(1e8, '{}'));
		p.feed(toolChunk(Number.MAX_SAFE_INTEGER, '{}'));
		p.feed(toolChunk(0, '1}') + 'data: [DONE]\n\n');
		p.end();
		const result = p.result.toolCalls;
		expect(result.map((c) => c.id)).toEqual(['c0', 'c100000000', `c${Number.MAX_SAFE_INTEGER}`]);
		expect(result[0].function.arguments).toBe('{"a":1}');
		// an array sized by an index would write a null per empty slot
		expect(JSON.stringify(p.accumulator.toCompletion()).length).toBeLessThan(2000);
		expect(JSON.stringify(result).length).toBeLessThan(1000);
	});

	it.each([-1, 1.5, 1e300, '3', null])(
		'a tool call index %p that is not a whole number from 0 makes the answer unreadable (null: its position)',
		(index) => {
			const p = new ChatStreamParser();
			if (index === null) {
				p.feed(toolChunk(index, '{}') + 'data: [DONE]\n\n');
				p.end();
				expect(p.result.toolCalls).toHaveLength(1);
				return;
			}
			expect(() => p.feed(toolChunk(index, '{}'))).toThrow(/not a valid index/);
		},
	);

	it(`more than ${MAX_TOOL_CALLS} distinct tool calls, or more than 128 choices, are refused`, () => {
		const p = new ChatStreamParser();
		expect(() => {
			for (let i = 0; i <= MAX_TOOL_CALLS; i++) p.feed(toolChunk(i * 1000, ''));
		}).toThrow(/more than 256 tool calls/);
		const q = new ChatStreamParser();
		const choices = Array.from({ length: 129 }, (_, i) => ({
			index: i * 7,
			delta: { content: 'x' },
		}));
		expect(() => q.feed(`data: ${JSON.stringify({ choices })}\n\n`)).toThrow(
			/more than 128 choices/,
		);
		expect(() =>
			chatFromJson({ choices: Array.from({ length: 129 }, () => ({ message: { content: '' } })) }),
		).toThrow(/more than 128 choices/);
		expect(
			chatFromJson({
				choices: [
					{
						index: 1e8,
						message: {
							content: 'a',
							tool_calls: [{ index: 1e8, function: { name: 'f', arguments: '{}' } }],
						},
					},
				],
			}).choices[0].toolCalls,
		).toHaveLength(1);
	});

	it('a responses stream with output_index 1e8: kept by position, the output in index order', () => {
		const ev = (name: string, data: unknown) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
		const p = new ResponsesStreamParser();
		p.feed(
			ev('response.output_item.done', {
				output_index: 1e8,
				item: { type: 'message', content: [{ type: 'output_text', text: 'B' }] },
			}),
		);
		p.feed(
			ev('response.output_item.done', {
				output_index: 2,
				item: { type: 'message', content: [{ type: 'output_text', text: 'A' }] },
			}),
		);
		p.feed(ev('response.output_text.done', { output_index: 1e8, content_index: 1e8, text: 'x' }));
		p.feed(ev('response.completed', { response: { status: 'completed' } }));
		p.end();
		expect(p.result.text).toBe('AB');
		expect(JSON.stringify(p.result).length).toBeLessThan(2000);
		const bad = new ResponsesStreamParser();
		expect(() => bad.feed(ev('response.output_item.done', { output_index: -3, item: {} }))).toThrow(
			/not a valid index/,
		);
	});
});

describe('streams bounded in time and size (through the transport)', () => {
	let gw: TestServer;
	beforeAll(async () => {
		withoutProxyEnv();
		gw = await startServer();
	});
	afterAll(() => gw.close());

	/** An endless stream: `piece` every `everyMs`, until the client goes away. */
	const endless =
		(piece: string, everyMs: number) => (req: IncomingMessage, res: ServerResponse) => {
			res.writeHead(200, { 'content-type': 'text/event-stream' });
			const timer = setInterval(() => res.write(piece), everyMs);
			req.socket.on('close', () => clearInterval(timer));
		};

	it('keep-alives forever (idle never fires): the stream ends at its max duration, as an incomplete answer', async () => {
		gw.reset(endless(': PING\n\n', 20));
		const started = Date.now();
		const res = await transportFor(gw.origin).postStream(
			'/v1/chat/completions',
			{ stream: true },
			{ maxDurationMs: 600, idleTimeoutMs: 5000 },
		);
		if ('kind' in res) throw new Error('uncertain');
		const err = await rejectionOf(pumpStream(res.body, new ChatStreamParser(), { idleMs: 5000 }));
		const took = Date.now() - started;
		expect(err).toMatchObject({ kind: 'incomplete' });
		expect(err.message).toMatch(/^the stream was stopped at its time limit .* before \[DONE\]/);
		expect(took).toBeGreaterThanOrEqual(550);
	});

	it('the default max duration comes from timeouts.streamTotal', async () => {
		gw.reset(endless(': PING\n\n', 20));
		const res = await transportFor(gw.origin, { timeouts: { streamTotal: 300 } }).postStream(
			'/v1/chat/completions',
			{ stream: true },
		);
		if ('kind' in res) throw new Error('uncertain');
		const err = await rejectionOf(pumpStream(res.body, new ChatStreamParser(), { idleMs: 5000 }));
		expect(err.message).toMatch(/time limit/);
	});

	it('an answer that never stops growing ends at the size limit', async () => {
		const delta = `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: 'z'.repeat(1000) } }] })}\n\n`;
		gw.reset(endless(delta.repeat(50), 1));
		const res = await transportFor(gw.origin, {
			limits: { streamBytes: 2 * 1024 * 1024 },
		}).postStream('/v1/chat/completions', { stream: true });
		if ('kind' in res) throw new Error('uncertain');
		const p = new ChatStreamParser();
		const err = await rejectionOf(pumpStream(res.body, p, { idleMs: 5000 }));
		expect(err.message).toMatch(
			/^the stream was stopped at its size limit .*larger than the limit of 2 MiB/,
		);
		expect(p.receivedText.length).toBeLessThanOrEqual(2 * 1024 * 1024);
	});
});
