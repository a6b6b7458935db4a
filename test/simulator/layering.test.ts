/**
 * The simulator's layering: a faithful route table (simulator/gateway/) that knows nothing of faults, and a fault
 * layer (simulator/faults/) in front of it that handles every fault kind. The faithful gateway is run here alone,
 * without the fault layer and with the fault book made unreachable, through the spec's endpoints and examples.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { FAULT_KINDS, FaultBook } from '../../simulator/faults/book';
import { writeAnswer } from '../../simulator/gateway/answer';
import { answerGateway } from '../../simulator/gateway/front';
import { resultHost, sendDownload } from '../../simulator/gateway/results';
import { routeOf } from '../../simulator/gateway/routes';
import { HAPPY_PATH } from '../../simulator/gateway/upstream';
import { SimState, type RequestLogEntry, type ServerName } from '../../simulator/state';
import { importCycles, importGraph, layerOf, MAY_IMPORT, simulatorFiles } from './import-graph';
import { waitFor } from '../harness/wait';

const SIM = join(__dirname, '../../simulator');
const sources = (dir: string) =>
	readdirSync(join(SIM, dir))
		.filter((f) => f.endsWith('.ts'))
		.map((f) => ({ file: `${dir}/${f}`, text: readFileSync(join(SIM, dir, f), 'utf8') }));

describe('layering: the faithful gateway knows nothing of faults', () => {
	it.each(sources('gateway').map((s) => [s.file, s.text]))(
		'%s imports nothing of the fault layer and never reads the fault book',
		(_file, text) => {
			expect(text).not.toMatch(/from '\.\.\/faults\//);
			expect(text).not.toMatch(/\.faults\b/);
			expect(text).not.toMatch(/\bFault(Spec|Kind|Book|Layer)\b/);
		},
	);

	it('every fault kind is handled by the fault layer', () => {
		const layer = sources('faults')
			.filter((s) => s.file !== 'faults/book.ts')
			.map((s) => s.text)
			.join('\n');
		const unhandled = FAULT_KINDS.filter((k) => !layer.includes(`'${k}'`));
		expect(unhandled).toEqual([]);
	});
});

describe('the import graph: no circle, every layer imports only from below', () => {
	const graph = importGraph();

	it('reads every file of simulator/ and resolves every relative import', () => {
		expect(graph.size).toBeGreaterThan(30);
		const unresolved = [...graph].flatMap(([file, targets]) =>
			targets
				.filter((t) => t.startsWith('unresolved:') || t.startsWith('..'))
				.map((t) => `${file} → ${t}`),
		);
		expect(unresolved).toEqual([]);
	});

	it('has no import circle (type-only imports included)', () =>
		expect(importCycles(graph)).toEqual([]));

	it('no file of the gateway layer imports the fault layer (the fault book included)', () => {
		const reach = [...graph]
			.filter(([file]) => layerOf(file) === 'gateway')
			.flatMap(([file, targets]) =>
				targets.filter((t) => t.startsWith('faults/')).map((t) => `${file} → ${t}`),
			);
		expect(reach).toEqual([]);
	});

	it.each(Object.keys(MAY_IMPORT))('layer %s imports only from the layers it may', (layer) => {
		const wrong = [...graph]
			.filter(([file]) => layerOf(file) === layer)
			.flatMap(([file, targets]) =>
				targets.filter((t) => !MAY_IMPORT[layer].includes(layerOf(t))).map((t) => `${file} → ${t}`),
			);
		expect(wrong).toEqual([]);
	});

	it('the top level holds only the entry points and the state; everything else is in a folder', () => {
		expect(simulatorFiles().filter((f) => !f.includes('/'))).toEqual([
			'cli.ts',
			'index.ts',
			'state.ts',
		]);
	});

	it('the detector finds a circle made of type-only imports and one through a re-export', () => {
		const dir = mkdtempSync(join(tmpdir(), 'sim-graph-'));
		try {
			writeFileSync(join(dir, 'a.ts'), "import type { B } from './b';\nexport type A = B;\n");
			writeFileSync(join(dir, 'b.ts'), "export type { C as B } from './c';\n");
			writeFileSync(join(dir, 'c.ts'), "import type { A } from './a';\nexport type C = A | 1;\n");
			writeFileSync(join(dir, 'd.ts'), "import { x } from './e';\nexport const d = x;\n");
			writeFileSync(join(dir, 'e.ts'), 'export const x = 1;\n');
			expect(importCycles(importGraph(dir))).toEqual([['a.ts', 'b.ts', 'c.ts']]);
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	});
});

/** Every endpoint and alias the spec names (gateway-interface.md, "Endpoints"); the video routes also on the alternative origin. */
const SPEC_ENDPOINTS = [
	'GET /api/pricing',
	'GET /api/status',
	'GET /v1/models',
	'POST /v1/images/generations/async',
	'POST /v1/image-tasks/generations',
	'POST /v1/images/generations',
	'POST /v1/images/edits/async',
	'POST /v1/image-tasks/edits',
	'POST /v1/images/edits',
	'GET /v1/images/tasks/{task_id}',
	'GET /v1/image-tasks/{task_id}',
	'GET /v1/images/generations/{task_id}',
	'GET /v1/images/edits/{task_id}',
	'GET /v1/tasks/{task_id}',
	'POST /v1beta/models/{model}:generateContent',
	'POST /v1/chat/completions',
	'POST /v1/responses',
	'POST /v1/videos',
	'GET /v1/videos/{task_id}',
	'GET /v1/videos/{task_id}/content',
];
const VIDEO_ENDPOINTS = SPEC_ENDPOINTS.filter((e) => e.includes('/v1/videos'));

describe("the route table answers the spec's endpoints", () => {
	const concrete = (endpoint: string) => {
		const [method, path] = endpoint.split(' ');
		return [
			method,
			path.replace('{task_id}', 'task_abc123').replace('{model}', 'beta-3-pro-image-preview'),
		] as const;
	};
	it.each(SPEC_ENDPOINTS)('gateway: %s', (endpoint) =>
		expect(routeOf('gateway', ...concrete(endpoint))?.route.name).toEqual(expect.any(String)),
	);
	it.each(VIDEO_ENDPOINTS)('video origin: %s', (endpoint) =>
		expect(routeOf('alt', ...concrete(endpoint))?.route.name).toEqual(expect.any(String)),
	);
});

describe("the faithful gateway alone answers the spec's examples", () => {
	let sim: SimState;
	const servers: Server[] = [];
	let take: jest.SpyInstance;

	beforeAll(async () => {
		take = jest.spyOn(FaultBook.prototype, 'take').mockImplementation(() => {
			throw new Error('the fault book was reached');
		});
		sim = new SimState({
			taskLatencyMs: 100,
			videoLatencyMs: 150,
			pollAfterMs: 50,
			syncLatencyMs: 0,
		});
		const listen = async (server: ServerName) => {
			const s = createServer(async (raw, res) => {
				const log: RequestLogEntry = {
					time: Date.now(),
					method: raw.method ?? 'GET',
					server,
					path: raw.url ?? '/',
					status: 0,
					auth: false,
				};
				try {
					const answer =
						server === 'result'
							? resultHost(sim, raw)
							: await answerGateway(sim, server, raw, res, log, HAPPY_PATH);
					await writeAnswer(res, answer, (r, d) => sendDownload(sim, r, d));
				} catch (err) {
					res.writeHead(500).end(String(err));
				}
			});
			servers.push(s);
			await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
			return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
		};
		sim.urls.gateway = await listen('gateway');
		sim.urls.alt = await listen('alt');
		sim.urls.result = await listen('result');
	});

	afterAll(async () => {
		take.mockRestore();
		await Promise.all(
			servers.map((s) => new Promise((r) => (s.closeAllConnections(), s.close(r)))),
		);
	});

	const demo = () => [...sim.keys.entries()].find(([, k]) => k.name === 'demo')![0];
	async function call(method: string, url: string, body?: unknown) {
		const res = await request(url.startsWith('http') ? url : `${sim.urls.gateway}${url}`, {
			method: method as 'GET',
			headers: {
				authorization: `Bearer ${demo()}`,
				...(body ? { 'content-type': 'application/json' } : {}),
			},
			body: body ? JSON.stringify(body) : undefined,
		});
		const buf = Buffer.from(await res.body.arrayBuffer());
		const type = String(res.headers['content-type'] ?? '');
		return {
			status: res.statusCode,
			type,
			buf,
			json: type.includes('json') ? JSON.parse(buf.toString('utf8')) : undefined,
			text: buf.toString('utf8'),
		};
	}
	const until = <T>(f: () => Promise<T>, done: (x: T) => boolean): Promise<T> =>
		waitFor(async () => {
			const x = await f();
			return done(x) && { x };
		}, 'done').then((r) => r.x);

	it('models, prices and status', async () => {
		expect((await call('GET', '/v1/models')).json.data.length).toBeGreaterThan(5);
		expect((await call('GET', '/api/pricing')).json.success).toBe(true);
		expect((await call('GET', '/api/status')).json.data.quota_per_unit).toBe(500_000);
	});

	it('an asynchronous image task: submitted, completed, its result downloaded', async () => {
		const submit = await call('POST', '/v1/images/generations/async', {
			model: 'alpha-image-2',
			prompt: 'a red fox in the snow',
			size: '1024x1024',
		});
		expect([submit.status, submit.json.status]).toEqual([202, 'processing']);
		const done = await until(
			() => call('GET', `/v1/images/tasks/${submit.json.id}`),
			(a) => a.json.status !== 'processing',
		);
		expect(done.json.status).toBe('completed');
		const image = await call('GET', done.json.data[0].url);
		expect([image.status, image.type]).toEqual([200, expect.stringMatching(/^image\//)]);
	});

	it('a synchronous image and a native generateContent image', async () => {
		const sync = await call('POST', '/v1/images/generations', {
			model: 'alpha-image-2',
			prompt: 'a lighthouse',
			response_format: 'b64_json',
		});
		expect(sync.status).toBe(200);
		expect(Buffer.from(sync.json.data[0].b64_json, 'base64').length).toBeGreaterThan(100);
		const native = await call('POST', '/v1beta/models/beta-3-pro-image-preview:generateContent', {
			contents: [{ parts: [{ text: 'a lighthouse' }] }],
		});
		expect(native.status).toBe(200);
		expect(native.json.candidates[0].finishReason).toBe('STOP');
	});

	it('chat completions and responses, plain and streamed', async () => {
		const model = 'alpha-chat-4o';
		expect(
			(
				await call('POST', '/v1/chat/completions', {
					model,
					messages: [{ role: 'user', content: 'hi' }],
				})
			).json.choices[0].message.content,
		).toMatch(/hi/);
		const stream = await call('POST', '/v1/chat/completions', {
			model,
			stream: true,
			messages: [{ role: 'user', content: 'hi' }],
		});
		expect([stream.type, stream.text.trim().endsWith('data: [DONE]')]).toEqual([
			'text/event-stream',
			true,
		]);
		const responses = await call('POST', '/v1/responses', { model, stream: true, input: 'hi' });
		expect(responses.text).toContain('event: response.completed');
	});

	it('a video task on the alternative origin: created, completed, its content downloaded', async () => {
		const created = await call('POST', `${sim.urls.alt}/v1/videos`, {
			model: 'delta-video-2-0-mini-260615',
			prompt: 'waves at dusk',
		});
		expect(created.status).toBe(200);
		const done = await until(
			() => call('GET', `${sim.urls.alt}/v1/videos/${created.json.id}`),
			(a) => a.json.status === 'completed',
		);
		const content = await call('GET', done.json.content_url);
		expect([content.status, content.type, content.buf.subarray(4, 8).toString('latin1')]).toEqual([
			200,
			'video/mp4',
			'ftyp',
		]);
	});

	it('never reached the fault book', () => expect(take).not.toHaveBeenCalled());
});
