import { Readable } from 'node:stream';
import type { EventSourceMessage } from 'eventsource-parser';
import { startSimulator, type Simulator } from '../../simulator';
import { GenGatewayChat } from '../../nodes/GenGatewayChat/GenGatewayChat.node';
import { GenGatewayResponses } from '../../nodes/GenGatewayResponses/GenGatewayResponses.node';
import { ChatStreamAccumulator } from '../../nodes/shared/text/chatStream';
import { ResponsesStreamAccumulator, textFromOutput } from '../../nodes/shared/text/responsesStream';
import { readSse } from '../../nodes/shared/text/sse';
import { cleanupBinaryData, runWorkflow } from '../harness/workflow';

const CHAT_STREAM = [
	': PING\n\n',
	'data: {"id":"c1","model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}\n\n',
	'data: {"id":"c1","choices":[{"index":0,"delta":{"content":"Grüße "}}]}\n\n',
	': keep-alive\n\n',
	'data: {"id":"c1","choices":[{"index":0,"delta":{"content":"✓ ok"},"finish_reason":"stop"}]}\n\n',
	'data: {"id":"c1","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":4,"total_tokens":7}}\n\n',
	'data: [DONE]\n\n',
].join('');

const RESP_STREAM = [
	'event: response.created\ndata: {"type":"response.created","response":{"id":"r1","model":"m","status":"in_progress","output":[]}}\n\n',
	'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","delta":"Grüße "}\n\n',
	': PING\n\n',
	'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","delta":"✓ ok"}\n\n',
	'event: response.completed\ndata: {"type":"response.completed","response":{"id":"r1","model":"m","status":"completed","output":[{"type":"reasoning"},{"type":"message","content":[{"type":"output_text","text":"Grüße ✓ ok"}]}],"usage":{"input_tokens":3,"output_tokens":4}}}\n\n',
].join('');

/** Feeds the bytes split at `cut` through the real SSE reader. */
async function parseSplit(text: string, cut: number, feed: (e: EventSourceMessage) => string | 'done') {
	const bytes = Buffer.from(text, 'utf8');
	const body = Readable.from([bytes.subarray(0, cut), bytes.subarray(cut)]);
	return readSse(body, (e) => (feed(e) === 'done' ? 'stop' : undefined), 5000);
}

describe('SSE parsers, split at every byte boundary', () => {
	it('chat: same message, usage and [DONE] for every split point (incl. inside multi-byte characters)', async () => {
		const n = Buffer.byteLength(CHAT_STREAM);
		for (let cut = 0; cut <= n; cut++) {
			const acc = new ChatStreamAccumulator();
			await parseSplit(CHAT_STREAM, cut, (e) => acc.feed(e));
			expect(acc.result).toMatchObject({ content: 'Grüße ✓ ok', done: true, finishReason: 'stop', usage: { total_tokens: 7 } });
		}
	});

	it('responses: same text and completion for every split point', async () => {
		const n = Buffer.byteLength(RESP_STREAM);
		for (let cut = 0; cut <= n; cut++) {
			const acc = new ResponsesStreamAccumulator();
			await parseSplit(RESP_STREAM, cut, (e) => acc.feed(e));
			expect(acc.result).toMatchObject({ text: 'Grüße ✓ ok', done: true, status: 'completed' });
		}
	});

	it('reads responses text by walking output[].content[] only', () => {
		expect(textFromOutput([{ type: 'reasoning', summary: [] }, { type: 'message', content: [{ type: 'output_text', text: 'a' }, { type: 'output_text', text: 'b' }] }])).toBe('ab');
		expect(textFromOutput(undefined)).toBe('');
	});

	it('an idle stream fails instead of hanging', async () => {
		const body = new Readable({ read() {} });
		body.push('data: {"choices":[]}\n\n');
		await expect(readSse(body, () => undefined, 100)).rejects.toThrow(/idle/);
		body.destroy();
	});
});

describe('Chat and Responses nodes against the simulator', () => {
	let sim: Simulator;
	beforeAll(async () => {
		sim = await startSimulator({ quiet: true, syncLatencyMs: 5 });
	});
	afterAll(async () => {
		await sim.stop();
		cleanupBinaryData();
	});
	const creds = () => ({ apiKey: sim.keys.demo, baseUrl: sim.baseUrl });
	const model = { __rl: true, mode: 'id', value: 'alpha-chat-4o' };
	const chat = (content: string, stream: boolean, extra: Record<string, unknown> = {}) => ({
		name: 'Chat',
		type: new GenGatewayChat(),
		parameters: { model, messagesFrom: 'ui', messages: { values: [{ role: 'system', content: 'be brief' }, { role: 'user', content }] }, stream, ...extra },
	});
	const responses = (input: string, stream: boolean) => ({ name: 'Responses', type: new GenGatewayResponses(), parameters: { model, input, stream } });
	const posts = () => sim.log.filter((l) => l.method === 'POST').length;

	it.each([false, true])('chat, stream=%s: the whole answer, usage and finish reason', async (stream) => {
		const r = await runWorkflow({ nodes: [chat('hello there', stream)], credentials: creds() });
		expect(r.error).toBeUndefined();
		const j = r.output('Chat')[0].json;
		expect(j.text).toMatch(/^Simulated answer: hello there — with a little ünïcödé ✓ and more words to stream\.$/);
		expect(j).toMatchObject({ finish_reason: 'stop', streamed: stream });
		expect((j.usage as Record<string, number>).total_tokens).toBeGreaterThan(0);
	});

	it('when n8n streams the execution, deltas are forwarded with sendChunk as they arrive (chat and responses)', async () => {
		for (const node of [chat('forward me', true), responses('forward me', true)]) {
			const chunks: Array<{ type: string; content?: string }> = [];
			const r = await runWorkflow({ nodes: [node], credentials: creds(), onChunk: (c) => chunks.push(c) });
			const text = r.output(node.name)[0].json.text;
			expect(chunks[0].type).toBe('begin');
			expect(chunks.at(-1)!.type).toBe('end');
			const items = chunks.filter((c) => c.type === 'item');
			expect(items.length).toBeGreaterThan(5);
			expect(items.map((c) => c.content).join('')).toBe(text);
		}
	});

	it('chat stream split into tiny pieces with keep-alive lines gives the same text', async () => {
		const r = await runWorkflow({ nodes: [chat('split me [split]', true)], credentials: creds() });
		expect(r.error).toBeUndefined();
		expect(r.output('Chat')[0].json.text).toBe('Simulated answer: split me — with a little ünïcödé ✓ and more words to stream.');
	});

	it('a chat stream cut mid-way is an error, never a truncated answer; the POST is not resent', async () => {
		const before = posts();
		const r = await runWorkflow({ nodes: [{ ...chat('cut me [cut]', true), onError: 'continueRegularOutput' }], credentials: creds() });
		expect(String(r.output('Chat')[0].json.error)).toMatch(/ended before \[DONE\]|broke off/);
		expect(posts() - before).toBe(1);
	});

	it('an error event mid-stream is an error with its message', async () => {
		const r = await runWorkflow({ nodes: [chat('oops [sse-error]', true)], credentials: creds() });
		expect(r.error).toMatch(/upstream stream failed/);
	});

	it('JSON answered to a streaming request is handled', async () => {
		const r = await runWorkflow({ nodes: [chat('plain please [nostream]', true)], credentials: creds() });
		expect(r.output('Chat')[0].json).toMatchObject({ streamed: false, finish_reason: 'stop' });
		expect(String(r.output('Chat')[0].json.text)).toContain('plain please');
	});

	it('messages from a JSON expression; a non-array is refused naming the field before sending', async () => {
		const ok = await runWorkflow({ nodes: [chat('', false, { messagesFrom: 'json', messagesJson: '={{ $json.msgs }}' })], input: [{ json: { msgs: [{ role: 'user', content: 'from json' }] } }], credentials: creds() });
		expect(String(ok.output('Chat')[0].json.text)).toContain('from json');
		const before = posts();
		const bad = await runWorkflow({ nodes: [{ ...chat('', false, { messagesFrom: 'json', messagesJson: '={{ $json.msgs }}' }), onError: 'continueRegularOutput' }], input: [{ json: { msgs: { role: 'user' } } }, { json: { msgs: [{ role: 'robot', content: 'x' }] } }], credentials: creds() });
		const out = bad.output('Chat');
		expect(out).toHaveLength(2);
		expect(String(out[0].json.error)).toMatch(/messages: must be an array/);
		expect(String(out[1].json.error)).toMatch(/messages\[0\]\.role: must be one of/);
		expect(posts()).toBe(before);
	});

	it('extra body fields are sent but never override model/messages/stream', async () => {
		const r = await runWorkflow({ nodes: [chat('extra', false, { options: { extraBody: '{"temperature":0.2,"stream":true,"model":"x"}', simplify: false } })], credentials: creds() });
		const j = r.output('Chat')[0].json;
		expect(j.object).toBe('chat.completion');
		expect(j.model).toBe('alpha-chat-4o');
	});

	it.each([false, true])('responses, stream=%s', async (stream) => {
		const r = await runWorkflow({ nodes: [responses('tell me', stream)], credentials: creds() });
		expect(r.error).toBeUndefined();
		expect(r.output('Responses')[0].json).toMatchObject({ text: 'Simulated answer: tell me — with a little ünïcödé ✓ and more words to stream.', streamed: stream, finish_reason: 'completed' });
	});

	it('responses: split stream, cut stream, error event, JSON instead of stream', async () => {
		const split = await runWorkflow({ nodes: [responses('a [split]', true)], credentials: creds() });
		expect(split.output('Responses')[0].json.text).toBe('Simulated answer: a — with a little ünïcödé ✓ and more words to stream.');
		const cut = await runWorkflow({ nodes: [responses('b [cut]', true)], credentials: creds() });
		expect(cut.error).toMatch(/ended before response.completed|broke off/);
		const err = await runWorkflow({ nodes: [responses('c [sse-error]', true)], credentials: creds() });
		expect(err.error).toMatch(/upstream stream failed/);
		const json = await runWorkflow({ nodes: [responses('d [nostream]', true)], credentials: creds() });
		expect(json.output('Responses')[0].json.streamed).toBe(false);
	});

	it('a reset after the request reached the gateway is reported as uncertain, not thrown, and not resent', async () => {
		sim.fault({ route: 'POST /v1/chat/completions', kind: 'delay', delayMs: 3000 });
		const before = posts();
		const r = await runWorkflow({ nodes: [chat('slow', false, { options: { timeoutMs: 300 } })], credentials: creds() });
		expect(r.error).toBeUndefined();
		expect(r.output('Chat')[0].json).toMatchObject({ submission_uncertain: true });
		expect(posts() - before).toBe(1);
	});
});
