/**
 * The two SSE parsers fed with recorded streams split at every byte boundary (multi-byte UTF-8 included),
 * and their error rules; pumpStream's idle timeout and cancel signal; the request schemas.
 */
import { Readable } from 'node:stream';
import { ChatStreamParser, chatFromJson } from '../../nodes/shared/text/chatStream';
import {
	ResponsesStreamParser,
	responsesFromJson,
	textFromOutput,
} from '../../nodes/shared/text/responsesStream';
import { pumpStream } from '../../nodes/shared/text/pump';
import { StreamError, type StreamParser } from '../../nodes/shared/text/sse';
import { messagesFromJson } from '../../nodes/GenGatewayChat/actions/messagesJson';
import { chatBodySchema, mergeExtra, responsesBodySchema } from '../../nodes/shared/text/schemas';
import { parseOrThrow } from '../../nodes/shared/validate';
import { InputRuleError } from '../../nodes/shared/errors';
import { waitFor } from '../harness/wait';

// ü, ✓ (3 bytes), 😀 (4 bytes) put multi-byte characters at many split points
const CHAT_TEXT = 'Grüße ✓ ok 😀 fin';
const chatChunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
	`data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', choices, ...extra })}\n\n`;
const CHAT_STREAM = [
	': PING\n\n',
	chatChunk([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]),
	chatChunk([{ index: 0, delta: { content: 'Grüße ' }, finish_reason: null }]),
	': keep-alive\n\n',
	chatChunk([{ index: 0, delta: { content: '✓ ok ' }, finish_reason: null }]),
	':\n\n',
	chatChunk([{ index: 0, delta: { content: '😀 fin' }, finish_reason: null }]),
	chatChunk([{ index: 0, delta: {}, finish_reason: 'stop' }]),
	chatChunk([], { usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 } }),
	': PING\n\n',
	'data: [DONE]\n\n',
].join('');

const respEvent = (name: string, data: Record<string, unknown>) =>
	`event: ${name}\ndata: ${JSON.stringify({ type: name, ...data })}\n\n`;
const RESP_FINAL = {
	id: 'r1',
	object: 'response',
	model: 'm',
	status: 'completed',
	output: [
		{ type: 'reasoning', summary: [] },
		{
			type: 'message',
			role: 'assistant',
			content: [{ type: 'output_text', text: CHAT_TEXT, annotations: [] }],
		},
	],
	usage: { input_tokens: 3, output_tokens: 4, total_tokens: 7 },
};
const RESP_STREAM = [
	respEvent('response.created', {
		response: { id: 'r1', model: 'm', status: 'in_progress', output: [] },
	}),
	respEvent('response.output_item.added', {
		output_index: 1,
		item: { type: 'message', content: [] },
	}),
	respEvent('response.output_text.delta', { output_index: 1, content_index: 0, delta: 'Grüße ' }),
	': PING\n\n',
	respEvent('response.output_text.delta', { output_index: 1, content_index: 0, delta: '✓ ok ' }),
	respEvent('response.output_text.delta', { output_index: 1, content_index: 0, delta: '😀 fin' }),
	respEvent('response.output_text.done', { output_index: 1, content_index: 0, text: CHAT_TEXT }),
	respEvent('response.completed', { response: RESP_FINAL }),
].join('');

type Parser = ChatStreamParser | ResponsesStreamParser;

/** Feeds `bytes` in the given pieces; returns the parser and the deltas it reported. */
function run(
	make: (onDelta: (d: string) => void) => Parser,
	bytes: Buffer,
	cuts: number[],
): { parser: Parser; deltas: string[] } {
	const deltas: string[] = [];
	const parser = make((d) => deltas.push(d));
	let from = 0;
	for (const cut of [...cuts, bytes.length]) {
		parser.feed(bytes.subarray(from, cut));
		from = cut;
	}
	parser.end();
	return { parser, deltas };
}

/** Runs and returns the StreamError it throws. */
function failure(make: () => Parser, text: string | Buffer): StreamError {
	const p = make();
	try {
		p.feed(typeof text === 'string' ? Buffer.from(text, 'utf8') : text);
		p.end();
	} catch (err) {
		expect(err).toBeInstanceOf(StreamError);
		return err as StreamError;
	}
	throw new Error('expected the parser to fail');
}

function rng(seed: number) {
	return () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
}

const makeChat = (d?: (s: string) => void) => new ChatStreamParser(d);
const makeResp = (d?: (s: string) => void) => new ResponsesStreamParser(d);

describe('chat stream parser', () => {
	const bytes = Buffer.from(CHAT_STREAM, 'utf8');

	it('the recorded stream has multi-byte characters (the splits below cut inside them)', () => {
		expect(bytes.length).toBeGreaterThan(CHAT_STREAM.length);
	});

	it('split at every byte boundary: same message, usage, finish reason and [DONE]; deltas join to the message', () => {
		for (let cut = 0; cut <= bytes.length; cut++) {
			const { parser, deltas } = run(makeChat, bytes, [cut]);
			const r = (parser as ChatStreamParser).result;
			expect(r).toMatchObject({
				content: CHAT_TEXT,
				done: true,
				finishReason: 'stop',
				usage: { total_tokens: 7 },
				id: 'c1',
				model: 'm',
			});
			expect(deltas.join('')).toBe(CHAT_TEXT);
		}
	});

	it('one byte at a time, and 300 random multi-way splits', () => {
		const every = run(
			makeChat,
			bytes,
			Array.from({ length: bytes.length }, (_, i) => i),
		);
		expect((every.parser as ChatStreamParser).result.content).toBe(CHAT_TEXT);
		const r = rng(7);
		for (let k = 0; k < 300; k++) {
			const cuts = Array.from({ length: 1 + Math.floor(r() * 20) }, () =>
				Math.floor(r() * bytes.length),
			).sort((a, b) => a - b);
			expect((run(makeChat, bytes, cuts).parser as ChatStreamParser).result.content).toBe(
				CHAT_TEXT,
			);
		}
	});

	it('CRLF and CR line endings are event boundaries too, at every split', () => {
		for (const eol of ['\r\n', '\r']) {
			const crlf = Buffer.from(CHAT_STREAM.replace(/\n/g, eol), 'utf8');
			for (let cut = 0; cut <= crlf.length; cut += 1) {
				expect((run(makeChat, crlf, [cut]).parser as ChatStreamParser).result).toMatchObject({
					content: CHAT_TEXT,
					done: true,
				});
			}
		}
	});

	it('a final `data: [DONE]` without its blank line still ends the stream; `data:` without a space is read', () => {
		const p = makeChat();
		p.feed('data:{"choices":[{"index":0,"delta":{"content":"hi"}}]}\n\ndata: [DONE]');
		p.end();
		expect(p.result).toMatchObject({ content: 'hi', done: true });
	});

	it('the usage chunk with empty choices is read; events after [DONE] are ignored', () => {
		const p = makeChat();
		p.feed(
			chatChunk([{ index: 0, delta: { content: 'a' } }]) +
				chatChunk([], { usage: { total_tokens: 2 } }) +
				'data: [DONE]\n\n' +
				chatChunk([{ index: 0, delta: { content: 'zzz' } }]),
		);
		p.end();
		expect(p.result).toMatchObject({ content: 'a', usage: { total_tokens: 2 } });
		expect(p.finished).toBe(true);
	});

	it('a stream that ends without [DONE] is an error naming what arrived, never a truncated answer', () => {
		const cut = CHAT_STREAM.slice(0, CHAT_STREAM.indexOf('data: [DONE]'));
		const err = failure(makeChat, cut);
		expect(err.kind).toBe('incomplete');
		expect(err.message).toMatch(
			/^the stream ended before \[DONE\] after 16 characters of text: the answer is incomplete/,
		);
		expect(err.partialText).toBe(CHAT_TEXT);
	});

	it('a stream cut inside an event (at every byte before [DONE]) is an incomplete-answer error', () => {
		const end = bytes.indexOf('data: [DONE]');
		for (let cut = 0; cut < end + 'data: [DO'.length; cut++) {
			const err = failure(makeChat, bytes.subarray(0, cut));
			expect(err.kind).toBe('incomplete');
		}
	});

	it('an error event is an error with its message (both envelopes, and `event: error`)', () => {
		const a = failure(
			makeChat,
			chatChunk([{ index: 0, delta: { content: 'par' } }]) +
				'data: {"error":{"message":"upstream stream failed","type":"upstream_error","code":"stream_error"}}\n\n',
		);
		expect(a).toMatchObject({ kind: 'upstream', partialText: 'par' });
		expect(a.message).toBe(
			'the gateway reported an error in the answer: upstream stream failed (stream_error)',
		);
		expect(
			failure(makeChat, 'event: error\ndata: {"code":"overloaded","message":"busy"}\n\n').message,
		).toMatch(/busy \(overloaded\)/);
	});

	it('named events that are not chat increments (`event: ping`) are ignored; `event: error` with plain text is an error', () => {
		const p = makeChat();
		p.feed(
			'event: ping\ndata: ping\n\n' +
				chatChunk([{ index: 0, delta: { content: 'ok' } }]) +
				'event: message\ndata: {"choices":[{"delta":{"content":"!"}}]}\n\ndata: [DONE]\n\n',
		);
		p.end();
		expect(p.result.content).toBe('ok!');
		expect(failure(makeChat, 'event: error\ndata: upstream timeout\n\n')).toMatchObject({
			kind: 'upstream',
			message: 'the gateway reported an error in the answer: upstream timeout',
		});
	});

	it('an event that is not JSON mid-stream is an error, not skipped', () => {
		const err = failure(
			makeChat,
			'data: {"choices":[]}\n\ndata: <html>oops</html>\n\ndata: [DONE]\n\n',
		);
		expect(err.kind).toBe('unreadable');
		expect(err.message).toMatch(/not a JSON object: "<html>oops<\/html>"/);
	});

	it('tool-call deltas are joined by index; several choices are kept apart', () => {
		const p = makeChat();
		p.feed(
			chatChunk([
				{
					index: 0,
					delta: {
						role: 'assistant',
						content: null,
						tool_calls: [
							{
								index: 0,
								id: 'call_1',
								type: 'function',
								function: { name: 'get_weather', arguments: '' },
							},
						],
					},
				},
			]),
		);
		p.feed(
			chatChunk([
				{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] } },
				{ index: 1, delta: { content: 'other' } },
			]),
		);
		p.feed(
			chatChunk([
				{
					index: 0,
					delta: {
						tool_calls: [{ index: 0, function: { name: 'get_weather', arguments: '"Köln"}' } }],
					},
					finish_reason: 'tool_calls',
				},
			]),
		);
		p.feed('data: [DONE]\n\n');
		p.end();
		expect(p.result.toolCalls).toEqual([
			{
				id: 'call_1',
				type: 'function',
				function: { name: 'get_weather', arguments: '{"city":"Köln"}' },
			},
		]);
		expect(p.result).toMatchObject({ content: '', finishReason: 'tool_calls' });
		const full = p.accumulator.toCompletion() as {
			choices: Array<{ message: Record<string, unknown> }>;
		};
		expect(full.choices).toHaveLength(2);
		expect(full.choices[1].message.content).toBe('other');
		expect(full.choices[0].message.tool_calls).toHaveLength(1);
	});

	it('non-streaming answers: content from choices[].message.content (text or parts), usage; error and empty answers refused', () => {
		expect(
			chatFromJson({
				id: 'x',
				choices: [
					{ index: 0, message: { role: 'assistant', content: 'hello' }, finish_reason: 'stop' },
				],
				usage: { total_tokens: 3 },
			}),
		).toMatchObject({ content: 'hello', finishReason: 'stop', usage: { total_tokens: 3 } });
		expect(
			chatFromJson({
				choices: [
					{
						message: {
							content: [
								{ type: 'text', text: 'a' },
								{ type: 'text', text: 'b' },
							],
						},
					},
				],
			}).content,
		).toBe('ab');
		expect(() => chatFromJson({ error: { message: 'quota exceeded' } })).toThrow(/quota exceeded/);
		expect(() => chatFromJson({ choices: [] })).toThrow(/holds no choices/);
	});
});

describe('responses stream parser', () => {
	const bytes = Buffer.from(RESP_STREAM, 'utf8');

	it('split at every byte boundary: same text (walked from output[].content[]), status, usage; deltas join to the text', () => {
		for (let cut = 0; cut <= bytes.length; cut++) {
			const { parser, deltas } = run(makeResp, bytes, [cut]);
			const r = (parser as ResponsesStreamParser).result;
			expect(r).toMatchObject({
				text: CHAT_TEXT,
				done: true,
				status: 'completed',
				usage: { total_tokens: 7 },
				id: 'r1',
			});
			expect(deltas.join('')).toBe(CHAT_TEXT);
		}
	});

	it('one byte at a time, and 300 random multi-way splits', () => {
		expect(
			(
				run(
					makeResp,
					bytes,
					Array.from({ length: bytes.length }, (_, i) => i),
				).parser as ResponsesStreamParser
			).result.text,
		).toBe(CHAT_TEXT);
		const r = rng(11);
		for (let k = 0; k < 300; k++) {
			const cuts = Array.from({ length: 1 + Math.floor(r() * 20) }, () =>
				Math.floor(r() * bytes.length),
			).sort((a, b) => a - b);
			expect((run(makeResp, bytes, cuts).parser as ResponsesStreamParser).result.text).toBe(
				CHAT_TEXT,
			);
		}
	});

	it('the text comes from output[].content[], never from a top-level output_text', () => {
		const p = makeResp();
		p.feed(
			respEvent('response.output_text.delta', { delta: 'x' }) +
				respEvent('response.completed', { response: { ...RESP_FINAL, output_text: 'WRONG' } }),
		);
		p.end();
		expect(p.result.text).toBe(CHAT_TEXT);
		expect(
			textFromOutput([
				{ type: 'reasoning' },
				{
					type: 'message',
					content: [
						{ type: 'output_text', text: 'a' },
						{ type: 'refusal', refusal: 'no' },
						{ type: 'output_text', text: 'b' },
					],
				},
			]),
		).toBe('ab');
		expect(
			responsesFromJson({
				output_text: 'WRONG',
				output: [{ type: 'message', content: [{ type: 'output_text', text: 'right' }] }],
				status: 'completed',
			}).text,
		).toBe('right');
	});

	it('a reduced event set: data-only events typed by their JSON, completion without output, [DONE] ignored', () => {
		const p = makeResp();
		p.feed('data: {"type":"response.output_text.delta","delta":"he"}\n\n');
		p.feed('data: {"type":"response.output_text.delta","delta":"llo"}\n\n');
		p.feed(
			'data: {"type":"response.output_item.done","output_index":0,"item":{"type":"message","content":[{"type":"output_text","text":"hello"}]}}\n\n',
		);
		p.feed('data: [DONE]\n\n');
		p.feed('data: {"type":"response.completed","response":{"id":"r9","status":"completed"}}\n\n');
		p.end();
		expect(p.result).toMatchObject({ text: 'hello', status: 'completed', id: 'r9' });
		expect((p.result.response as { output: unknown[] }).output).toHaveLength(1);
		const q = makeResp();
		q.feed(
			respEvent('response.output_text.delta', { delta: 'only deltas' }) +
				respEvent('response.completed', { response: {} }),
		);
		q.end();
		expect(q.result.text).toBe('only deltas');
	});

	it('named events it does not use are not parsed (content_part, ping with text data); plain-text error events are errors', () => {
		const p = makeResp();
		p.feed(
			'event: ping\ndata: ping\n\n' +
				respEvent('response.content_part.added', { part: { type: 'output_text', text: '' } }) +
				respEvent('response.output_text.delta', { delta: 'x' }) +
				respEvent('response.completed', { response: { status: 'completed' } }),
		);
		p.end();
		expect(p.result.text).toBe('x');
		expect(failure(makeResp, 'event: error\ndata: overloaded\n\n').message).toBe(
			'the gateway reported an error in the answer: overloaded',
		);
	});

	it('response.incomplete ends the stream with its reason', () => {
		const p = makeResp();
		p.feed(
			respEvent('response.output_text.delta', { delta: 'part' }) +
				respEvent('response.incomplete', {
					response: {
						status: 'incomplete',
						incomplete_details: { reason: 'max_output_tokens' },
						output: [{ type: 'message', content: [{ type: 'output_text', text: 'part' }] }],
					},
				}),
		);
		p.end();
		expect(p.result).toMatchObject({
			text: 'part',
			status: 'incomplete',
			incompleteReason: 'max_output_tokens',
			done: true,
		});
	});

	it('no completion event is an error; so is a cut at every byte before it', () => {
		const err = failure(
			makeResp,
			RESP_STREAM.slice(0, RESP_STREAM.indexOf('event: response.completed')),
		);
		expect(err).toMatchObject({ kind: 'incomplete', partialText: CHAT_TEXT });
		expect(err.message).toMatch(
			/^the stream ended before response\.completed \(or response\.incomplete\) after 16 characters/,
		);
		const end = bytes.indexOf('event: response.completed');
		for (let cut = end; cut < bytes.length - 2; cut++)
			expect(failure(makeResp, bytes.subarray(0, cut)).kind).toBe('incomplete');
	});

	it('the spec names no completion event: any response.* event whose response says completed or incomplete ends the answer, named or typed in its JSON', () => {
		const named = makeResp();
		named.feed(
			respEvent('response.output_text.delta', { delta: 'he' }) +
				respEvent('response.in_progress', { response: { status: 'in_progress' } }) +
				respEvent('response.done', { response: { ...RESP_FINAL, id: 'r7' } }),
		);
		named.end();
		expect(named.result).toMatchObject({
			text: CHAT_TEXT,
			status: 'completed',
			id: 'r7',
			done: true,
		});
		const typed = makeResp();
		typed.feed(
			'data: {"type":"response.output_text.delta","delta":"hi"}\n\ndata: {"type":"response.finished","response":{"status":"Incomplete","incomplete_details":{"reason":"max_output_tokens"}}}\n\n',
		);
		typed.end();
		expect(typed.result).toMatchObject({
			text: 'hi',
			status: 'Incomplete',
			incompleteReason: 'max_output_tokens',
			done: true,
		});
		// an event that only names an item's status is not the response ending
		expect(
			failure(
				makeResp,
				respEvent('response.output_item.done', {
					item: { type: 'message', status: 'completed', content: [] },
				}),
			).kind,
		).toBe('incomplete');
	});

	it('a response.* event whose response says cancelled or failed is a failure with the gateway message', () => {
		expect(
			failure(
				makeResp,
				respEvent('response.output_text.delta', { delta: 'p' }) +
					respEvent('response.cancelled', { response: { status: 'cancelled' } }),
			).message,
		).toMatch(/ended the answer with status "cancelled" \(event response\.cancelled\)/);
		expect(
			failure(
				makeResp,
				respEvent('response.ended', {
					response: {
						status: 'failed',
						error: { message: 'quota gone', code: 'insufficient_quota' },
					},
				}),
			).message,
		).toMatch(/quota gone \(insufficient_quota\)/);
	});

	it('error and response.failed events are errors with their message', () => {
		expect(
			failure(
				makeResp,
				respEvent('response.output_text.delta', { delta: 'p' }) +
					respEvent('error', { message: 'upstream stream failed', code: 'stream_error' }),
			).message,
		).toBe('the gateway reported an error in the answer: upstream stream failed (stream_error)');
		expect(
			failure(
				makeResp,
				respEvent('response.failed', {
					response: { status: 'failed', error: { code: 'server_error', message: 'model crashed' } },
				}),
			).message,
		).toMatch(/model crashed \(server_error\)/);
		expect(() =>
			responsesFromJson({ status: 'failed', error: { message: 'nope' }, output: [] }),
		).toThrow(/nope/);
	});
});

describe('pumpStream: reading an HTTP-like body', () => {
	it('1-byte network chunks through the stream reader give the same answer', async () => {
		const bytes = Buffer.from(CHAT_STREAM, 'utf8');
		const p = makeChat();
		await pumpStream(Readable.from(Array.from(bytes, (b) => Buffer.from([b]))), p, {
			idleMs: 5000,
		});
		expect(p.result.content).toBe(CHAT_TEXT);
	});

	it('an idle stream fails after the idle timeout with what arrived, instead of hanging', async () => {
		const body = new Readable({ read() {} });
		body.push(chatChunk([{ index: 0, delta: { content: 'so far' } }]));
		const p = makeChat();
		const err = (await pumpStream(body, p, { idleMs: 150 }).catch((e) => e)) as StreamError;
		expect(err).toMatchObject({ kind: 'idle', partialText: 'so far' });
		expect(err.message).toMatch(
			/no data arrived for 150 ms \(stream idle timeout\) before \[DONE\] after 6 characters/,
		);
		expect(body.destroyed).toBe(true);
	});

	it('keep-alive lines count as activity for the idle timeout', async () => {
		const body = new Readable({ read() {} });
		const p = makeChat();
		const done = pumpStream(body, p, { idleMs: 200 });
		for (let k = 0; k < 5; k++) {
			await new Promise((r) => setTimeout(r, 80));
			body.push(': PING\n\n');
		}
		body.push(chatChunk([{ index: 0, delta: { content: 'late' } }]) + 'data: [DONE]\n\n');
		await done;
		expect(p.result.content).toBe('late');
	});

	it('a body that ends before [DONE] is an incomplete answer, never a short one', async () => {
		const p = makeChat();
		const err = (await pumpStream(
			Readable.from([chatChunk([{ index: 0, delta: { content: 'half' } }])]),
			p,
			{ idleMs: 5000 },
		).catch((e) => e)) as StreamError;
		expect(err).toBeInstanceOf(StreamError);
		expect(err).toMatchObject({ kind: 'incomplete', partialText: 'half' });
		expect(err.message).toMatch(/^the stream ended before \[DONE\] after 4 characters/);
	});

	it('the cancel signal stops reading at once', async () => {
		const body = new Readable({ read() {} });
		const ac = new AbortController();
		const p = makeChat();
		const pending = pumpStream(body, p, { idleMs: 60_000, signal: ac.signal });
		// cancelled once the stream is being read (its first delta parsed), with no end in sight
		body.push(chatChunk([{ index: 0, delta: { content: 'a' } }]));
		await waitFor(() => p.result.content === 'a', 'the first delta read');
		ac.abort();
		await expect(pending).rejects.toMatchObject({ kind: 'cancelled' });
		expect(body.destroyed).toBe(true);
	});

	it('a body that errors mid-way is an incomplete answer', async () => {
		const body = new Readable({ read() {} });
		const p = makeChat();
		const pending = pumpStream(body, p, { idleMs: 5000 });
		body.push(chatChunk([{ index: 0, delta: { content: 'abc' } }]));
		await waitFor(() => p.result.content === 'abc', 'the first delta read');
		body.destroy(Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }));
		const err = (await pending.catch((e) => e)) as StreamError;
		expect(err.message).toMatch(
			/^the stream broke off \(other side closed\) before \[DONE\] after 3 characters/,
		);
	});

	it('a parser that throws inside feed ends the pump with that error', async () => {
		const broken: StreamParser = {
			feed: () => {
				throw new StreamError('x', 'unreadable');
			},
			end: () => {},
			finished: false,
			receivedText: '',
			marker: 'm',
		};
		await expect(
			pumpStream(Readable.from([Buffer.from('a')]), broken, { idleMs: 1000 }),
		).rejects.toMatchObject({ kind: 'unreadable' });
	});
});

describe('request schemas', () => {
	const violations = (fn: () => unknown): string[] => {
		try {
			fn();
		} catch (err) {
			if (err instanceof InputRuleError) return err.violations.map((v) => `${v.field}: ${v.rule}`);
			throw err;
		}
		return [];
	};

	it('messages: a non-empty array of {role in system|user|assistant|tool|developer, content}', () => {
		const ok = {
			model: 'm',
			stream: false,
			messages: [
				{ role: 'developer', content: 'x' },
				{ role: 'user', content: [{ type: 'text', text: 'hi' }] },
				{ role: 'assistant', content: null, tool_calls: [{ id: 'c' }] },
				{ role: 'tool', content: '', tool_call_id: 'c' },
			],
		};
		expect(violations(() => parseOrThrow(chatBodySchema, ok))).toEqual([]);
		expect(
			violations(() => parseOrThrow(chatBodySchema, { model: 'm', stream: false, messages: [] })),
		).toEqual(['messages: must hold at least one message']);
		expect(
			violations(() =>
				parseOrThrow(chatBodySchema, {
					model: ' ',
					stream: 'yes',
					messages: [
						{ role: 'robot', content: 'x' },
						{ role: 'user', content: ' ' },
						{ role: 'user' },
						'hi',
					],
				}),
			),
		).toEqual([
			'model: is required',
			'messages[0].role: must be one of system, user, assistant, tool, developer',
			'messages[1].content: must not be empty for a user message',
			'messages[2].content: is required',
			'messages[3]: must be a {role, content} object',
			'stream: must be true or false',
		]);
	});

	it('Messages JSON that is not an array is refused naming the field', () => {
		expect(violations(() => messagesFromJson({ role: 'user' }, 'Messages JSON'))).toEqual([
			'Messages JSON: must be a JSON array of {role, content} messages, but the value is an object',
		]);
		expect(violations(() => messagesFromJson('{"role":"user"}', 'Messages JSON'))).toEqual([
			'Messages JSON: must be a JSON array of {role, content} messages, but the value is an object',
		]);
		expect(violations(() => messagesFromJson('[{"role":', 'Messages JSON'))).toEqual([
			'Messages JSON: must be a JSON array of {role, content} messages (the text is not valid JSON)',
		]);
		expect(violations(() => messagesFromJson(42, 'Messages JSON'))).toEqual([
			'Messages JSON: must be a JSON array of {role, content} messages, but the value is a number',
		]);
		expect(messagesFromJson('[{"role":"user","content":"x"}]', 'Messages JSON')).toEqual([
			{ role: 'user', content: 'x' },
		]);
	});

	it('responses input: text or a non-empty array', () => {
		expect(
			violations(() =>
				parseOrThrow(responsesBodySchema, { model: 'm', input: 'hi', stream: true }),
			),
		).toEqual([]);
		expect(
			violations(() =>
				parseOrThrow(responsesBodySchema, {
					model: 'm',
					input: [{ role: 'user', content: 'hi' }],
					stream: true,
				}),
			),
		).toEqual([]);
		expect(
			violations(() =>
				parseOrThrow(responsesBodySchema, { model: 'm', input: '  ', stream: true }),
			),
		).toEqual(['input: must not be empty']);
		expect(
			violations(() => parseOrThrow(responsesBodySchema, { model: 'm', input: 5, stream: true })),
		).toEqual(['input: must be text or an array of input items']);
	});

	it('extra body fields: a JSON object that does not set the node’s own fields', () => {
		const body = { model: 'm', messages: [], stream: true };
		expect(mergeExtra(body, '{"temperature":0.2}', 'Extra Body Fields')).toEqual({
			...body,
			temperature: 0.2,
		});
		expect(mergeExtra(body, { max_tokens: 5 }, 'Extra Body Fields')).toEqual({
			...body,
			max_tokens: 5,
		});
		expect(mergeExtra(body, '', 'Extra Body Fields')).toBe(body);
		expect(
			violations(() => mergeExtra(body, '{"stream":false,"model":"x"}', 'Extra Body Fields')),
		).toEqual(["Extra Body Fields: must not set stream, model: the node's own fields set them"]);
		expect(violations(() => mergeExtra(body, '[1]', 'Extra Body Fields'))).toEqual([
			'Extra Body Fields: must be a JSON object, not an array',
		]);
		expect(violations(() => mergeExtra(body, '{oops', 'Extra Body Fields'))).toEqual([
			'Extra Body Fields: must be a JSON object (the text is not valid JSON)',
		]);
	});
});
