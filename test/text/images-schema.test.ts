/**
 * Issue 34 on the Chat and Responses action nodes, in n8n workflows (in-process) against the simulator over HTTP:
 * images from the item's binary properties and by address reach the vision model (`image_url` / `input_image` parts),
 * a binary that is no image is refused before any request; the Chat node's Response Format JSON Schema: the answer
 * checked, one repair request at most (both calls in the item's cost), the structured value as `output`, a failed item
 * that says why.
 */
import { createServer, type Server } from 'node:http';
import sharp from 'sharp';
import { useSimulator } from '../harness/simulator';
import { GenGatewayChat } from '../../nodes/GenGatewayChat/GenGatewayChat.node';
import { GenGatewayResponses } from '../../nodes/GenGatewayResponses/GenGatewayResponses.node';
import { cleanupBinaryData, runWorkflow, type TestNode } from '../harness/workflow';

jest.setTimeout(30_000);

const sim = useSimulator({ quiet: true, syncLatencyMs: 5 });
let png: Buffer;
let server: Server;
let imageUrl = '';
beforeAll(async () => {
	png = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#3d7a4f' } })
		.png()
		.toBuffer();
	server = createServer((_req, res) =>
		res.writeHead(200, { 'content-type': 'image/png' }).end(png),
	);
	await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
	// a public name (the package refuses loopback addresses), which the simulator reads from the loopback server
	sim.state.imageHosts.set(
		'photos.example',
		`http://127.0.0.1:${(server.address() as { port: number }).port}`,
	);
	imageUrl = 'https://photos.example/photo.png';
});
afterAll(async () => {
	await new Promise((r) => server.close(r));
	cleanupBinaryData();
});
beforeEach(() => sim.reset());

const creds = () => ({ apiKey: sim.keys.demo, baseUrl: sim.baseUrl });
const model = (value: string) => ({ __rl: true, mode: 'id', value });
const posts = () => sim.log.filter((l) => l.method === 'POST');
const withPng = () => [
	{
		json: {},
		binary: {
			data: { data: png.toString('base64'), mimeType: 'image/png', fileName: 'photo.png' },
		},
	},
];

const chat = (
	content: string,
	options: Record<string, unknown>,
	extra: Partial<TestNode> = {},
	modelId = 'alpha-vision-1',
): TestNode => ({
	name: 'Chat',
	type: new GenGatewayChat(),
	parameters: {
		model: model(modelId),
		messagesFrom: 'ui',
		messages: {
			values: [
				{ role: 'system', content: 'be brief' },
				{ role: 'user', content },
			],
		},
		stream: false,
		options,
	},
	...extra,
});
const responses = (input: string, options: Record<string, unknown>, stream = false): TestNode => ({
	name: 'Responses',
	type: new GenGatewayResponses(),
	parameters: { model: model('alpha-vision-1'), input, stream, options },
});

describe('images into the action nodes', () => {
	it.each([false, true])(
		"Chat: the item's binary image goes as an image_url part (stream %s)",
		async (stream) => {
			const node = chat('What is this?', { imageBinaries: 'data' });
			node.parameters!.stream = stream;
			const r = await runWorkflow({ nodes: [node], input: withPng(), credentials: creds() });
			expect(r.error).toBeUndefined();
			expect(r.output('Chat')[0].json.text).toContain('png 64x48');
			expect(posts()).toHaveLength(1);
			// the gateway billed image tokens: the part was sent
			expect(JSON.stringify(sim.ledger[0].basis)).toMatch(/"image":\d+/);
		},
	);

	it('Responses: a binary image and an address, as input_image parts of one user item', async () => {
		const r = await runWorkflow({
			nodes: [responses('Describe both', { imageBinaries: 'data', imageUrls: imageUrl }, true)],
			input: withPng(),
			credentials: creds(),
		});
		expect(r.error).toBeUndefined();
		expect(r.output('Responses')[0].json.text).toContain('png 64x48; png 64x48');
	});

	it('a binary that is not an image, or an address that is neither http(s) nor a Data URL, is refused before any request', async () => {
		const text = [
			{
				json: {},
				binary: { data: { data: Buffer.from('hello').toString('base64'), mimeType: 'text/plain' } },
			},
		];
		const a = await runWorkflow({
			nodes: [chat('What is this?', { imageBinaries: 'data' })],
			input: text,
			credentials: creds(),
		});
		expect(a.error).toMatch(
			/Image Binary Properties: binary "data" \(no name\) is not a PNG, JPEG, WebP or GIF image \(checked from its bytes\)/,
		);
		const b = await runWorkflow({
			nodes: [responses('x', { imageUrls: 'ftp://example.com/a.png' })],
			credentials: creds(),
		});
		expect(b.error).toMatch(
			/Image URLs\[0\]: an image must be a Data URL .* or an http\(s\) address/,
		);
		expect(posts()).toHaveLength(0);
	});
});

describe('Chat node: Response Format JSON Schema', () => {
	const schema = JSON.stringify({
		type: 'object',
		properties: { answer: { type: 'string' }, confidence: { type: 'number' } },
		required: ['answer', 'confidence'],
	});
	/** the Response Format option (version 1.1); version 1's options of before: test/text/response-format.test.ts */
	const format = (jsonSchema = schema) => ({
		format: { values: { responseFormat: 'json_schema', jsonSchema, schemaName: 'reply' } },
	});
	const options = format();

	it('a valid answer: one call, the value as output', async () => {
		const r = await runWorkflow({
			nodes: [chat('Name a colour', options, {}, 'alpha-chat-4o')],
			credentials: creds(),
		});
		const j = r.output('Chat')[0].json;
		expect(j.output).toEqual({ answer: expect.any(String), confidence: 0 });
		expect(JSON.parse(j.text as string)).toEqual(j.output);
		expect(j.json_schema_repair).toBeUndefined();
		expect(posts()).toHaveLength(1);
	});

	it.each([false, true])(
		"[llm:invalid-first] (stream %s): one repair request, its value as output; the item's cost counts both calls",
		async (stream) => {
			const node = chat('Name a colour [llm:invalid-first]', options, {}, 'alpha-chat-4o');
			node.parameters!.stream = stream;
			const r = await runWorkflow({ nodes: [node], credentials: creds() });
			const j = r.output('Chat')[0].json as Record<string, any>;
			expect(j.output).toEqual({ answer: expect.any(String), confidence: 0 });
			expect(j.json_schema_repair.errors.join(' ')).toContain('required property "answer"');
			expect(posts()).toHaveLength(2);
			const charged = sim.ledger.filter((l) => l.kind === 'charge');
			expect(charged).toHaveLength(2);
			if (stream) return;
			// both calls' tokens are in the item's usage and cost
			const tokens = charged.reduce(
				(n, l) => n + (l.basis as any).usage.prompt + (l.basis as any).usage.completion,
				0,
			);
			expect(j.usage.prompt_tokens + j.usage.completion_tokens).toBe(tokens);
			expect(j.cost.prompt_tokens + j.cost.completion_tokens).toBe(tokens);
		},
	);

	it('[llm:invalid-always]: never more than one repair; the item fails saying why (Continue)', async () => {
		const r = await runWorkflow({
			nodes: [
				chat(
					'Name a colour [llm:invalid-always]',
					options,
					{ onError: 'continueRegularOutput' },
					'alpha-chat-4o',
				),
			],
			credentials: creds(),
		});
		const j = r.output('Chat')[0].json as Record<string, any>;
		expect(j.error_message).toMatch(
			/does not match the JSON Schema "reply", also after one repair request/,
		);
		expect(j.json_schema_repair.errors.length).toBeGreaterThan(0);
		expect(j.cost).toBeDefined();
		expect(posts()).toHaveLength(2);
	});

	it('Extra Body Fields may not set response_format beside a Response Format; a bad schema is refused before any request', async () => {
		const a = await runWorkflow({
			nodes: [
				chat(
					'x',
					{ ...options, extraBody: '{"response_format":{"type":"text"}}' },
					{},
					'alpha-chat-4o',
				),
			],
			credentials: creds(),
		});
		expect(a.error).toMatch(/must not set response_format/);
		const b = await runWorkflow({
			nodes: [chat('x', format('[1,2]'), {}, 'alpha-chat-4o')],
			credentials: creds(),
		});
		expect(b.error).toMatch(/JSON Schema: must be a JSON object/);
		expect(posts()).toHaveLength(0);
	});
});
