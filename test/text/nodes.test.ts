/**
 * The Chat and Responses nodes in real n8n workflows against the gateway simulator over HTTP: both modes,
 * the SSE faults (split at arbitrary bytes with keep-alives, cut, error event, JSON to a stream request),
 * forwarding to n8n's streaming, definite rejections vs uncertain outcomes, input rules. A small scripted
 * loopback server covers what the simulator cannot produce (a stream that stalls, the request body as sent).
 */
import { type Simulator } from '../../simulator';
import { useSimulator } from '../harness/simulator';
import { GenGatewayChat } from '../../nodes/GenGatewayChat/GenGatewayChat.node';
import { GenGatewayResponses } from '../../nodes/GenGatewayResponses/GenGatewayResponses.node';
import { asTool, cleanupBinaryData, runWorkflow, type TestNode } from '../harness/workflow';
import { startServer, type TestServer } from '../transport/support';

const ANSWER = (q: string) =>
	`Simulated answer: ${q} — with a little ünïcödé ✓ and more words to stream.`;
type Chunk = { type: string; content?: string; metadata: { nodeName: string; itemIndex: number } };

// each test takes well under a second alone; the margin is for a loaded 2-core machine
jest.setTimeout(20_000);

const sim = useSimulator({ quiet: true, syncLatencyMs: 5 }, { reset: true });
afterAll(async () => {
	cleanupBinaryData();
});

const creds = (key: keyof Simulator['keys'] = 'demo') => ({
	apiKey: sim.keys[key],
	baseUrl: sim.baseUrl,
});
const model = (value = 'alpha-chat-4o') => ({ __rl: true, mode: 'id', value });
const posts = (path?: string) =>
	sim.log.filter((l) => l.method === 'POST' && (!path || l.path === path)).length;

function chat(
	content: string,
	stream: boolean,
	extra: Record<string, unknown> = {},
	onError?: TestNode['onError'],
): TestNode {
	return {
		name: 'Chat',
		type: new GenGatewayChat(),
		parameters: {
			model: model(),
			messagesFrom: 'ui',
			messages: {
				values: [
					{ role: 'system', content: 'be brief' },
					{ role: 'user', content },
				],
			},
			stream,
			...extra,
		},
		onError,
	};
}
function responses(
	input: string,
	stream: boolean,
	extra: Record<string, unknown> = {},
	onError?: TestNode['onError'],
): TestNode {
	return {
		name: 'Responses',
		type: new GenGatewayResponses(),
		parameters: { model: model(), input, stream, ...extra },
		onError,
	};
}
const both = (
	q: string,
	stream: boolean,
	extra: Record<string, unknown> = {},
	onError?: TestNode['onError'],
) => [
	{ node: chat(q, stream, extra, onError), path: '/v1/chat/completions' },
	{ node: responses(q, stream, extra, onError), path: '/v1/responses' },
];

describe('both modes', () => {
	it.each([false, true])(
		'chat, stream=%s: the whole answer, usage and finish reason; one POST, paired',
		async (stream) => {
			const r = await runWorkflow({ nodes: [chat('hello there', stream)], credentials: creds() });
			expect(r.error).toBeUndefined();
			const [item] = r.output('Chat');
			expect(item.json).toMatchObject({
				text: ANSWER('hello there'),
				finish_reason: 'stop',
				streamed: stream,
				model: 'alpha-chat-4o',
			});
			expect(item.json.id).toMatch(/^chatcmpl/);
			expect((item.json.usage as Record<string, number>).total_tokens).toBeGreaterThan(0);
			expect(item.pairedItem).toEqual({ item: 0 });
			expect(posts('/v1/chat/completions')).toBe(1);
		},
	);

	it.each([false, true])(
		'responses, stream=%s: text walked from output[].content[], usage, status',
		async (stream) => {
			const r = await runWorkflow({ nodes: [responses('tell me', stream)], credentials: creds() });
			expect(r.error).toBeUndefined();
			const j = r.output('Responses')[0].json;
			expect(j).toMatchObject({
				text: ANSWER('tell me'),
				streamed: stream,
				finish_reason: 'completed',
				usage: { input_tokens: expect.any(Number), output_tokens: expect.any(Number) },
			});
			expect(posts('/v1/responses')).toBe(1);
		},
	);

	it('several items: one answer each, in order, paired', async () => {
		const input = ['one', 'two', 'three'].map((q) => ({ json: { q } }));
		const r = await runWorkflow({
			nodes: [chat('={{ $json.q }}', true)],
			input,
			credentials: creds(),
		});
		expect(r.output('Chat').map((i) => [i.json.text, i.pairedItem])).toEqual(
			['one', 'two', 'three'].map((q, i) => [ANSWER(q), { item: i }]),
		);
	});

	it('full response instead of the simplified output (plain and streamed)', async () => {
		for (const stream of [false, true]) {
			const c = (
				await runWorkflow({
					nodes: [chat('full', stream, { options: { simplify: false } })],
					credentials: creds(),
				})
			).output('Chat')[0].json as Record<string, any>;
			expect(c).toMatchObject({
				object: 'chat.completion',
				model: 'alpha-chat-4o',
				text: ANSWER('full'),
				streamed: stream,
			});
			expect(c.choices[0]).toMatchObject({
				index: 0,
				message: { role: 'assistant', content: ANSWER('full') },
				finish_reason: 'stop',
			});
			expect(c.usage.total_tokens).toBeGreaterThan(0);
			const p = (
				await runWorkflow({
					nodes: [responses('full', stream, { options: { simplify: false } })],
					credentials: creds(),
				})
			).output('Responses')[0].json as Record<string, any>;
			expect(p).toMatchObject({
				object: 'response',
				status: 'completed',
				text: ANSWER('full'),
				streamed: stream,
			});
			expect(p.output.map((o: { type: string }) => o.type)).toEqual(['reasoning', 'message']);
		}
	});

	it('responses: a stream ending in response.incomplete gives its reason as the finish reason', async () => {
		const r = await runWorkflow({
			nodes: [responses('long [incomplete]', true)],
			credentials: creds(),
		});
		expect(r.output('Responses')[0].json).toMatchObject({
			text: ANSWER('long'),
			finish_reason: 'max_output_tokens',
		});
	});
});

describe('stream faults over HTTP (simulator)', () => {
	it('sse-split: tiny pieces at arbitrary byte boundaries with keep-alive lines give the same text (both nodes)', async () => {
		for (const { node, path } of both('split', true)) {
			for (let k = 0; k < 3; k++) {
				sim.fault({ route: `POST ${path}`, kind: 'sse-split' });
				const r = await runWorkflow({ nodes: [node], credentials: creds() });
				expect(r.error).toBeUndefined();
				expect(r.output(node.name)[0].json).toMatchObject({
					text: ANSWER('split'),
					streamed: true,
				});
			}
		}
	});

	it('sse-cut: a stream that stops mid-way is a failed item, never a truncated answer; the partial text stays apart; not resent', async () => {
		for (const { node, path } of both('cut', true, {}, 'continueRegularOutput')) {
			sim.fault({ route: `POST ${path}`, kind: 'sse-cut' });
			const r = await runWorkflow({ nodes: [node], credentials: creds() });
			const j = r.output(node.name)[0].json;
			expect(j.text).toBeUndefined();
			// the only item, after a paid answer: no `error` key where Retry On Fail would read it
			expect(j).toMatchObject({ status: 'failed', submitted: true, failed_at: 'answer' });
			expect(j.error).toBeUndefined();
			expect(String(j.error_message)).toMatch(
				new RegExp(
					`^POST ${path}: the stream broke off \\(.+\\) before (\\[DONE\\]|response\\.completed).* characters of text: the answer is incomplete`,
				),
			);
			expect(j.error_description).toMatch(/may be billed; it was not resent/);
			expect(j).toMatchObject({ stream_error: 'incomplete' });
			expect(ANSWER('cut').startsWith(String(j.partial_text ?? ''))).toBe(true);
			expect(posts(path)).toBe(1);
		}
	});

	it('sse-cut with Stop Workflow: the request was paid, so the node does not fail; the item says why and a hint counts it', async () => {
		sim.fault({ route: 'POST /v1/chat/completions', kind: 'sse-cut' });
		const r = await runWorkflow({ nodes: [chat('cut', true)], credentials: creds() });
		expect(r.error).toBeUndefined();
		expect(String(r.output('Chat')[0].json.error_message)).toMatch(
			/the stream broke off .* before \[DONE\]/,
		);
		const hints = (r.run.data.resultData.runData.Chat[0].hints ?? []).map((h) => h.message);
		expect(hints).toContainEqual(
			expect.stringMatching(
				/^1 of 1 item failed \(1 × answer: POST \/v1\/chat\/completions: the stream broke off.*reached the gateway and may be billed/,
			),
		);
		// the money hint says the item has no figure (no usage arrived), never that it cost 0
		expect(hints).toContainEqual(
			expect.stringMatching(/This node: 1 call\(s\) with no figure yet/),
		);
		expect(hints).toHaveLength(2);
	});

	it('sse-error: an error event is a failed item with its message (both nodes)', async () => {
		for (const { node, path } of both('oops', true)) {
			sim.fault({ route: `POST ${path}`, kind: 'sse-error' });
			const r = await runWorkflow({ nodes: [node], credentials: creds() });
			expect(r.error).toBeUndefined();
			expect(r.output(node.name)[0].json.error_message).toBe(
				`POST ${path}: the gateway reported an error in the answer: upstream stream failed (stream_error)`,
			);
		}
	});

	it('ignore-stream: JSON answered to a streaming request is read as the answer (both nodes)', async () => {
		for (const { node, path } of both('plain please', true)) {
			sim.fault({ route: `POST ${path}`, kind: 'ignore-stream' });
			const r = await runWorkflow({ nodes: [node], credentials: creds() });
			expect(r.output(node.name)[0].json).toMatchObject({
				text: ANSWER('plain please'),
				streamed: false,
				usage: expect.any(Object),
			});
		}
	});

	it('the prompt markers give the same behaviour as the faults', async () => {
		expect(
			(await runWorkflow({ nodes: [responses('a [split]', true)], credentials: creds() })).output(
				'Responses',
			)[0].json.text,
		).toBe(ANSWER('a'));
		expect(
			(await runWorkflow({ nodes: [chat('b [cut]', true)], credentials: creds() })).output(
				'Chat',
			)[0].json.error_message,
		).toMatch(/before \[DONE\]/);
		expect(
			(
				await runWorkflow({ nodes: [responses('c [sse-error]', true)], credentials: creds() })
			).output('Responses')[0].json.error_message,
		).toMatch(/upstream stream failed/);
		expect(
			(await runWorkflow({ nodes: [chat('d [nostream]', true)], credentials: creds() })).output(
				'Chat',
			)[0].json.streamed,
		).toBe(false);
	});
});

describe('streaming the execution to n8n (chat / webhook)', () => {
	it('deltas are forwarded with sendChunk as they arrive: begin, items joining to the answer, end (both nodes, split stream)', async () => {
		for (const { node, path } of both('forward me', true)) {
			sim.fault({ route: `POST ${path}`, kind: 'sse-split' });
			const chunks: Chunk[] = [];
			const r = await runWorkflow({
				nodes: [node],
				credentials: creds(),
				onChunk: (c) => chunks.push(c),
			});
			const text = r.output(node.name)[0].json.text;
			expect(text).toBe(ANSWER('forward me'));
			expect(chunks[0].type).toBe('begin');
			expect(chunks.at(-1)!.type).toBe('end');
			const items = chunks.filter((c) => c.type === 'item');
			expect(items.length).toBeGreaterThan(5);
			expect(items.map((c) => c.content).join('')).toBe(text);
			expect(
				chunks.every((c) => c.metadata.nodeName === node.name && c.metadata.itemIndex === 0),
			).toBe(true);
		}
	});

	it('a gateway answering JSON still reaches the chat: one item with the whole text', async () => {
		sim.fault({ route: 'POST /v1/chat/completions', kind: 'ignore-stream' });
		const chunks: Chunk[] = [];
		await runWorkflow({
			nodes: [chat('json', true)],
			credentials: creds(),
			onChunk: (c) => chunks.push(c),
		});
		expect(chunks.map((c) => [c.type, c.content])).toEqual([
			['begin', undefined],
			['item', ANSWER('json')],
			['end', undefined],
		]);
	});

	it('an error event ends the streamed message with one error chunk naming the gateway message', async () => {
		for (const onError of [undefined, 'continueRegularOutput'] as const) {
			sim.fault({ route: 'POST /v1/responses', kind: 'sse-error' });
			const chunks: Chunk[] = [];
			await runWorkflow({
				nodes: [responses('err', true, {}, onError)],
				credentials: creds(),
				onChunk: (c) => chunks.push(c),
			});
			expect(chunks[0].type).toBe('begin');
			expect(chunks.filter((c) => c.type === 'item').length).toBeGreaterThan(3);
			// the node's own error chunk: after a paid answer the node never fails, so n8n sends none of its own
			expect(chunks.filter((c) => c.type === 'error')).toEqual([
				expect.objectContaining({ content: expect.stringMatching(/upstream stream failed/) }),
			]);
			expect(chunks.at(-1)!.type).toBe('error');
		}
	});

	it('each item streams under its own item index', async () => {
		const chunks: Chunk[] = [];
		await runWorkflow({
			nodes: [chat('={{ $json.q }}', true)],
			input: [{ json: { q: 'a' } }, { json: { q: 'b' } }],
			credentials: creds(),
			onChunk: (c) => chunks.push(c),
		});
		for (const [i, q] of ['a', 'b'].entries()) {
			const mine = chunks.filter((c) => c.metadata.itemIndex === i);
			expect(mine[0].type).toBe('begin');
			expect(mine.at(-1)!.type).toBe('end');
			expect(
				mine
					.filter((c) => c.type === 'item')
					.map((c) => c.content)
					.join(''),
			).toBe(ANSWER(q));
		}
	});

	it('nothing is forwarded when the node does not stream, or when an AI agent calls it as a tool', async () => {
		const chunks: Chunk[] = [];
		const plain = await runWorkflow({
			nodes: [chat('no stream', false)],
			credentials: creds(),
			onChunk: (c) => chunks.push(c),
		});
		expect(plain.output('Chat')[0].json.text).toBe(ANSWER('no stream'));
		const tool = await runWorkflow({
			nodes: [{ ...chat('as tool', true), type: asTool(new GenGatewayChat()) }],
			credentials: creds(),
			onChunk: (c) => chunks.push(c),
		});
		expect(tool.output('Chat')[0].json).toMatchObject({ text: ANSWER('as tool'), streamed: true });
		expect(chunks).toEqual([]);
	});
});

describe('as an AI-agent tool', () => {
	it('both nodes are usable as tools and return the simplified JSON', async () => {
		expect(new GenGatewayChat().description.usableAsTool).toBe(true);
		expect(new GenGatewayResponses().description.usableAsTool).toBe(true);
		const r = await runWorkflow({
			nodes: [{ ...responses('tool call', false), type: asTool(new GenGatewayResponses()) }],
			credentials: creds(),
		});
		expect(Object.keys(r.output('Responses')[0].json).sort()).toEqual([
			'cost',
			'finish_reason',
			'id',
			'model',
			'status',
			'streamed',
			'text',
			'usage',
		]);
	});
});

describe('rejections and uncertain outcomes', () => {
	it('definite rejections are errors with the gateway message and status (continueOnFail → error item); one POST each', async () => {
		const cases: Array<{
			key?: keyof Simulator['keys'];
			apiKey?: string;
			model?: string;
			status: string;
			message: RegExp;
		}> = [
			{ model: 'gamma-reasoner-1', status: '403', message: /gamma-reasoner-1/ },
			{ key: 'broke', status: '403', message: /quota/i },
			{ apiKey: 'sk-wrong', status: '401', message: /./ },
			{ model: 'beta-2.0-flash-offline', status: '503', message: /No available channel/ },
		];
		for (const stream of [false, true]) {
			for (const c of cases) {
				sim.reset();
				const node = { ...chat('x', stream, { model: model(c.model) }, 'continueRegularOutput') };
				const cr = c.apiKey ? { apiKey: c.apiKey, baseUrl: sim.baseUrl } : creds(c.key);
				const j = (await runWorkflow({ nodes: [node], credentials: cr })).output('Chat')[0].json;
				expect(j.submission_uncertain).toBeUndefined();
				expect(j.http_code).toBe(c.status);
				expect(String(j.error)).toMatch(c.message);
				expect(posts()).toBe(1);
			}
		}
		const failing = await runWorkflow({
			nodes: [responses('x', true, { model: model('gamma-reasoner-1') })],
			credentials: creds(),
		});
		expect(failing.error).toMatch(/\[HTTP 403/);
	});

	it('an uncertain outcome (5xx, timeout) is an item marked submission_uncertain, never thrown, never resent', async () => {
		for (const { node, path } of both('maybe', true)) {
			for (const stream of [false, true]) {
				sim.reset();
				sim.fault({ route: `POST ${path}`, kind: 'status', status: 502 });
				const r = await runWorkflow({
					nodes: [{ ...node, parameters: { ...node.parameters, stream } }],
					credentials: creds(),
				});
				expect(r.error).toBeUndefined();
				expect(r.output(node.name)[0].json).toMatchObject({
					submission_uncertain: true,
					reason: expect.stringMatching(/502/),
					endpoint: `POST ${path}`,
					model: 'alpha-chat-4o',
				});
				expect(posts(path)).toBe(1);
			}
		}
		sim.reset();
		// undici's header timer has a resolution of about a second, so the gateway waits longer than that
		for (const stream of [false, true]) {
			sim.reset();
			sim.fault({ route: 'POST /v1/chat/completions', kind: 'delay', delayMs: 2000 });
			const slow = await runWorkflow({
				nodes: [chat('slow', stream, { options: { timeoutMs: 150 } })],
				credentials: creds(),
			});
			expect(slow.output('Chat')[0].json).toMatchObject({
				submission_uncertain: true,
				reason: expect.stringMatching(/timed out/),
			});
			expect(posts()).toBe(1);
		}
		await new Promise((r) => setTimeout(r, 2000));
	});
});

describe('input rules (checked before anything is sent)', () => {
	it('messages from a JSON expression; a non-array or a bad role is refused naming the field', async () => {
		const params = { messagesFrom: 'json', messagesJson: '={{ $json.msgs }}' };
		const ok = await runWorkflow({
			nodes: [chat('', false, params)],
			input: [
				{
					json: {
						msgs: [
							{ role: 'developer', content: 'terse' },
							{ role: 'user', content: 'from json' },
						],
					},
				},
			],
			credentials: creds(),
		});
		expect(ok.output('Chat')[0].json.text).toBe(ANSWER('from json'));
		sim.reset();
		const bad = await runWorkflow({
			nodes: [chat('', false, params, 'continueRegularOutput')],
			input: [
				{ json: { msgs: { role: 'user' } } },
				{ json: { msgs: [{ role: 'robot', content: 'x' }] } },
				{ json: { msgs: [] } },
				{ json: { msgs: 'not json' } },
			],
			credentials: creds(),
		});
		expect(bad.output('Chat').map((i) => i.json.error)).toEqual([
			'Messages JSON: must be a JSON array of {role, content} messages, but the value is an object',
			'messages[0].role: must be one of system, user, assistant, tool, developer',
			'messages: must hold at least one message',
			'Messages JSON: must be a JSON array of {role, content} messages (the text is not valid JSON)',
		]);
		expect(bad.output('Chat')[0].json.error_description).toMatch(
			/^Nothing was sent to the gateway/,
		);
		expect(posts()).toBe(0);
	});

	it('responses input as an array of input items from an expression', async () => {
		const r = await runWorkflow({
			nodes: [responses('={{ $json.items }}', true)],
			input: [{ json: { items: [{ role: 'user', content: 'from items' }] } }],
			credentials: creds(),
		});
		expect(r.error).toBeUndefined();
		expect(String(r.output('Responses')[0].json.text)).toContain('from items');
	});

	it('an empty user message, empty input, no model, bad extra body: refused, nothing sent', async () => {
		const cases: Array<[TestNode, RegExp]> = [
			[
				chat(' ', false, {}, 'continueRegularOutput'),
				/^messages\[1\]\.content: must not be empty for a user message$/,
			],
			[responses('   ', true, {}, 'continueRegularOutput'), /^input: must not be empty$/],
			[
				chat('x', false, { model: model('={{ " " }}') }, 'continueRegularOutput'),
				/^Model: is required/,
			],
			[
				chat('x', false, { options: { extraBody: '{"stream":false}' } }, 'continueRegularOutput'),
				/^Extra Body Fields: must not set stream/,
			],
			[
				responses('x', false, { options: { extraBody: '[1,2]' } }, 'continueRegularOutput'),
				/^Extra Body Fields: must be a JSON object, not an array$/,
			],
			[
				chat('x', true, { options: { idleTimeoutMs: -5 } }, 'continueRegularOutput'),
				/^Stream Idle Timeout \(Ms\): must be a positive number/,
			],
		];
		for (const [node, message] of cases) {
			const r = await runWorkflow({ nodes: [node], credentials: creds() });
			expect(String(r.output(node.name)[0].json.error)).toMatch(message);
		}
		expect(posts()).toBe(0);
	});
});

describe('against a scripted gateway (what the simulator cannot do)', () => {
	let gw: TestServer;
	// the nodes also read the public price list (no key) for each item's cost
	const paidSeen = () => gw.seen.filter((s) => !s.url.startsWith('/api/'));
	beforeAll(async () => {
		gw = await startServer();
	});
	afterAll(() => gw.close());
	const gwCreds = () => ({ apiKey: 'sk-scripted-0123456789', baseUrl: gw.origin });
	const sse = (res: import('node:http').ServerResponse) =>
		res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });

	it('extra body fields are sent beside model, messages and stream', async () => {
		gw.reset((_req, res) => {
			res.writeHead(200, { 'content-type': 'application/json' });
			res.end(
				JSON.stringify({
					id: 'x',
					object: 'chat.completion',
					choices: [
						{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' },
					],
					usage: { total_tokens: 1 },
				}),
			);
		});
		const r = await runWorkflow({
			nodes: [chat('hi', false, { options: { extraBody: '{"temperature":0.2,"max_tokens":50}' } })],
			credentials: gwCreds(),
		});
		expect(r.output('Chat')[0].json.text).toBe('ok');
		expect(JSON.parse(paidSeen()[0].body)).toEqual({
			model: 'alpha-chat-4o',
			messages: [
				{ role: 'system', content: 'be brief' },
				{ role: 'user', content: 'hi' },
			],
			stream: false,
			temperature: 0.2,
			max_tokens: 50,
		});
		expect(paidSeen()[0].url).toBe('/v1/chat/completions');
	});

	it('a stream that stalls fails after the Stream Idle Timeout, with the text so far kept apart', async () => {
		gw.reset((_req, res) => {
			sse(res);
			res.write(': PING\n\ndata: {"choices":[{"index":0,"delta":{"content":"half an ans"}}]}\n\n');
			// …and nothing more
		});
		const r = await runWorkflow({
			nodes: [chat('x', true, { options: { idleTimeoutMs: 300 } }, 'continueRegularOutput')],
			credentials: gwCreds(),
		});
		expect(r.output('Chat')[0].json).toMatchObject({
			stream_error: 'idle',
			partial_text: 'half an ans',
		});
		expect(String(r.output('Chat')[0].json.error_message)).toMatch(
			/no data arrived for 300 ms \(stream idle timeout\) before \[DONE\] after 11 characters/,
		);
	});

	it('an idle timeout longer than the default is honoured (keep-alives keep a slow stream open)', async () => {
		gw.reset(async (_req, res) => {
			sse(res);
			for (let k = 0; k < 4; k++) {
				res.write(': PING\n\n');
				await new Promise((r) => setTimeout(r, 100));
			}
			res.end(
				'data: {"type":"response.output_text.delta","delta":"late"}\n\ndata: {"type":"response.completed","response":{"status":"completed"}}\n\n',
			);
		});
		const r = await runWorkflow({
			nodes: [responses('x', true, { options: { idleTimeoutMs: 250 } })],
			credentials: gwCreds(),
		});
		expect(r.output('Responses')[0].json).toMatchObject({
			text: 'late',
			finish_reason: 'completed',
		});
	});

	it('cancelling the execution drops the stream at once', async () => {
		// the gateway never ends this stream and the idle timeout is ten minutes: only the cancel can close the socket
		// (the price list and status the node also reads are answered at once, so the stream is the only open request)
		const streaming = new Promise<{ closed: Promise<void> }>((started) =>
			gw.reset((req, res) => {
				if (req.url?.startsWith('/api/')) return void res.writeHead(404).end();
				const closed = new Promise<void>((done) => req.socket.on('close', () => done()));
				sse(res);
				res.write('data: {"choices":[{"index":0,"delta":{"content":"…"}}]}\n\n');
				started({ closed });
			}),
		);
		let cancel = () => {};
		const running = runWorkflow({
			nodes: [chat('x', true, { options: { idleTimeoutMs: 600_000 } })],
			credentials: gwCreds(),
			onStart: (p) => (cancel = p.cancel),
		});
		const { closed } = await streaming;
		cancel();
		const r = await running;
		if (r.run.status !== 'canceled') expect(r.error).toMatch(/cancel/i);
		// the socket's close, awaited as the event it is (never closed: the test's own timeout fails it)
		await closed;
	});

	it('a 2xx answer that is neither SSE nor JSON is uncertain (it may have run), not an error that invites a resend', async () => {
		gw.reset((_req, res) => {
			res.writeHead(200, { 'content-type': 'text/html' });
			res.end('<html>proxy page</html>');
		});
		const r = await runWorkflow({ nodes: [chat('x', true)], credentials: gwCreds() });
		expect(r.output('Chat')[0].json).toMatchObject({
			submission_uncertain: true,
			reason: expect.stringMatching(/neither an event stream nor a JSON object \(HTML\)/),
		});
		expect(paidSeen()).toHaveLength(1);
	});

	it('an event stream relabelled with another content type is still read as a stream', async () => {
		gw.reset((_req, res) => {
			res.writeHead(200, { 'content-type': 'text/plain' });
			res.end(
				'data: {"choices":[{"index":0,"delta":{"content":"relabelled ✓"}}]}\n\ndata: [DONE]\n\n',
			);
		});
		const r = await runWorkflow({ nodes: [chat('x', true)], credentials: gwCreds() });
		expect(r.output('Chat')[0].json).toMatchObject({ text: 'relabelled ✓', streamed: true });
	});

	it('a streamed tool call is joined and returned', async () => {
		gw.reset((_req, res) => {
			sse(res);
			const c = (delta: unknown, finish: string | null = null) =>
				`data: ${JSON.stringify({ id: 't', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
			res.write(
				c({
					role: 'assistant',
					tool_calls: [
						{
							index: 0,
							id: 'call_1',
							type: 'function',
							function: { name: 'lookup', arguments: '' },
						},
					],
				}),
			);
			res.write(
				c({ tool_calls: [{ index: 0, function: { arguments: '{"q":"n8n"}' } }] }, 'tool_calls'),
			);
			res.end('data: [DONE]\n\n');
		});
		const r = await runWorkflow({
			nodes: [
				chat('x', true, {
					options: { extraBody: { tools: [{ type: 'function', function: { name: 'lookup' } }] } },
				}),
			],
			credentials: gwCreds(),
		});
		expect(r.output('Chat')[0].json).toMatchObject({
			text: '',
			finish_reason: 'tool_calls',
			tool_calls: [
				{ id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{"q":"n8n"}' } },
			],
		});
		expect(JSON.parse(paidSeen()[0].body).tools).toHaveLength(1);
	});
});
