/**
 * Readable examples of the invariants the property suite (test/property) checks over generated answers: one exact
 * answer per class that broke before, run in n8n-core's WorkflowExecute against a scripted loopback server.
 * - spend boundary: an answer whose interpretation throws after a 2xx is a spent item, never sent again;
 * - ledger by place: an expression that changes between Retry On Fail tries does not make an item new;
 * - redaction where bytes enter: a redirect path and header values carrying the key never reach an item, and a
 *   keyless download never follows a redirect whose target carries the key;
 * - bounded leftovers: a failed stream keeps at most 1 MiB of its text.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { GenGatewayChat } from '../../nodes/GenGatewayChat/GenGatewayChat.node';
import { GenGatewayDownloadResult } from '../../nodes/GenGatewayDownloadResult/GenGatewayDownloadResult.node';
import { GenGatewayImageSubmit } from '../../nodes/GenGatewayImageSubmit/GenGatewayImageSubmit.node';
import { MAX_PARTIAL_TEXT_CHARS } from '../../nodes/shared/text/sse';
import { normaliseBaseUrl } from '../../nodes/shared/transport/baseUrl';
import { GatewayTransport } from '../../nodes/shared/transport';
import { cleanupBinaryData, runWorkflow, type RunResult, type TestNode } from '../harness/workflow';
import { model } from '../harness/inputs';
import { json, scriptedServer, type ScriptedServer } from '../harness/scripted-server';
import { atRealTime } from '../time-scale';

const KEY = 'sk-example-KEY-4f9a2c7e1b';
const SETTINGS: Array<NonNullable<TestNode['onError']>> = [
	'stopWorkflow',
	'continueRegularOutput',
	'continueErrorOutput',
];

let server: ScriptedServer | undefined;
afterEach(async () => {
	await server?.close();
	server = undefined;
});
afterAll(() => cleanupBinaryData());

const creds = () => ({ apiKey: KEY, baseUrl: server!.url });
const allItems = (r: RunResult, name: string) => r.outputs(name).flat();
const keyForms = [KEY, encodeURIComponent(KEY), Buffer.from(KEY).toString('base64')];
const expectNoKey = (r: RunResult) => {
	const text = JSON.stringify(r.run.data) + String(r.error ?? '');
	for (const form of keyForms) expect(text.includes(form)).toBe(false);
};

describe('the spend boundary', () => {
	it.each(SETTINGS)(
		'a 2xx answer whose reading throws is spent: one POST across Retry On Fail, one failed item that says it reached the gateway (%s)',
		async (onError) => {
			server = await scriptedServer((_req, res) => json(res, 200, { created: 1, data: [null] }));
			const node: TestNode = {
				name: 'Image',
				type: new GenGatewayImageSubmit(),
				parameters: {
					operation: 'generate',
					mode: 'sync',
					model: model('alpha-image-2.5'),
					prompt: 'a cat',
					size: '1024x1024',
				},
				onError,
				retryOnFail: true,
				maxTries: 3,
			};
			const r = await runWorkflow({ nodes: [node], credentials: creds() });
			expect(server.posts()).toHaveLength(1);
			expect(r.error).toBeUndefined();
			const items = allItems(r, 'Image');
			expect(items).toHaveLength(1);
			const facts = (
				onError === 'continueErrorOutput' ? items[0].json.error : items[0].json
			) as Record<string, unknown>;
			expect(facts).toMatchObject({ submitted: true, failed_at: 'answer' });
		},
	);
});

describe('the retry ledger knows an item by its place', () => {
	it('a message expression that changes on every try (Math.random) is still the same item: one POST per item across Retry On Fail', async () => {
		server = await scriptedServer((_req, res) =>
			json(res, 200, { id: 'x', object: 'chat.completion', choices: [] }),
		);
		const node: TestNode = {
			name: 'Chat',
			type: new GenGatewayChat(),
			parameters: {
				model: model('alpha-chat-4o'),
				messagesFrom: 'ui',
				messages: {
					values: [
						{ role: 'system', content: "={{ 'now ' + $now.toISO() + ' ' + Math.random() }}" },
						{ role: 'user', content: '={{ $json.q }}' },
					],
				},
				stream: false,
			},
			onError: 'continueErrorOutput',
			retryOnFail: true,
			maxTries: 3,
		};
		const r = await runWorkflow({
			nodes: [node],
			credentials: creds(),
			input: [{ json: { q: 'one' } }, { json: { q: 'two' } }],
		});
		const perItem = ['one', 'two'].map(
			(q) => server!.posts().filter((p) => p.body.includes(`"${q}"`)).length,
		);
		expect(perItem).toEqual([1, 1]);
		const failed = r.outputs('Chat')[1] ?? [];
		expect(failed.map((i) => (i.json.error as Record<string, unknown>).submitted)).toEqual([
			true,
			true,
		]);
		expect(failed.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
	});
});

describe('redaction where the bytes enter', () => {
	const download = (url: string): TestNode => ({
		name: 'Download',
		type: new GenGatewayDownloadResult(),
		parameters: { source: 'url', url, resultType: 'image' },
		onError: 'continueRegularOutput',
	});

	it.each([
		['in the path', (base: string) => `${base}/files/${KEY}/img.png`],
		[
			'percent-encoded in the query',
			(base: string) => `${base}/files/img.png?token=${encodeURIComponent(KEY)}`,
		],
		[
			'on another origin',
			(base: string) => `${base.replace('127.0.0.1', 'localhost')}/img.png?k=${KEY}`,
		],
	])(
		'a keyless download does not follow a redirect with the key %s, and the item never shows it',
		async (_what, target) => {
			server = await scriptedServer((req, res) => {
				if (req.path === '/start.png') {
					res.writeHead(302, { location: target(server!.url) });
					return void res.end();
				}
				json(res, 404, { error: { message: `no file at ${req.path}` } });
			});
			const r = await runWorkflow({
				nodes: [download(`${server.url}/start.png`)],
				credentials: creds(),
			});
			expect(server.seen.map((s) => s.path)).toEqual(['/start.png']);
			expect(String(r.output('Download')[0].json.error)).toMatch(
				/carries the API key|not followed/,
			);
			expectNoKey(r);
		},
	);

	it('header values carrying the key, after a followed redirect, never reach a failed item', async () => {
		server = await scriptedServer((req, res) => {
			if (req.path === '/start.png') {
				res.writeHead(302, { location: '/files/x.png' });
				return void res.end();
			}
			const body = '<html>not an image</html>';
			res.writeHead(200, {
				'content-type': `text/html; charset=${KEY}`,
				'x-echo': KEY,
				'content-length': Buffer.byteLength(body),
			});
			res.end(body);
		});
		const r = await runWorkflow({
			nodes: [download(`${server.url}/start.png`)],
			credentials: creds(),
		});
		expect(r.output('Download')[0].json.error).toBeDefined();
		expectNoKey(r);
	});
});

describe('the transport hands out nothing unredacted', () => {
	it('a download answer: its content type, headers, address and error texts are redacted as they enter', async () => {
		server = await scriptedServer((req, res) => {
			if (req.path === '/ok.png') {
				res.writeHead(200, {
					'content-type': `image/png; x=${KEY}`,
					'x-echo': encodeURIComponent(KEY),
					'content-length': '3',
				});
				return void res.end('abc');
			}
			res.writeHead(503, { 'retry-after': KEY, 'content-type': 'application/json' });
			res.end(JSON.stringify({ error: { message: `upstream said ${KEY}` } }));
		});
		const transport = new GatewayTransport({
			apiKey: KEY,
			base: normaliseBaseUrl(server.url, 'Base URL'),
			retry: { maxAttempts: 1 },
		});
		const ok = await transport.download(`${server.url}/ok.png`, { withKey: false });
		ok.body.resume();
		const handedOut = JSON.stringify({
			contentType: ok.contentType,
			headers: ok.headers,
			url: ok.url,
		});
		for (const form of keyForms) expect(handedOut.includes(form)).toBe(false);
		const err = (await transport
			.download(`${server.url}/fail.png`, { withKey: false })
			.catch((e: unknown) => e)) as Error;
		expect(err).toBeInstanceOf(Error);
		for (const form of keyForms)
			expect(JSON.stringify({ ...err, message: err.message }).includes(form)).toBe(false);
	});
});

describe('bounded leftovers of a failed answer', () => {
	it('a stream of valid deltas that breaks off keeps at most 1 MiB of its text, and says how much it cut', async () => {
		const piece = 'x'.repeat(32 * 1024);
		const events = 96; // 3 MiB of text
		server = await scriptedServer((_req, res) => {
			res.writeHead(200, { 'content-type': 'text/event-stream' });
			for (let k = 0; k < events; k++)
				res.write(
					`data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: piece } }] })}\n\n`,
				);
			res.end();
		});
		const node: TestNode = {
			name: 'Chat',
			type: new GenGatewayChat(),
			parameters: {
				model: model('alpha-chat-4o'),
				messagesFrom: 'ui',
				messages: { values: [{ role: 'user', content: 'long' }] },
				stream: true,
			},
			onError: 'continueRegularOutput',
		};
		const r = await runWorkflow({ nodes: [node], credentials: creds() });
		const j = r.output('Chat')[0].json;
		expect(j.status).toBe('failed');
		expect(String(j.partial_text).length).toBe(MAX_PARTIAL_TEXT_CHARS);
		expect(j.partial_text_cut).toBe(
			`kept the first ${MAX_PARTIAL_TEXT_CHARS} of ${piece.length * events} characters received`,
		);
		expect(server.posts()).toHaveLength(1);
	});
});

describe('memory of a stream that never ends', () => {
	it('600 MB of valid deltas: stopped at the stream cap, the item keeps 1 MiB, the run n8n would store stays small, RSS growth under 200 MiB', () => {
		const run = spawnSync(
			process.execPath,
			[
				'--import',
				'tsx',
				join(__dirname, 'fixtures', 'chat-stream-memory.ts'),
				String(600 * 1024 * 1024),
			],
			{ encoding: 'utf8', timeout: 120_000 },
		);
		expect(run.status).toBe(0);
		const r = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as {
			growthMiB: number;
			partialChars: number;
			savedChars: number;
			failed: boolean;
			error: string;
		};
		console.log(
			`600 MB endless chat stream in n8n-core (plain Node ${process.version}): RSS growth ${r.growthMiB} MiB, stored run ${r.savedChars} characters`,
		);
		expect(r.failed).toBe(true);
		expect(r.error).toMatch(/size limit/);
		expect(r.partialChars).toBe(MAX_PARTIAL_TEXT_CHARS);
		expect(r.savedChars).toBeLessThan(3 * MAX_PARTIAL_TEXT_CHARS);
		expect(r.growthMiB).toBeLessThan(200);
	});
});

describe('a refused paid request (429) with a Retry-After the RFC does not allow, or one it does', () => {
	/** POSTs answered 429 with `retryAfter` until the `accept`-th, which is accepted; returns when each POST came */
	async function refusedUntil(
		accept: number,
		retryAfter: string,
		submitTimeoutMs = 20_000,
	): Promise<number[]> {
		let n = 0;
		server = await scriptedServer((req, res) => {
			if (req.method !== 'POST') return json(res, 404, {});
			if (++n < accept)
				return json(res, 429, { error: { message: 'slow down' } }, { 'retry-after': retryAfter });
			json(res, 200, { task_id: 'task_after_429', status: 'queued' });
		});
		const node: TestNode = {
			name: 'Image',
			type: new GenGatewayImageSubmit(),
			parameters: {
				operation: 'generate',
				mode: 'async',
				model: model('alpha-image-2.5'),
				prompt: 'a cat',
				size: '1024x1024',
				options: { submitTimeoutMs },
			},
		};
		const r = await runWorkflow({ nodes: [node], credentials: creds() });
		expect(r.output('Image')[0].json.task_id).toBe('task_after_429');
		return server.posts().map((s) => s.at);
	}
	const gaps = (at: number[]) => at.slice(1).map((t, i) => t - at[i]);

	// the one real-time test of "a Retry-After that is not an HTTP-date or whole seconds is no Retry-After"
	it.each(['-1', '1.5'])(
		'Retry-After: %s is no Retry-After (it is not read as a date in 2001): each resend waits the back-off, at least 1 s',
		atRealTime(async (value: string) => {
			const at = await refusedUntil(3, value);
			expect(at).toHaveLength(3);
			for (const g of gaps(at)) expect(g).toBeGreaterThanOrEqual(1000);
		}),
	);

	// the one real-time test of "a Retry-After is waited as given" (2 s: longer than the 1 s back-off it replaces)
	it(
		'Retry-After: 2 is waited as given: the resend comes 2 s after the refusal, not after the 1 s back-off',
		atRealTime(async () => {
			const at = await refusedUntil(2, '2');
			expect(at).toHaveLength(2);
			expect(gaps(at)[0]).toBeGreaterThanOrEqual(2000);
		}),
	);
});

describe('a refused paid request (429) without Retry-After', () => {
	// the one real-time test of "a refused paid request without Retry-After waits at least 1 s"
	it(
		'is sent again no sooner than 1 s after the refusal, and only once it was refused',
		atRealTime(async () => {
			let n = 0;
			server = await scriptedServer((req, res) => {
				if (req.method !== 'POST') return json(res, 404, {});
				if (++n === 1) return json(res, 429, { error: { message: 'slow down' } });
				json(res, 200, { task_id: 'task_after_429', status: 'queued' });
			});
			const at: number[] = [];
			const node: TestNode = {
				name: 'Image',
				type: new GenGatewayImageSubmit(),
				parameters: {
					operation: 'generate',
					mode: 'async',
					model: model('alpha-image-2.5'),
					prompt: 'a cat',
					size: '1024x1024',
				},
			};
			const r = await runWorkflow({ nodes: [node], credentials: creds() });
			for (const s of server.posts()) at.push(s.at);
			expect(r.output('Image')[0].json.task_id).toBe('task_after_429');
			expect(at).toHaveLength(2);
			expect(at[1] - at[0]).toBeGreaterThanOrEqual(1000);
		}),
	);
});
