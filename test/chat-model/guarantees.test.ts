/**
 * The package's guarantees for the GenGateway Chat Model, over real HTTP against the simulator, and the gateway
 * quirks of tool calls: a paid call is never resent (a 500, a cut stream), a 429 goes again after its Retry-After
 * (never sooner than 1 s, at most MAX_SENDS sends), no redirect is followed, the key never appears in an error, errors carry the gateway's message,
 * the HTTP status and advice; tool-call arguments empty, as an object, or split oddly; the model list; the
 * clear message on a host without the SDK; the request body.
 */
import { useSimulator } from '../harness/simulator';
import { LmChatGenGateway } from '../../nodes/LmChatGenGateway/LmChatGenGateway.node';
import { atRealTime, TEST_TIME_SCALE } from '../time-scale';
import * as clock from '../../nodes/shared/transport/clock';
import { MAX_SENDS } from '../../nodes/shared/runners/send';
import { GatewayChatCore } from '../../nodes/LmChatGenGateway/model/model';
import { loadAiNodeSdk, SDK_MISSING_MESSAGE } from '../../nodes/LmChatGenGateway/model/sdk';
import { GatewayTransport } from '../../nodes/shared/transport';
import { normaliseBaseUrl } from '../../nodes/shared/transport/baseUrl';
import type { ILoadOptionsFunctions } from 'n8n-workflow';
import { CALCULATOR, joinStream, supplyModel, type LcMessage } from './support';
import { json as scriptedJson, scriptedServer } from '../harness/scripted-server';

jest.setTimeout(30_000);

const sim = useSimulator({ quiet: true, syncLatencyMs: 1 }, { reset: true });

const creds = () => ({ apiKey: sim.keys.demo, baseUrl: sim.baseUrl });
const posts = () => sim.log.filter((l) => l.method === 'POST');
const Q = [{ role: 'user', content: 'What is 12 * 7?' }];
const CHAT = '/v1/chat/completions';

async function failure(p: Promise<unknown>): Promise<Error & { description?: string }> {
	try {
		await p;
	} catch (err) {
		return err as Error & { description?: string };
	}
	throw new Error('expected the call to fail');
}

describe('paid calls', () => {
	it.each([false, true])(
		'a 429 with Retry-After is sent again after it, and the turn succeeds (streaming %s)',
		atRealTime(async (streaming: boolean) => {
			sim.fault({ route: CHAT, kind: 'rate-limit', retryAfter: 1 });
			const { model } = await supplyModel(creds(), { options: { streaming } });
			const t0 = Date.now();
			const m = await model.bindTools([CALCULATOR]).invoke(Q);
			expect(Date.now() - t0).toBeGreaterThanOrEqual(950);
			expect(m.tool_calls![0].args).toEqual({ input: '12 * 7' });
			// (a streamed answer's log status is set when the server's response finishes, after the client has read [DONE])
			expect(posts()).toHaveLength(2);
			expect(posts()[0].status).toBe(429);
		}),
	);

	// found by the money property once the Chat Model's options came from its description (seed 1474515968 path 15):
	// a Request Timeout of 999.5 ms failed every turn before it left ("the value of delay … must be an integer") and the
	// turn counted as maybe spent
	it.each([false, true])(
		'a Request Timeout with a fraction of a millisecond (999.5) is honoured: one POST, answered (streaming %s)',
		async (streaming: boolean) => {
			const { model } = await supplyModel(creds(), { options: { streaming, timeout: 999.5 } });
			const m = await model.bindTools([CALCULATOR]).invoke(Q);
			expect(m.tool_calls![0].args).toEqual({ input: '12 * 7' });
			expect(posts()).toHaveLength(1);
		},
	);

	it("429s go again as the action nodes' do, while the request timeout allows: two refusals, then the answer", async () => {
		sim.fault({ route: CHAT, kind: 'rate-limit', retryAfter: 1, times: 2 });
		const { model } = await supplyModel(creds(), { options: { streaming: false } });
		await model.invoke(Q);
		expect(posts().map((p) => p.status)).toEqual([429, 429, 200]);
	});

	it('a 429 that keeps coming until the request timeout: the agent gets the gateway message, the status and advice', async () => {
		sim.fault({ route: CHAT, kind: 'rate-limit', retryAfter: 1, times: -1 });
		const { model } = await supplyModel(creds(), { options: { streaming: false, timeout: 1500 } });
		const err = await failure(model.invoke(Q));
		expect(posts().every((p) => p.status === 429)).toBe(true);
		// the reason, then what to do, on one line (what n8n's chat shows: model/errors.ts forTheChat)
		expect(err.message).toBe(
			'GenGateway: Too many requests (HTTP 429). Rate, concurrency or queue limit: slow down and try again later. A POST whose outcome is unknown is never resent automatically.',
		);
		expect(err.description).toMatch(/Rate, concurrency or queue limit/);
	});

	it('a 429 whose Retry-After does not fit in the request timeout is not sent again', async () => {
		sim.fault({ route: CHAT, kind: 'rate-limit', retryAfter: 30 });
		const { model } = await supplyModel(creds(), { options: { streaming: false, timeout: 5000 } });
		const err = await failure(model.invoke(Q));
		expect(posts()).toHaveLength(1);
		expect(err.description).toMatch(/does not fit in the 5 s the request may take/);
	});

	it.each([0, 'Wed, 01 Jan 2020 00:00:00 GMT'])(
		'a 429 with Retry-After %s to every call: at least 1 s between refused attempts, at most MAX_SENDS sends, then the refusal with its reason (issue 40: 908 POSTs in 8 s before)',
		async (retryAfter) => {
			sim.fault({ route: CHAT, kind: 'rate-limit', retryAfter, times: -1 });
			const { model } = await supplyModel(creds(), { options: { streaming: false } });
			const waits: number[] = [];
			const sleep = jest.spyOn(clock, 'scaled').mockImplementation((ms: number) => {
				waits.push(ms);
				return ms * TEST_TIME_SCALE;
			});
			try {
				const err = await failure(model.invoke(Q));
				expect(posts().map((p) => p.status)).toEqual(Array(MAX_SENDS).fill(429));
				expect(waits).toHaveLength(MAX_SENDS - 1);
				for (const w of waits) expect(w).toBeGreaterThanOrEqual(1000);
				expect(err.description).toMatch(new RegExp(`refused ${MAX_SENDS} times \\(429\\)`));
			} finally {
				sleep.mockRestore();
			}
		},
	);

	it.each([false, true])(
		'a 500 is never sent again and fails the call with the gateway message first (streaming %s)',
		async (streaming) => {
			sim.fault({
				route: CHAT,
				kind: 'status',
				status: 500,
				body: { error: { message: 'upstream exploded', type: 'upstream_error' } },
			});
			const { model } = await supplyModel(creds(), { options: { streaming } });
			const err = await failure(model.invoke(Q));
			expect(posts()).toHaveLength(1);
			expect(err.message).toBe(
				"GenGateway: upstream exploded (HTTP 500). It was not sent again: check the gateway's usage records before you run the workflow again.",
			);
			expect(err.description).toMatch(/not sent again/);
		},
	);

	it.each([false, true])(
		"n8n's Retry On Fail on the agent (the same call again in the same execution) does not send a spent call twice (streaming %s)",
		async (streaming) => {
			sim.fault({
				route: CHAT,
				kind: 'status',
				status: 500,
				body: { error: { message: 'upstream exploded' } },
				times: 3,
			});
			const execution = new AbortController();
			const first = await supplyModel(
				creds(),
				{ options: { streaming } },
				undefined,
				execution.signal,
			);
			await failure(first.model.bindTools([CALCULATOR]).invoke(Q));
			// the agent runs again: supplyData again, the same messages
			const again = await supplyModel(
				creds(),
				{ options: { streaming } },
				undefined,
				execution.signal,
			);
			const err = await failure(again.model.bindTools([CALCULATOR]).invoke(Q));
			expect(posts()).toHaveLength(1);
			expect(err.message).toMatch(/not sent again/);
			expect(err.description).toMatch(/upstream exploded \(HTTP 500\)/);
			// another execution, or other messages, are other calls
			await failure(
				(
					await supplyModel(
						creds(),
						{ options: { streaming: false } },
						undefined,
						new AbortController().signal,
					)
				).model.invoke(Q),
			);
			expect(posts()).toHaveLength(2);
		},
	);

	it('a definite rejection (4xx) is not recorded as spent: the same call may go again', async () => {
		sim.fault({
			route: CHAT,
			kind: 'status',
			status: 400,
			body: { error: { message: 'bad field' } },
		});
		const execution = new AbortController();
		await failure(
			(
				await supplyModel(creds(), { options: { streaming: false } }, undefined, execution.signal)
			).model.invoke(Q),
		);
		const m = await (
			await supplyModel(creds(), { options: { streaming: false } }, undefined, execution.signal)
		).model
			.bindTools([CALCULATOR])
			.invoke(Q);
		expect(m.tool_calls).toHaveLength(1);
		expect(posts()).toHaveLength(2);
	});

	it('a stream cut before [DONE] fails the call and is not sent again', async () => {
		sim.fault({ route: CHAT, kind: 'sse-cut' });
		const { model } = await supplyModel(creds(), { options: { streaming: true } });
		const err = await failure(model.invoke([{ role: 'user', content: 'hello' }]));
		expect(posts()).toHaveLength(1);
		expect(err.message).toMatch(/^GenGateway: /);
	});

	it('a redirect is not followed: one request, to the gateway only', async () => {
		sim.fault({ route: CHAT, kind: 'redirect', status: 307 });
		const { model } = await supplyModel(creds(), { options: { streaming: false } });
		const err = await failure(model.invoke(Q));
		expect(err.message).toMatch(/redirect \(HTTP 307\).*not followed/);
		expect(sim.log.filter((l) => l.server !== 'gateway')).toHaveLength(0);
		expect(posts()).toHaveLength(1);
	});

	it.each([false, true])(
		'the key is redacted from an error that carries it (streaming %s)',
		async (streaming) => {
			sim.fault({
				route: CHAT,
				kind: 'status',
				status: 400,
				body: { error: { message: `bad request for key ${sim.keys.demo}` } },
			});
			const { model, traced } = await supplyModel(creds(), { options: { streaming } });
			const err = await failure(model.invoke(Q));
			expect(err.message).toMatch(/bad request for key/);
			const everything = JSON.stringify([
				err.message,
				err.description,
				String(err.stack),
				traced.outputs.map((o) => o.error?.message),
			]);
			expect(everything).not.toContain(sim.keys.demo);
			expect(err.message).toContain('(HTTP 400)');
		},
	);

	it('an unknown model ID is sent exactly and the gateway message reaches the agent', async () => {
		const { model } = await supplyModel(creds(), {
			model: 'alpha-chat-4O',
			options: { streaming: false },
		});
		const err = await failure(model.invoke(Q));
		expect(posts()[0].model).toBe('alpha-chat-4O');
		expect(err.message).toMatch(/model alpha-chat-4O not found.*\(HTTP 503\)/);
		expect(err.description).toMatch(/No channel serves this model/);
	});
});

describe('tool-call quirks', () => {
	const run = async (
		marker: string,
		streaming: boolean,
		how: 'invoke' | 'stream',
		question = 'What is 12 * 7?',
	): Promise<LcMessage> => {
		const { model } = await supplyModel(creds(), { options: { streaming } });
		const bound = model.bindTools([CALCULATOR]);
		const input = [
			{ role: 'system', content: marker },
			{ role: 'user', content: question },
		];
		return how === 'invoke' ? bound.invoke(input) : joinStream(await bound.stream(input));
	};
	const cases: Array<[boolean, 'invoke' | 'stream']> = [
		[false, 'invoke'],
		[true, 'invoke'],
		[true, 'stream'],
	];

	it.each(cases)('empty arguments become {} (streaming %s, %s)', async (streaming, how) => {
		const m = await run('[llm:empty-args]', streaming, how);
		expect(m.tool_calls).toEqual([expect.objectContaining({ name: 'calculator', args: {} })]);
		expect(m.invalid_tool_calls ?? []).toHaveLength(0);
	});

	it.each(cases)(
		'arguments sent as an object are read as the object (streaming %s, %s)',
		async (streaming, how) => {
			const m = await run('[llm:object-args]', streaming, how);
			expect(m.tool_calls).toEqual([
				expect.objectContaining({ name: 'calculator', args: { input: '12 * 7' } }),
			]);
		},
	);

	it.each([['invoke'], ['stream']] as const)(
		'oddly split, interleaved deltas of two calls are assembled by index (%s)',
		async (how) => {
			const m = await run('[llm:odd-split]', true, how, 'What is 12 * 7 and 3 + 4?');
			expect(m.tool_calls!.map((c) => [c.name, c.args])).toEqual([
				['calculator', { input: '12 * 7' }],
				['calculator', { input: '3 + 4' }],
			]);
			expect(posts()).toHaveLength(1);
		},
	);

	it('arguments that are not a JSON object are an invalid tool call, not a guess', async () => {
		const { parseArgs } = {
			parseArgs: (await import('../../nodes/LmChatGenGateway/model/wire')).repairArguments,
		};
		expect(parseArgs('{"input":')).toMatchObject({ ok: false });
		expect(parseArgs('[1]')).toMatchObject({ ok: false });
		expect(parseArgs('  ')).toEqual({ ok: true, json: '{}' });
		expect(parseArgs({ a: 1 })).toEqual({ ok: true, json: '{"a":1}' });
	});
});

describe('the node', () => {
	it("lists the key's language models only (GET /v1/models), IDs exact", async () => {
		const ctx = {
			getCredentials: async () => creds(),
			getNode: () => ({ name: 'm' }),
		} as unknown as ILoadOptionsFunctions;
		const { results } = await new LmChatGenGateway().methods.listSearch.searchLanguageModels.call(
			ctx,
		);
		const ids = results.map((r) => r.value);
		expect(ids).toContain('alpha-chat-4o');
		expect(ids).toContain('alpha-chat-4o-mini');
		expect(ids.some((id) => /image|video/.test(String(id)))).toBe(false);
		expect(sim.log.map((l) => `${l.method} ${l.path}`)).toEqual(['GET /v1/models']);
	});

	it('says clearly that it needs n8n 2.16 or newer when the host has no SDK', () => {
		expect(() =>
			loadAiNodeSdk(() => {
				throw Object.assign(new Error("Cannot find module '@n8n/ai-node-sdk'"), {
					code: 'MODULE_NOT_FOUND',
				});
			}),
		).toThrow(SDK_MISSING_MESSAGE);
		expect(() => loadAiNodeSdk(() => ({}))).toThrow(/needs n8n 2.16 or newer/);
	});

	it('builds the body OpenAI-style: options, tools, stream_options on streamed chat, model exact', () => {
		const t = new GatewayTransport({
			apiKey: 'k',
			base: normaliseBaseUrl('http://127.0.0.1:1', 'Base URL'),
		});
		const core = new GatewayChatCore(t, {
			model: 'alpha-chat-4o-mini',
			streaming: true,
			useResponsesApi: false,
			temperature: 0.2,
			topP: 0.9,
			maxTokens: 77,
			responseFormat: 'json_object',
			timeoutMs: 1000,
			idleMs: 1000,
		}).withTools([{ name: 'calculator', description: 'd', parameters: { type: 'object' } }]);
		const msgs = [{ role: 'user' as const, content: [{ type: 'text', text: 'hi' }] }];
		expect(core.body(msgs)).toEqual({
			model: 'alpha-chat-4o-mini',
			messages: [{ role: 'user', content: 'hi' }],
			stream: true,
			stream_options: { include_usage: true },
			tools: [
				{
					type: 'function',
					function: { name: 'calculator', description: 'd', parameters: { type: 'object' } },
				},
			],
			temperature: 0.2,
			top_p: 0.9,
			max_tokens: 77,
			response_format: { type: 'json_object' },
		});
		const r = new GatewayChatCore(t, {
			...core.opts,
			useResponsesApi: true,
			streaming: false,
		}).withTools([{ name: 'calculator', parameters: {} }]);
		expect(r.body(msgs)).toMatchObject({
			model: 'alpha-chat-4o-mini',
			input: [{ role: 'user', content: 'hi' }],
			stream: false,
			max_output_tokens: 77,
			text: { format: { type: 'json_object' } },
			tools: [{ type: 'function', name: 'calculator' }],
		});
	});
});

describe('every answer shape and label the text call reads (the one text call, shared with the Chat node)', () => {
	it.each([
		[
			'an event stream relabelled text/plain',
			'text/plain',
			'data: {"choices":[{"index":0,"delta":{"content":"relabelled ✓"}}]}\n\ndata: [DONE]\n\n',
		],
		[
			'a whole JSON answer to a streamed request',
			'application/json',
			JSON.stringify({
				choices: [
					{
						index: 0,
						message: { role: 'assistant', content: 'relabelled ✓' },
						finish_reason: 'stop',
					},
				],
			}),
		],
	])('%s: the turn is answered, sent once', async (_name, type, text) => {
		const server = await scriptedServer((req, res) => {
			if (req.method !== 'POST') return scriptedJson(res, 404, { error: { message: 'not here' } });
			res.writeHead(200, { 'content-type': type });
			res.end(text);
		});
		try {
			const { model } = await supplyModel(
				{ apiKey: 'sk-relabel-000000000001', baseUrl: server.url },
				{ options: { streaming: true } },
			);
			const m = await model.invoke(Q);
			expect(m.text).toBe('relabelled ✓');
			expect(server.posts()).toHaveLength(1);
		} finally {
			await server.close();
		}
	});
});

describe('what the execution learns stays learned', () => {
	it('a turn already on its way when another turn learns the refusal leaves the field out of its next send (after a 429)', async () => {
		let refusedAt = 0;
		const server = await scriptedServer((req, res) => {
			if (req.method !== 'POST') return scriptedJson(res, 404, { error: { message: 'not here' } });
			const body = JSON.parse(req.body) as { messages: Array<{ content: string }> };
			const second = body.messages.some((m) => m.content === 'B?');
			// B's first send is refused with 429 before A's refusal arrives; its next send comes after A taught the execution
			if (second && server.posts().filter((p) => p.body.includes('B?')).length === 1)
				return scriptedJson(res, 429, { error: { message: 'slow down' } }, { 'retry-after': '5' });
			if ('temperature' in body) {
				refusedAt ||= Date.now();
				return scriptedJson(res, 400, {
					error: { message: 'Unsupported parameter: temperature', type: 'invalid_request_error' },
				});
			}
			scriptedJson(res, 200, {
				choices: [
					{ index: 0, message: { role: 'assistant', content: 'fine' }, finish_reason: 'stop' },
				],
			});
		});
		try {
			const signal = new AbortController().signal;
			const creds = { apiKey: 'sk-learned-0000000000002', baseUrl: server.url };
			const params = { options: { streaming: false, temperature: 0.3 } };
			const { model } = await supplyModel(creds, params, undefined, signal, { runIndex: 0 });
			await Promise.all([
				model.invoke([{ role: 'user', content: 'B?' }]),
				model.invoke([{ role: 'user', content: 'A?' }]),
			]);
			const sent = (q: string) =>
				server
					.posts()
					.filter((p) => p.body.includes(q))
					.map((p) => ('temperature' in JSON.parse(p.body) ? 'with' : 'without'));
			// A: refused for temperature, sent once more without it. B: refused with 429 while it still carried it, and
			// its next send (after A taught the execution) leaves it out: never a second 400 for it
			expect(sent('A?')).toEqual(['with', 'without']);
			expect(sent('B?')).toEqual(['with', 'without']);
			expect(refusedAt).toBeGreaterThan(0);
		} finally {
			await server.close();
		}
	});

	it("a field the gateway refused (400 naming temperature) is left out of every later turn of the execution, the agent's next run included", async () => {
		const server = await scriptedServer((req, res) => {
			if (req.method !== 'POST') return scriptedJson(res, 404, { error: { message: 'not here' } });
			if ('temperature' in (JSON.parse(req.body) as Record<string, unknown>))
				return scriptedJson(res, 400, {
					error: { message: 'Unsupported parameter: temperature', type: 'invalid_request_error' },
				});
			scriptedJson(res, 200, {
				choices: [
					{ index: 0, message: { role: 'assistant', content: 'fine' }, finish_reason: 'stop' },
				],
			});
		});
		try {
			const signal = new AbortController().signal;
			const creds = { apiKey: 'sk-learned-0000000000001', baseUrl: server.url };
			const params = { options: { streaming: false, temperature: 0.3 } };
			const first = await supplyModel(creds, params, undefined, signal, { runIndex: 0 });
			await first.model.invoke(Q);
			// the agent runs again in the same execution (a loop, or its next item's supply)
			const again = await supplyModel(creds, params, undefined, signal, { runIndex: 1 });
			await again.model.invoke([{ role: 'user', content: 'And now?' }]);
			expect(server.posts().map((p) => 'temperature' in JSON.parse(p.body))).toEqual([
				true,
				false,
				false,
			]);
		} finally {
			await server.close();
		}
	});
});
