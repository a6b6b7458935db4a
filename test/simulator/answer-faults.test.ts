/** Hostile JSON and stream answers: oversize JSON, the caller's key echoed back, huge indexes, stalled and endless streams, bad poll_after_ms. */
import { useSimulator } from '../harness/simulator';
import { client } from './client';
import { waitFor } from '../harness/wait';
import { readWire } from './wire';

const sim = useSimulator(
	{
		quiet: true,
		taskLatencyMs: 30,
		videoLatencyMs: 30,
		syncLatencyMs: 0,
		pollAfterMs: 40,
	},
	{ reset: true },
);
const { call, gen, delta, untilDone, videoDone } = client(() => sim);
const auth = () => ({ authorization: `Bearer ${sim.keys.demo}` });
const post = (path: string, json: unknown) =>
	readWire(`${sim.baseUrl}${path}`, {
		method: 'POST',
		headers: { ...auth(), 'content-type': 'application/json' },
		body: JSON.stringify(json),
		maxBytes: 4 * 1024 * 1024,
	});

describe('oversize-json', () => {
	it('a success route (task query): the real answer grown to `bytes`, chunked, no Content-Length, still valid JSON', async () => {
		const id = (await gen({})).json.task_id;
		sim.fault({ route: `GET /v1/images/tasks/${id}`, kind: 'oversize-json', bytes: 3_000_000 });
		const w = await readWire(`${sim.baseUrl}/v1/images/tasks/${id}`, { headers: auth() });
		expect(w.status).toBe(200);
		expect(w.headers['content-length']).toBeUndefined();
		expect(w.headers['transfer-encoding']).toBe('chunked');
		expect(w.body.length).toBe(3_000_000);
		const json = JSON.parse(w.body.toString());
		expect(json).toMatchObject({ task_id: id, object: 'image.generation.task' });
		expect(json.padding.length).toBeGreaterThan(2_900_000);
	});

	it('with `status`: an error body of `bytes` bytes; default size 200 MB', async () => {
		sim.fault({ route: 'GET /v1/models', kind: 'oversize-json', status: 502, bytes: 1_000_000 });
		const w = await readWire(`${sim.baseUrl}/v1/models`, { headers: auth() });
		expect(w.status).toBe(502);
		expect(w.headers['content-length']).toBeUndefined();
		expect(w.body.length).toBe(1_000_000);
		expect(JSON.parse(w.body.toString()).error.message.length).toBeGreaterThan(990_000);
		sim.fault({ route: 'GET /v1/models', kind: 'oversize-json' });
		const big = await readWire(`${sim.baseUrl}/v1/models`, {
			headers: auth(),
			maxBytes: 8 * 1024 * 1024,
		});
		expect(big.ended).toBe('limit');
		expect(big.headers['content-length']).toBeUndefined();
		expect(big.body.subarray(0, 20).toString()).toMatch(/^\{"object":"list"/);
	});
});

describe('echo-key: the caller’s own key in gateway text', () => {
	const key = () => sim.keys.demo;

	it('where task-error: a failed image task’s and video task’s error.message', async () => {
		sim.fault({
			route: 'POST /v1/images/generations/async',
			kind: 'echo-key',
			where: 'task-error',
		});
		const done = await untilDone((await gen({})).json.task_id);
		expect(done.json.status).toBe('failed');
		expect(done.json.error.message).toContain(key());
		sim.fault({ route: 'POST /v1/videos', kind: 'echo-key' });
		const v = await videoDone((await delta()).json.id);
		expect(v.json.status).toBe('failed');
		expect(v.json.error.message).toContain(key());
	});

	it('where image-error: a 200 image answer carrying an error object (sync and native)', async () => {
		sim.fault({ route: 'POST /v1/images/generations', kind: 'echo-key', where: 'image-error' });
		const r = await gen({}, '/v1/images/generations');
		expect(r.status).toBe(200);
		expect(r.json.data).toEqual([]);
		expect(r.json.error.message).toContain(key());
		sim.fault({ route: ':generateContent', kind: 'echo-key', where: 'image-error' });
		const n = await call('POST', '/v1beta/models/beta-3.1-flash-image-preview:generateContent', {
			json: { contents: [{ parts: [{ text: 'x' }] }] },
		});
		expect(n.status).toBe(200);
		expect(n.json.candidates).toBeUndefined();
		expect(n.json.error.message).toContain(key());
	});

	it('where stream-error: the error event of a chat and a responses stream', async () => {
		sim.fault({ route: 'POST /v1/chat/completions', kind: 'echo-key', where: 'stream-error' });
		const chat = await post('/v1/chat/completions', {
			model: 'alpha-chat-4o',
			messages: [{ role: 'user', content: 'hi' }],
			stream: true,
		});
		const errorLine = chat.body
			.toString()
			.split('\n')
			.find((l) => l.includes('"error"'))!;
		expect(JSON.parse(errorLine.slice(6)).error.message).toContain(key());
		sim.fault({ route: 'POST /v1/responses', kind: 'echo-key', where: 'stream-error' });
		const resp = (
			await post('/v1/responses', { model: 'alpha-chat-4o', input: 'hi', stream: true })
		).body.toString();
		const block = resp.split('\n\n').find((b) => b.startsWith('event: error'))!;
		expect(JSON.parse(block.split('\ndata: ')[1]).message).toContain(key());
	});

	it('where headers: an answer echoing the request headers, Authorization included', async () => {
		sim.fault({ route: 'GET /v1/models', kind: 'echo-key', where: 'headers' });
		const r = await call('GET', '/v1/models', { headers: { 'x-trace': 't1' } });
		expect(r.status).toBe(200);
		expect(r.json.request_headers).toMatchObject({
			authorization: `Bearer ${key()}`,
			'x-trace': 't1',
		});
		expect(r.json.data.length).toBeGreaterThan(0);
		sim.fault({ route: 'GET /v1/tasks/', kind: 'echo-key', where: 'headers' });
		const err = await call('GET', '/v1/tasks/nope');
		expect(err.status).toBe(404);
		expect(err.json.request_headers.authorization).toContain(key());
	});
});

describe('stream faults', () => {
	it('huge-index: a chat tool-call delta with index 100000000, and a responses stream with output_index 100000000', async () => {
		sim.fault({ route: 'POST /v1/chat/completions', kind: 'huge-index' });
		const chat = (
			await post('/v1/chat/completions', {
				model: 'alpha-chat-4o',
				messages: [{ role: 'user', content: 'hi' }],
				stream: true,
			})
		).body.toString();
		expect(chat.length).toBeLessThan(600);
		const first = JSON.parse(
			chat
				.split('\n')
				.find((l) => l.startsWith('data: {'))!
				.slice(6),
		);
		expect(first.choices[0].delta.tool_calls[0].index).toBe(100_000_000);
		expect(chat.trim().endsWith('data: [DONE]')).toBe(true);
		sim.fault({ route: 'POST /v1/responses', kind: 'huge-index' });
		const resp = (
			await post('/v1/responses', { model: 'alpha-chat-4o', input: 'hi', stream: true })
		).body.toString();
		const indexes = [...resp.matchAll(/"output_index":(\d+)/g)].map((m) => Number(m[1]));
		expect(indexes.length).toBeGreaterThan(0);
		expect(indexes.every((i) => i === 100_000_000)).toBe(true);
		expect(resp).toContain('event: response.completed');
	});

	it('sse-stall: only `: PING` every intervalMs, never [DONE] or a completion', async () => {
		for (const [path, body] of [
			[
				'/v1/chat/completions',
				{ model: 'alpha-chat-4o', messages: [{ role: 'user', content: 'hi' }], stream: true },
			],
			['/v1/responses', { model: 'alpha-chat-4o', input: 'hi', stream: true }],
		] as const) {
			sim.fault({ route: `POST ${path}`, kind: 'sse-stall', intervalMs: 50 });
			const w = await readWire(`${sim.baseUrl}${path}`, {
				method: 'POST',
				headers: { ...auth(), 'content-type': 'application/json' },
				body: JSON.stringify(body),
				timeoutMs: 600,
			});
			expect(w.status).toBe(200);
			expect(w.headers['content-type']).toBe('text/event-stream');
			expect(w.ended).toBe('timeout');
			const text = w.body.toString();
			expect(text.replace(/: PING\n\n/g, '')).toBe('');
			expect(text.match(/: PING/g)!.length).toBeGreaterThanOrEqual(6);
		}
	});

	it('sse-endless-line: one data: line that never ends', async () => {
		sim.fault({ route: 'POST /v1/chat/completions', kind: 'sse-endless-line' });
		const w = await readWire(`${sim.baseUrl}/v1/chat/completions`, {
			method: 'POST',
			headers: { ...auth(), 'content-type': 'application/json' },
			body: JSON.stringify({
				model: 'alpha-chat-4o',
				messages: [{ role: 'user', content: 'hi' }],
				stream: true,
			}),
			maxBytes: 4 * 1024 * 1024,
		});
		expect(w.ended).toBe('limit');
		expect(w.body.subarray(0, 6).toString()).toBe('data: ');
		expect(w.body.includes('\n')).toBe(false);
		expect(w.body.includes('\r')).toBe(false);
	});
});

describe('bad-poll-after', () => {
	it.each([['soon'], [0], [-5], [1e12], [null]])(
		'on the submit route: every answer about the task carries poll_after_ms %p',
		async (value) => {
			sim.fault({ route: 'POST /v1/images/generations/async', kind: 'bad-poll-after', value });
			const t = (await gen({})).json;
			expect(t.poll_after_ms).toEqual(value);
			expect((await call('GET', `/v1/images/tasks/${t.task_id}`)).json.poll_after_ms).toEqual(
				value,
			);
			expect((await gen({})).json.poll_after_ms).toBe(40);
		},
	);

	it('on a query route: that answer only; the default value is a non-numeric string', async () => {
		const id = (await gen({})).json.task_id;
		sim.fault({ route: `GET /v1/images/tasks/${id}`, kind: 'bad-poll-after' });
		expect((await call('GET', `/v1/images/tasks/${id}`)).json.poll_after_ms).toBe('soon');
		await waitFor(() => sim.log.at(-1)?.status, 'the faulty answer sent');
		expect((await call('GET', `/v1/images/tasks/${id}`)).json.poll_after_ms).toBe(40);
	});
});

describe('oversize-b64', () => {
	const b64Of = (text: string) => /"b64_json":"([^"]*)/.exec(text)![1];

	it('async submission: once done, every answer about the task carries a b64_json that grows it to `bytes`, chunked', async () => {
		sim.fault({
			route: 'POST /v1/images/generations/async',
			kind: 'oversize-b64',
			bytes: 3_000_000,
		});
		const t = (await gen({})).json;
		expect(t.status).not.toBe('completed');
		await untilDone(t.task_id);
		for (let k = 0; k < 2; k++) {
			const w = await readWire(`${sim.baseUrl}/v1/images/tasks/${t.task_id}`, { headers: auth() });
			expect(w.status).toBe(200);
			expect(w.headers['content-length']).toBeUndefined();
			expect(w.headers['transfer-encoding']).toBe('chunked');
			expect(w.body.length).toBe(3_000_000);
			const json = JSON.parse(w.body.toString());
			expect(json).toMatchObject({ task_id: t.task_id, status: 'completed' });
			const b64 = json.data[0].b64_json as string;
			expect(b64.length).toBeGreaterThan(2_900_000);
			expect(b64).toMatch(/^[A-Za-z0-9+/]+$/);
			// a PNG header of the task's size, then filler
			const head = Buffer.from(b64.slice(0, 44), 'base64');
			expect(head.subarray(1, 4).toString()).toBe('PNG');
			// the spec: a 1024 square of alpha-image-2.5 may come back as 1024 or 1254
			expect([
				[1024, 1024],
				[1254, 1254],
			]).toContainEqual([head.readUInt32BE(16), head.readUInt32BE(20)]);
			expect(json.result.data[0].b64_json).toBe(b64.slice(0, 44));
		}
		// the next task is normal
		const next = await untilDone((await gen({})).json.task_id);
		expect(next.json.data[0].url).toMatch(/^http/);
	});

	it('sync image: the answer is grown the same way (default 200 MB)', async () => {
		sim.fault({ route: 'POST /v1/images/generations', kind: 'oversize-b64' });
		const w = await readWire(`${sim.baseUrl}/v1/images/generations`, {
			method: 'POST',
			headers: { ...auth(), 'content-type': 'application/json' },
			body: JSON.stringify({ model: 'alpha-image-2.5', prompt: 'x', size: '1024x1024' }),
			maxBytes: 4 * 1024 * 1024,
		});
		expect(w.status).toBe(200);
		expect(w.ended).toBe('limit');
		expect(w.headers['content-length']).toBeUndefined();
		expect(b64Of(w.body.toString()).length).toBeGreaterThan(4_000_000 - 200);
	});
});
