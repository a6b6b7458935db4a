/**
 * Issue 34 through n8n's SDK adapter (what the AI Agent holds), against the simulator's scripted models over HTTP:
 * thinking models with a tool (the reasoning comes back on the tool-call turn, as the Agent rebuilds it: without its
 * reasoning), images into a vision model (the Agent's LangChain `image_url` blocks, Data URLs and addresses; the size
 * bound; the gateway's 413), Response Format JSON Schema with its one repair request, the run data of each turn
 * (tool calls, text, reasoning, cost), and a 400 on an optional field.
 */
import { createServer, type Server } from 'node:http';
import sharp from 'sharp';
import { startSimulator } from '../../simulator';
import { useSimulator } from '../harness/simulator';
import {
	CALCULATOR,
	joinStream,
	newTrace,
	supplyModel,
	type LcMessage,
	type LcModel,
} from './support';

jest.setTimeout(60_000);

const sim = useSimulator({ quiet: true, syncLatencyMs: 1 });
let png: Buffer;
let images: Server;
let imageBase = '';
beforeAll(async () => {
	png = await sharp({
		create: { width: 64, height: 48, channels: 3, background: { r: 200, g: 40, b: 40 } },
	})
		.png()
		.toBuffer();
	images = createServer((_req, res) => {
		res.writeHead(200, { 'content-type': 'image/png', 'content-length': png.length });
		res.end(png);
	});
	await new Promise<void>((r) => images.listen(0, '127.0.0.1', () => r()));
	// a public name (the package refuses loopback addresses), which the simulator reads from the loopback server
	sim.state.imageHosts.set(
		'photos.example',
		`http://127.0.0.1:${(images.address() as { port: number }).port}`,
	);
	imageBase = 'https://photos.example';
});
afterAll(async () => {
	await new Promise((r) => images.close(r));
});
beforeEach(() => sim.reset());

const creds = () => ({ apiKey: sim.keys.demo, baseUrl: sim.baseUrl });
const posts = () => sim.log.filter((l) => l.method === 'POST');
const charges = () => sim.ledger.filter((l) => l.kind === 'charge');
type Gen = { text: string; generationInfo?: Record<string, any> };
const generationOf = (json: Record<string, any> | undefined): Gen =>
	json!.response.generations[0][0];

async function call(model: LcModel, how: 'invoke' | 'stream', input: unknown): Promise<LcMessage> {
	return how === 'invoke' ? model.invoke(input) : joinStream(await model.stream(input));
}

/** The assistant message of a tool-call turn as n8n 2.41.1's Agent rebuilds it for the next turn: its tool call, no content, no reasoning. */
const rebuilt = (m: LcMessage) => ({
	role: 'assistant',
	content: '',
	tool_calls: m.tool_calls!.map((c) => ({
		id: c.id,
		name: c.name,
		args: c.args,
		type: 'tool_call',
	})),
});

describe.each([
	['delta-think-r1', 'reasoning_content'],
	['beta-think-2.5', 'reasoning'],
])('thinking model %s (%s) with the calculator', (modelId) => {
	it.each([
		['plain', false, 'invoke'],
		['streamed', true, 'invoke'],
		['streamed, LangChain stream', true, 'stream'],
	] as const)(
		"%s: the tool-call turn's reasoning goes back with it; one POST per turn; reasoning in the run data, never in the answer",
		async (_n, streaming, how) => {
			const { model, traced } = await supplyModel(creds(), {
				model: modelId,
				options: { streaming },
			});
			const bound = model.bindTools([CALCULATOR]);
			const q = { role: 'user', content: 'What is 12 * 7?' };
			const first = await call(bound, how, [q]);
			expect(first.tool_calls).toHaveLength(1);
			const second = await call(bound, how, [
				q,
				rebuilt(first),
				{ role: 'tool', content: '84', tool_call_id: first.tool_calls![0].id },
			]);
			expect(posts().map((p) => p.status)).toEqual([200, 200]);
			expect(charges()).toHaveLength(2);
			expect(second.text).toBe('The result is 84.');
			// the reasoning is a block of its own in the message the agent keeps, never part of its text
			expect(JSON.stringify(second.content)).toContain('"type":"reasoning"');
			expect(second.text).not.toContain('tool results');
			// the run data: the tool-call turn shows its call, reasoning and cost; the answer its reasoning and cost
			const [t1, t2] = traced.outputs.map((o) => generationOf(o.json));
			expect(t1.generationInfo!.tool_calls).toEqual([
				expect.objectContaining({
					id: first.tool_calls![0].id,
					name: 'calculator',
					args: '{"input":"12 * 7"}',
				}),
			]);
			expect(t1.generationInfo!.reasoning).toContain('calculator');
			expect(t1.generationInfo!.reasoning_tokens).toBeGreaterThan(0);
			expect(t1.generationInfo!.cost).toMatchObject({ basis: 'per token' });
			expect(t2.text).toBe('The result is 84.');
			expect(t2.generationInfo!.reasoning).toContain('tool results');
			// issue 44 bullet 4: what n8n's Logs panel shows of each turn (the texts of response.generations): the
			// tool-call turn reads as its call, the answer turn as its answer; the agent's own message is untouched
			expect(traced.outputs.map((o) => logsPanelText(o.json))).toEqual([
				'Calling calculator({"input":"12 * 7"})',
				'The result is 84.',
			]);
			expect(first.text).toBe('');
		},
	);
});

/**
 * n8n 2.41.1's Logs panel for an `ai_languageModel` run (editor-ui's AI content parser, as shipped in n8n-editor-ui's
 * bundle): the response's `generations`, each list joined from its generations' `text` (or the whole generation when it
 * has none).
 */
function logsPanelText(json: Record<string, any> | undefined): unknown {
	const t = json!.response ?? json;
	return t.generations
		.map((e: any) =>
			e?.text
				? e.text
				: Array.isArray(e)
					? e
							.map((g: any) => g.text ?? g)
							.join('\n\n')
							.trim()
					: e,
		)
		.join('');
}

it("n8n 2.41.1's Agent (V3) asks each tool round from a new supply under the same run index: turn 2 is sent (its place knows the turn), a re-run from turn 1 is not", async () => {
	const signal = new AbortController().signal;
	const q = { role: 'user', content: 'What is 12 * 7?' };
	const { model } = await supplyModel(creds(), { model: 'delta-think-r1' }, newTrace(), signal);
	const first = await model.bindTools([CALCULATOR]).invoke([q]);
	const { model: round2 } = await supplyModel(
		creds(),
		{ model: 'delta-think-r1' },
		newTrace(),
		signal,
	);
	const second = await round2
		.bindTools([CALCULATOR])
		.invoke([
			q,
			rebuilt(first),
			{ role: 'tool', content: '84', tool_call_id: first.tool_calls![0].id },
		]);
	expect(second.text).toBe('The result is 84.');
	expect(posts().map((p) => p.status)).toEqual([200, 200]);
	// Retry On Fail runs the agent again from turn 1: the answer that turn had, nothing sent
	const { model: retry } = await supplyModel(
		creds(),
		{ model: 'delta-think-r1' },
		newTrace(),
		signal,
	);
	const again = await retry.bindTools([CALCULATOR]).invoke([q]);
	expect(again.tool_calls![0].id).toBe(first.tool_calls![0].id);
	expect(posts()).toHaveLength(2);
});

it('Leave Out Reasoning: no reasoning in the message or the run data, and it still goes back to the gateway', async () => {
	const { model, traced } = await supplyModel(creds(), {
		model: 'delta-think-r1',
		options: { streaming: true, leaveOutReasoning: true },
	});
	const bound = model.bindTools([CALCULATOR]);
	const q = { role: 'user', content: 'What is 3 + 4?' };
	const first = await bound.invoke([q]);
	expect(JSON.stringify(first.content)).not.toContain('reasoning');
	const second = await bound.invoke([
		q,
		rebuilt(first),
		{ role: 'tool', content: '7', tool_call_id: first.tool_calls![0].id },
	]);
	expect(second.text).toBe('The result is 7.');
	expect(posts().map((p) => p.status)).toEqual([200, 200]);
	expect(traced.outputs.map((o) => generationOf(o.json).generationInfo?.reasoning)).toEqual([
		undefined,
		undefined,
	]);
});

it("the Agent's own record of DeepSeek reasoning (additional_kwargs.reasoning_content) reaches the gateway", async () => {
	// a supply of its own (a later execution would have no kept reasoning): only the message carries it
	const { model } = await supplyModel(creds(), {
		model: 'delta-think-r1',
		options: { streaming: false },
	});
	const q = { role: 'user', content: 'What is 2 + 2?' };
	const ai = {
		role: 'assistant',
		content: '',
		tool_calls: [
			{ id: 'call_from_memory', name: 'calculator', args: { input: '2 + 2' }, type: 'tool_call' },
		],
		additional_kwargs: { reasoning_content: 'I will use the calculator.' },
	};
	const m = await model
		.bindTools([CALCULATOR])
		.invoke([q, ai, { role: 'tool', content: '4', tool_call_id: 'call_from_memory' }]);
	expect(m.text).toBe('The result is 4.');
	expect(posts().map((p) => p.status)).toEqual([200]);
});

it('responses API: the reasoning items are read into the message and the run data', async () => {
	const { model, traced } = await supplyModel(creds(), {
		model: 'delta-think-r1',
		options: { streaming: true, useResponsesApi: true },
	});
	const m = await model.invoke([{ role: 'user', content: 'Say hello' }]);
	expect(m.text).toContain('Scripted answer');
	expect(JSON.stringify(m.content)).toContain('"type":"reasoning"');
	expect(generationOf(traced.outputs[0].json).generationInfo!.reasoning).toContain(
		'No tool is needed',
	);
});

describe('images into the model', () => {
	const ask = (image: unknown) => [
		{ role: 'user', content: 'What is in the picture?' },
		{ role: 'user', content: [image] },
	];

	it.each([
		['chat, plain', false, false],
		['chat, streamed', true, false],
		['responses, streamed', true, true],
	])(
		"%s: the Agent's image_url block (a Data URL) reaches the vision model as an image part",
		async (_n, streaming, useResponsesApi) => {
			const { model } = await supplyModel(creds(), {
				model: 'alpha-vision-1',
				options: { streaming, useResponsesApi },
			});
			const m = await model.invoke(
				ask({
					type: 'image_url',
					image_url: { url: `data:image/png;base64,${png.toString('base64')}` },
				}),
			);
			expect(m.text).toContain('png 64x48');
			expect(posts()).toHaveLength(1);
		},
	);

	it('an http(s) address goes as an address (the gateway reads it), and the LangChain stream path converts too', async () => {
		const { model } = await supplyModel(creds(), {
			model: 'alpha-vision-1',
			options: { streaming: true },
		});
		const m = await joinStream(
			await model.stream(ask({ type: 'image_url', image_url: `${imageBase}/cat.png` })),
		);
		expect(m.text).toContain('png 64x48');
	});

	it("an image over the package's bound (20 MiB) is refused before anything is sent", async () => {
		const { model } = await supplyModel(creds(), {
			model: 'alpha-vision-1',
			options: { streaming: false },
		});
		const big = Buffer.alloc(21 * 1024 * 1024, 1).toString('base64');
		await expect(
			model.invoke(ask({ type: 'image_url', image_url: { url: `data:image/png;base64,${big}` } })),
		).rejects.toThrow(/the limit is 20 MiB per image/);
		expect(posts()).toHaveLength(0);
	});

	it("the gateway's own bounds: 400 invalid_image over its 5 MiB and 413 over its body cap, each sent once", async () => {
		const { model } = await supplyModel(creds(), {
			model: 'alpha-vision-1',
			options: { streaming: false },
		});
		const six = await sharp({
			create: { width: 1400, height: 1400, channels: 3, background: '#888' },
		})
			.png({ compressionLevel: 0 })
			.toBuffer();
		expect(six.length).toBeGreaterThan(5 * 1024 * 1024);
		await expect(
			model.invoke(
				ask({
					type: 'image_url',
					image_url: { url: `data:image/png;base64,${six.toString('base64')}` },
				}),
			),
		).rejects.toThrow(/5242880 bytes.*HTTP 400/);
		expect(posts().map((p) => p.status)).toEqual([400]);
		// a real image (the package checks the bytes) over the gateway's body cap
		const over = await sharp({
			create: { width: 300, height: 300, channels: 3, background: '#888' },
		})
			.png({ compressionLevel: 0 })
			.toBuffer();
		expect(over.length).toBeGreaterThan(200_000);
		const small = await startSimulator({ quiet: true, syncLatencyMs: 1, maxBodyBytes: 200_000 });
		try {
			const { model: m2 } = await supplyModel(
				{ apiKey: small.keys.demo, baseUrl: small.baseUrl },
				{ model: 'alpha-vision-1', options: { streaming: false } },
			);
			await expect(
				m2.invoke(
					ask({
						type: 'image_url',
						image_url: {
							url: `data:image/png;base64,${over.toString('base64')}`,
						},
					}),
				),
			).rejects.toThrow(/HTTP 413/);
			expect(small.log.filter((l) => l.method === 'POST').map((l) => l.status)).toEqual([413]);
		} finally {
			await small.stop();
		}
	});
});

describe('Response Format: JSON Schema', () => {
	const schema = JSON.stringify({
		type: 'object',
		properties: { answer: { type: 'string' }, confidence: { type: 'number' } },
		required: ['answer', 'confidence'],
		additionalProperties: false,
	});

	it.each([false, true])(
		'an answer that validates is handed on as it is: one call (streaming %s)',
		async (streaming) => {
			const { model } = await supplyModel(creds(), {
				options: { streaming, responseFormat: 'json_schema', jsonSchema: schema },
			});
			const m = await model.invoke([{ role: 'user', content: 'Name a colour' }]);
			expect(JSON.parse(m.text)).toMatchObject({
				answer: expect.any(String),
				confidence: expect.any(Number),
			});
			expect(posts()).toHaveLength(1);
		},
	);

	it.each(['[llm:invalid-first]', '[llm:invalid-first=not-json]'])(
		'%s: one repair request, its answer handed on; both calls in the cost and the run data',
		async (marker) => {
			const { model, traced } = await supplyModel(creds(), {
				options: { streaming: true, responseFormat: 'json_schema', jsonSchema: schema },
			});
			const m = await joinStream(
				await model.stream([
					{ role: 'system', content: `Answer as JSON. ${marker}` },
					{ role: 'user', content: 'Name a colour' },
				]),
			);
			expect(JSON.parse(m.text)).toMatchObject({ answer: expect.any(String) });
			expect(posts()).toHaveLength(2);
			expect(charges()).toHaveLength(2);
			const info = generationOf(traced.outputs[0].json).generationInfo!;
			expect(info.json_schema_repair.errors.join(' ')).toMatch(
				marker.includes('not-json') ? /not JSON/ : /confidence|answer/,
			);
			expect(info.json_schema_repair.cost).toMatchObject({ basis: 'per token' });
			expect(info.cost).toMatchObject({ basis: 'per token' });
		},
	);

	it('[llm:invalid-always]: never more than one repair; the agent gets an error that says why', async () => {
		const { model } = await supplyModel(creds(), {
			options: { streaming: false, responseFormat: 'json_schema', jsonSchema: schema },
		});
		await expect(
			model.invoke([
				{ role: 'system', content: '[llm:invalid-always]' },
				{ role: 'user', content: 'Name a colour' },
			]),
		).rejects.toThrow(/does not match the JSON Schema "answer", also after one repair request/);
		expect(posts()).toHaveLength(2);
		expect(charges()).toHaveLength(2);
	});

	it('the repair request is checked against Max Expected Spend like any turn: refused before it is sent when the first call used the cap', async () => {
		const { model } = await supplyModel(creds(), {
			options: {
				streaming: false,
				responseFormat: 'json_schema',
				jsonSchema: schema,
				maxTokens: 50,
				maxExpectedSpend: 1300,
			},
		});
		await expect(
			model.invoke([
				{ role: 'system', content: '[llm:invalid-always]' },
				{ role: 'user', content: 'Name a colour' },
			]),
		).rejects.toThrow(/Max Expected Spend .*refused this model turn/);
		expect(posts()).toHaveLength(1);
	});

	it('a schema that is not JSON is refused when the model is supplied, before any request', async () => {
		await expect(
			supplyModel(creds(), { options: { responseFormat: 'json_schema', jsonSchema: '{"type": ' } }),
		).rejects.toThrow(/JSON Schema: is not valid JSON/);
		expect(posts()).toHaveLength(0);
	});
});

it('a 400 that names stream_options created nothing: the turn goes once more without it, never a third time', async () => {
	sim.fault({
		route: '/v1/chat/completions',
		kind: 'status',
		status: 400,
		body: {
			error: {
				message: 'Unrecognized request argument supplied: stream_options',
				type: 'invalid_request_error',
			},
		},
		times: 1,
	});
	const { model } = await supplyModel(creds(), { options: { streaming: true } });
	const m = await model.invoke([{ role: 'user', content: 'hi [llm]' }]);
	expect(m.text).toContain('Scripted answer');
	expect(posts().map((p) => p.status)).toEqual([400, 200]);
	sim.reset();
	sim.fault({
		route: '/v1/chat/completions',
		kind: 'status',
		status: 400,
		body: { error: { message: 'Unknown parameter: temperature' } },
		times: -1,
	});
	const { model: m2 } = await supplyModel(creds(), {
		options: { streaming: false, temperature: 0.3 },
	});
	await expect(m2.invoke([{ role: 'user', content: 'hi' }])).rejects.toThrow(
		/Unknown parameter: temperature \(HTTP 400\)/,
	);
	expect(posts().map((p) => p.status)).toEqual([400, 400]);
});

it('a 400 that names a field that is not optional (tools) is not sent again', async () => {
	sim.fault({
		route: '/v1/chat/completions',
		kind: 'status',
		status: 400,
		body: { error: { message: 'tools are not supported by this channel' } },
		times: -1,
	});
	const { model } = await supplyModel(creds(), { options: { streaming: true } });
	await expect(
		model.bindTools([CALCULATOR]).invoke([{ role: 'user', content: 'What is 1 + 1?' }]),
	).rejects.toThrow(/HTTP 400/);
	expect(posts()).toHaveLength(1);
});
