/**
 * Memory bounded per item in flight, not per batch (issue 42, brief bullet 2): Chat and Responses check every item's
 * images before the first request (a bad one still refuses the batch before anything is sent), then read each item's
 * images again only when its request is built — after the previous item's request was sent and answered — so the
 * batch never holds every item's images at once (nodes/shared/text/images.ts `withItemImages`). The order is
 * observed, not timed: every read of an input image (`readInputImage`, the one image check's reader) and every
 * request the scripted gateway received, in the order they happened. The memory itself is measured by
 * `npm run bench -- images` (bench/images.ts).
 */
import type { ServerResponse } from 'node:http';
import sharp from 'sharp';
import * as binary from '../../nodes/shared/binary';
import { GenGatewayChat } from '../../nodes/GenGatewayChat/GenGatewayChat.node';
import { GenGatewayResponses } from '../../nodes/GenGatewayResponses/GenGatewayResponses.node';
import { json, scriptedServer, type ScriptedServer } from '../harness/scripted-server';
import { cleanupBinaryData, runWorkflow, type TestNode } from '../harness/workflow';

jest.setTimeout(30_000);

const KEY = 'sk-images-order-0123456789';
const N = 3;
let png: Buffer;
let events: string[] = [];
let gw: ScriptedServer;

const chatAnswer = (res: ServerResponse, stream: boolean) => {
	if (!stream)
		return json(res, 200, {
			id: 'c',
			object: 'chat.completion',
			choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
		});
	res.writeHead(200, { 'content-type': 'text/event-stream' });
	res.end(
		'data: {"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n',
	);
};
const responsesAnswer = (res: ServerResponse) =>
	json(res, 200, {
		id: 'r',
		object: 'response',
		status: 'completed',
		output: [
			{
				type: 'message',
				role: 'assistant',
				content: [{ type: 'output_text', text: 'ok' }],
			},
		],
	});

beforeAll(async () => {
	png = await sharp({ create: { width: 32, height: 24, channels: 3, background: '#204080' } })
		.png()
		.toBuffer();
	const read = binary.readInputImage;
	jest.spyOn(binary, 'readInputImage').mockImplementation((ctx, i, ...rest) => {
		events.push(`read ${i}`);
		return read(ctx, i, ...rest);
	});
	gw = await scriptedServer((req, res) => {
		if (req.method !== 'POST') return json(res, 404, { error: { message: 'not here' } });
		const item = /item (\d+)/.exec(req.body)?.[1];
		events.push(`post ${item}`);
		const body = JSON.parse(req.body) as { stream?: boolean };
		if (req.path === '/v1/responses') return responsesAnswer(res);
		chatAnswer(res, body.stream === true);
	});
});
afterAll(async () => {
	jest.restoreAllMocks();
	await gw.close();
	cleanupBinaryData();
});
beforeEach(() => {
	events = [];
	gw.seen.length = 0;
});

const image = (bytes: Buffer, mimeType = 'image/png', fileName = 'in.png') => ({
	data: { data: bytes.toString('base64'), mimeType, fileName },
});
const items = (bad?: number) =>
	Array.from({ length: N }, (_, k) => ({
		json: { q: `item ${k}` },
		binary:
			k === bad ? image(Buffer.from('not an image at all'), 'image/png', 'fake.png') : image(png),
	}));

const nodes: Array<[string, (stream: boolean) => TestNode]> = [
	[
		'Chat',
		(stream) => ({
			name: 'Chat',
			type: new GenGatewayChat(),
			parameters: {
				model: { __rl: true, mode: 'id', value: 'alpha-vision-1' },
				messagesFrom: 'ui',
				messages: { values: [{ role: 'user', content: '={{ $json.q }}' }] },
				stream,
				options: { imageBinaries: 'data' },
			},
		}),
	],
	[
		'Responses',
		(stream) => ({
			name: 'Responses',
			type: new GenGatewayResponses(),
			parameters: {
				model: { __rl: true, mode: 'id', value: 'alpha-vision-1' },
				input: '={{ $json.q }}',
				stream,
				options: { imageBinaries: 'data' },
			},
		}),
	],
];

describe.each(nodes)("%s: an item's images are read when its request is built", (name, node) => {
	it.each([false, true])(
		'streamed %s: every item checked first, then each read after the previous request was answered',
		async (stream) => {
			const r = await runWorkflow({
				nodes: [node(stream)],
				input: items(),
				credentials: { apiKey: KEY, baseUrl: gw.url },
			});
			expect(r.error).toBeUndefined();
			expect(r.output(name).map((o) => o.json.text)).toEqual(['ok', 'ok', 'ok']);
			const check = Array.from({ length: N }, (_, k) => `read ${k}`);
			const send = Array.from({ length: N }, (_, k) => [`read ${k}`, `post ${k}`]).flat();
			expect(events).toEqual([...check, ...send]);
		},
	);

	it('a bad image of the last item still refuses the batch before any request', async () => {
		const r = await runWorkflow({
			nodes: [node(false)],
			input: items(N - 1),
			credentials: { apiKey: KEY, baseUrl: gw.url },
		});
		expect(r.error).toMatch(/Image Binary Properties/);
		expect(gw.posts()).toHaveLength(0);
	});
});
