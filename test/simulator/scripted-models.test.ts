/**
 * The scripted models agents use now (issue 34), on the wire in OpenAI's public format: a thinking model (reasoning
 * beside the answer, plain and streamed; 400 when a tool-call turn comes back without it), a vision model (answers
 * with the format and pixel size of the image it got; the oracle decodes every pixel of the file with sharp and reads
 * its header with image-size, and both must agree), and schema-following answers with a controllable invalid first
 * answer (zod is the oracle).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { imageSize } from 'image-size';
import sharp from 'sharp';
import { z } from 'zod';
import { startSimulator } from '../../simulator';
import { useSimulator } from '../harness/simulator';
import { client } from './client';

const sim = useSimulator({ quiet: true, syncLatencyMs: 1 });
beforeEach(() => {
	sim.reset();
	sim.resetPricing();
});

const { call } = client(() => sim);
type Json = Record<string, any>;
const post = (path: string, json: Json, key?: string) => call('POST', path, { json, key });
/** chat SSE: the JSON of every data line but [DONE], and whether [DONE] ended it */
const chatEvents = (buf: Buffer) => {
	const blocks = buf
		.toString('utf8')
		.split('\n\n')
		.filter((b) => b.startsWith('data: '));
	return {
		events: blocks
			.filter((b) => !b.includes('[DONE]'))
			.map((b) => JSON.parse(b.slice(6))) as Json[],
		done: blocks.at(-1) === 'data: [DONE]',
	};
};
/** responses SSE: [event name, data] pairs */
const responsesEvents = (buf: Buffer) =>
	buf
		.toString('utf8')
		.split('\n\n')
		.filter((b) => b.startsWith('event: '))
		.map((b) => {
			const [head, data] = b.split('\n');
			return [head.slice(7), JSON.parse(data.slice(6))] as [string, Json];
		});
const CALCULATOR = [
	{
		type: 'function',
		function: {
			name: 'calculator',
			parameters: { type: 'object', properties: { input: { type: 'string' } } },
		},
	},
];

describe('thinking models', () => {
	it('delta-think-r1, plain: reasoning_content beside the answer; usage counts reasoning tokens within the completion', async () => {
		const r = await post('/v1/chat/completions', {
			model: 'delta-think-r1',
			messages: [{ role: 'user', content: 'Why is the sky blue?' }],
		});
		expect(r.status).toBe(200);
		const message = r.json.choices[0].message;
		expect(message).toEqual({
			role: 'assistant',
			content: expect.stringContaining('Why is the sky blue?'),
			reasoning_content: expect.stringMatching(/\S/),
		});
		const { usage } = r.json;
		expect(usage.completion_tokens_details.reasoning_tokens).toBeGreaterThan(0);
		expect(usage.completion_tokens).toBeGreaterThan(
			usage.completion_tokens_details.reasoning_tokens,
		);
		expect(usage.total_tokens).toBe(usage.prompt_tokens + usage.completion_tokens);
	});

	it('delta-think-r1, streamed: every reasoning delta before the first content delta; the same texts as the plain answer; usage chunk; [DONE]', async () => {
		const messages = [{ role: 'user', content: 'Why is the sky blue?' }];
		const plain = (await post('/v1/chat/completions', { model: 'delta-think-r1', messages })).json
			.choices[0].message;
		const { events, done } = chatEvents(
			(
				await post('/v1/chat/completions', {
					model: 'delta-think-r1',
					messages,
					stream: true,
					stream_options: { include_usage: true },
				})
			).buf,
		);
		expect(done).toBe(true);
		const deltas = events.filter((e) => e.choices.length).map((e) => e.choices[0].delta as Json);
		const firstContent = deltas.findIndex((d) => typeof d.content === 'string' && d.content);
		const lastReasoning = deltas
			.map((d) => typeof d.reasoning_content === 'string' && d.reasoning_content !== '')
			.lastIndexOf(true);
		expect(lastReasoning).toBeGreaterThanOrEqual(0);
		expect(lastReasoning).toBeLessThan(firstContent);
		expect(deltas.map((d) => d.reasoning_content ?? '').join('')).toBe(plain.reasoning_content);
		expect(deltas.map((d) => d.content ?? '').join('')).toBe(plain.content);
		expect(events.at(-1)).toMatchObject({
			choices: [],
			usage: { completion_tokens_details: { reasoning_tokens: expect.any(Number) } },
		});
	});

	it('a tool-call turn must come back with its reasoning_content, the one it gave: 400 naming the message index, not charged; with it, the answer', async () => {
		const q = { role: 'user', content: 'What is 2 + 3?' };
		const a = await post('/v1/chat/completions', {
			model: 'delta-think-r1',
			messages: [q],
			tools: CALCULATOR,
		});
		const turn = a.json.choices[0].message;
		expect(turn).toMatchObject({
			content: null,
			reasoning_content: expect.stringMatching(/calculator/),
			tool_calls: [{ function: { name: 'calculator', arguments: '{"input":"2 + 3"}' } }],
		});
		const result = { role: 'tool', tool_call_id: turn.tool_calls[0].id, content: '5' };
		const { reasoning_content: _dropped, ...stripped } = turn;
		const charged = sim.ledger.length;
		const refused = await post('/v1/chat/completions', {
			model: 'delta-think-r1',
			messages: [{ role: 'system', content: 'be brief' }, q, stripped, result],
			tools: CALCULATOR,
		});
		expect(refused.status).toBe(400);
		expect(refused.json.error.message).toBe(
			'Missing reasoning_content field in the assistant message at message index 2',
		);
		expect(sim.ledger).toHaveLength(charged);
		const ok = await post('/v1/chat/completions', {
			model: 'delta-think-r1',
			messages: [q, turn, result],
			tools: CALCULATOR,
		});
		expect(ok.status).toBe(200);
		expect(ok.json.choices[0].message).toMatchObject({
			content: 'The result is 5.',
			reasoning_content: expect.any(String),
		});
		// the reasoning must be the one it gave with those tool calls: another text (an empty one too) is refused
		const altered = await post('/v1/chat/completions', {
			model: 'delta-think-r1',
			messages: [
				q,
				{ ...turn, reasoning_content: '' },
				result,
				{ role: 'assistant', content: 'The result is 5.' },
				{ role: 'user', content: 'thanks' },
			],
		});
		expect(altered.status).toBe(400);
		expect(altered.json.error.message).toBe(
			'The reasoning_content of the assistant message at message index 1 is not the reasoning given with its tool calls',
		);
		// a turn without tool calls needs none
		expect(
			(
				await post('/v1/chat/completions', {
					model: 'delta-think-r1',
					messages: [
						q,
						{ role: 'assistant', content: 'Five.' },
						{ role: 'user', content: 'thanks' },
					],
				})
			).status,
		).toBe(200);
	});

	it('beta-think-2.5 names the field `reasoning` (plain, streamed, and the one it wants back)', async () => {
		const q = { role: 'user', content: 'What is 2 + 3?' };
		const plain = (
			await post('/v1/chat/completions', {
				model: 'beta-think-2.5',
				messages: [q],
				tools: CALCULATOR,
			})
		).json.choices[0].message;
		expect(plain.reasoning).toEqual(expect.any(String));
		expect(plain.reasoning_content).toBeUndefined();
		const { events } = chatEvents(
			(
				await post('/v1/chat/completions', {
					model: 'beta-think-2.5',
					messages: [{ role: 'user', content: 'hi' }],
					stream: true,
				})
			).buf,
		);
		expect(
			events.some(
				(e) => typeof e.choices[0]?.delta?.reasoning === 'string' && e.choices[0].delta.reasoning,
			),
		).toBe(true);
		expect(events.some((e) => 'reasoning_content' in (e.choices[0]?.delta ?? {}))).toBe(false);
		const result = { role: 'tool', tool_call_id: plain.tool_calls[0].id, content: '5' };
		const { reasoning, ...rest } = plain;
		const wrongName = await post('/v1/chat/completions', {
			model: 'beta-think-2.5',
			messages: [q, { ...rest, reasoning_content: reasoning }, result],
			tools: CALCULATOR,
		});
		expect([wrongName.status, wrongName.json.error.message]).toEqual([
			400,
			'Missing reasoning field in the assistant message at message index 1',
		]);
		expect(
			(
				await post('/v1/chat/completions', {
					model: 'beta-think-2.5',
					messages: [q, plain, result],
					tools: CALCULATOR,
				})
			).json.choices[0].message.content,
		).toBe('The result is 5.');
	});

	it('responses: a reasoning output item with a summary_text, and its streamed events before the message', async () => {
		const plain = await post('/v1/responses', {
			model: 'delta-think-r1',
			input: 'Why is the sky blue?',
		});
		expect(plain.json.output.map((o: Json) => o.type)).toEqual(['reasoning', 'message']);
		expect(plain.json.output[0].summary).toEqual([
			{ type: 'summary_text', text: expect.stringMatching(/\S/) },
		]);
		expect(plain.json.usage.output_tokens_details.reasoning_tokens).toBeGreaterThan(0);
		const events = responsesEvents(
			(
				await post('/v1/responses', {
					model: 'delta-think-r1',
					input: 'Why is the sky blue?',
					stream: true,
				})
			).buf,
		);
		const names = events.map(([n]) => n);
		expect(names.slice(0, 4)).toEqual([
			'response.created',
			'response.output_item.added',
			'response.reasoning_summary_part.added',
			'response.reasoning_summary_text.delta',
		]);
		const summary = events
			.filter(([n]) => n === 'response.reasoning_summary_text.delta')
			.map(([, d]) => d.delta)
			.join('');
		expect(summary).toBe(plain.json.output[0].summary[0].text);
		expect(events.find(([n]) => n === 'response.reasoning_summary_text.done')![1].text).toBe(
			summary,
		);
		expect(names.indexOf('response.reasoning_summary_part.done')).toBeLessThan(
			names.indexOf('response.output_text.delta'),
		);
		expect(
			events.find(([n, d]) => n === 'response.output_item.done' && d.item.type === 'reasoning')![1]
				.item.summary[0].text,
		).toBe(summary);
		expect(names.at(-1)).toBe('response.completed');
	});
});

describe('the vision model', () => {
	let server: Server;
	let origin: string;
	const served = new Map<string, { type: string; body: Buffer }>();
	beforeAll(async () => {
		server = createServer((req, res) => {
			const file = served.get(req.url ?? '');
			if (!file) return void res.writeHead(404).end();
			res
				.writeHead(200, { 'content-type': file.type, 'content-length': file.body.length })
				.end(file.body);
		});
		await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
		origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	});
	afterAll(() => new Promise((r) => (server.closeAllConnections(), server.close(r))));

	const image = (format: 'png' | 'jpeg' | 'webp' | 'gif', width: number, height: number) =>
		sharp({ create: { width, height, channels: 3, background: { r: 200, g: 80, b: 20 } } })
			.toFormat(format)
			.toBuffer();
	const dataUrl = (buf: Buffer, mime: string) => `data:${mime};base64,${buf.toString('base64')}`;
	/** the oracle: a full decode of the file (sharp) for its pixels, its header (image-size) for its format; they must agree */
	const truth = async (buf: Buffer) => {
		const { info } = await sharp(buf).raw().toBuffer({ resolveWithObject: true });
		const header = imageSize(buf);
		expect([header.width, header.height]).toEqual([info.width, info.height]);
		return `${header.type === 'jpg' ? 'jpeg' : header.type} ${info.width}x${info.height}`;
	};
	const ask = (url: string, model = 'alpha-vision-1', extra: Json = {}) =>
		post('/v1/chat/completions', {
			model,
			messages: [
				{
					role: 'user',
					content: [
						{ type: 'text', text: 'What is this image?' },
						{ type: 'image_url', image_url: { url } },
					],
				},
			],
			...extra,
		});

	it.each([
		['png', 64, 48],
		['jpeg', 33, 17],
		['webp', 20, 30],
		['gif', 7, 5],
	] as const)('a %s Data URL (%ix%i): answers its format and pixel size', async (format, w, h) => {
		const buf = await image(format, w, h);
		const r = await ask(dataUrl(buf, `image/${format}`));
		expect(r.status).toBe(200);
		expect(r.json.choices[0].message.content).toBe(await truth(buf));
		// image tokens: 85 + 170 per 512-pixel tile (one tile here), billed in the prompt
		expect(r.json.usage.prompt_tokens_details.image_tokens).toBe(255);
	});

	it('an http address on loopback: a test server and the simulator result host; several images answered in order', async () => {
		const png = await image('png', 300, 200);
		served.set('/a.png', { type: 'image/png', body: png });
		expect((await ask(`${origin}/a.png`)).json.choices[0].message.content).toBe(await truth(png));
		const generated = await post('/v1/images/generations', {
			model: 'alpha-image-2.5',
			prompt: 'a fox',
			size: '1536x1024',
		});
		const hosted = generated.json.data[0].url as string;
		expect(hosted.startsWith(sim.resultBaseUrl)).toBe(true);
		const bytes = Buffer.from(await (await fetch(hosted)).arrayBuffer());
		const jpeg = await image('jpeg', 40, 10);
		const both = await post('/v1/chat/completions', {
			model: 'alpha-vision-1',
			messages: [
				{
					role: 'user',
					content: [
						{ type: 'image_url', image_url: { url: hosted, detail: 'low' } },
						{ type: 'image_url', image_url: { url: dataUrl(jpeg, 'image/jpeg') } },
					],
				},
			],
		});
		expect(both.json.choices[0].message.content).toBe(
			`${await truth(bytes)}; ${await truth(jpeg)}`,
		);
		expect(both.json.usage.prompt_tokens_details.image_tokens).toBe(85 + 255);
		// the result host was read without a key
		expect(sim.log.filter((l) => l.server === 'result').every((l) => !l.auth)).toBe(true);
	});

	it('responses: an input_image part, plain and streamed', async () => {
		const buf = await image('png', 64, 48);
		const input = [
			{
				role: 'user',
				content: [
					{ type: 'input_text', text: 'What is this?' },
					{ type: 'input_image', image_url: dataUrl(buf, 'image/png') },
				],
			},
		];
		const plain = await post('/v1/responses', { model: 'alpha-vision-1', input });
		expect(plain.json.output[0].content[0].text).toBe('png 64x48');
		const events = responsesEvents(
			(await post('/v1/responses', { model: 'alpha-vision-1', input, stream: true })).buf,
		);
		expect(
			events
				.filter(([n]) => n === 'response.output_text.delta')
				.map(([, d]) => d.delta)
				.join(''),
		).toBe('png 64x48');
	});

	it('refusals: not loopback, over the 5 MiB bound (Data URL and address), undecodable, not an image format it reads; none charged', async () => {
		const cases: Array<[string, RegExp]> = [
			['https://images.example/a.png', /loopback only \(host images\.example\)/],
			[
				dataUrl(Buffer.alloc(5 * 1024 * 1024 + 1), 'image/png'),
				/is 5242881 bytes; this model accepts images of at most 5242880 bytes \(5 MiB\) each/,
			],
			[
				`${origin}/big.png`,
				/more than 5242880 bytes; this model accepts images of at most 5242880 bytes/,
			],
			[dataUrl((await image('png', 64, 48)).subarray(0, 80), 'image/png'), /could not be decoded/],
			[
				dataUrl(
					await sharp({ create: { width: 4, height: 4, channels: 3, background: 'white' } })
						.tiff()
						.toBuffer(),
					'image/tiff',
				),
				/is tiff; this model reads PNG, JPEG, WebP and GIF/,
			],
			[`${origin}/missing.png`, /answered HTTP 404/],
		];
		served.set('/big.png', { type: 'image/png', body: Buffer.alloc(6 * 1024 * 1024) });
		for (const [url, message] of cases) {
			const r = await ask(url);
			expect([r.status, r.json.error.code]).toEqual([400, 'invalid_image']);
			expect(r.json.error.message).toMatch(message);
			expect(r.json.error.message).toMatch(/messages\[0\]\.content\[1\]/);
		}
		expect(sim.ledger).toHaveLength(0);
	});

	it('a text-only model given an image part answers 400 image_input_not_supported (chat and responses); the bound is configurable', async () => {
		const buf = await image('png', 8, 8);
		const chat = await ask(dataUrl(buf, 'image/png'), 'alpha-chat-4o');
		expect([chat.status, chat.json.error.code]).toEqual([400, 'image_input_not_supported']);
		expect(chat.json.error.message).toMatch(
			/alpha-chat-4o does not accept image input \(the image part at messages\[0\]\.content\[1\]\)/,
		);
		const resp = await post('/v1/responses', {
			model: 'delta-think-r1',
			input: [
				{ role: 'user', content: [{ type: 'input_image', image_url: dataUrl(buf, 'image/png') }] },
			],
		});
		expect([resp.status, resp.json.error.code]).toEqual([400, 'image_input_not_supported']);
		sim.setPricing({ data: [{ model_name: 'alpha-vision-1', vision: { max_image_bytes: 50 } }] });
		expect(buf.length).toBeGreaterThan(50);
		expect((await ask(dataUrl(buf, 'image/png'))).json.error.message).toMatch(/at most 50 bytes/);
		expect(sim.ledger).toHaveLength(0);
	});

	it("the gateway's body cap answers 413 before anything is read or charged", async () => {
		const small = await startSimulator({ quiet: true, maxBodyBytes: 100_000 });
		try {
			const res = await fetch(`${small.baseUrl}/v1/chat/completions`, {
				method: 'POST',
				headers: { authorization: `Bearer ${small.keys.demo}`, 'content-type': 'application/json' },
				body: JSON.stringify({
					model: 'alpha-vision-1',
					messages: [
						{
							role: 'user',
							content: [
								{
									type: 'image_url',
									image_url: { url: dataUrl(Buffer.alloc(200_000), 'image/png') },
								},
							],
						},
					],
				}),
			});
			expect(res.status).toBe(413);
			expect(((await res.json()) as Json).error).toMatchObject({
				code: 'request_too_large',
				message: expect.stringMatching(/at most 100000 bytes/),
			});
			expect(small.ledger).toHaveLength(0);
		} finally {
			await small.stop();
		}
	});
});

describe('schema-following answers', () => {
	const SCHEMA = {
		type: 'object',
		properties: {
			answer: { type: 'string' },
			confidence: { type: 'number', minimum: 0, maximum: 1 },
			count: { type: 'integer', minimum: 3 },
			tags: { type: 'array', items: { type: 'string' }, minItems: 2 },
			mood: { enum: ['calm', 'busy'] },
			when: { type: 'string', format: 'date-time' },
			note: { type: ['string', 'null'] },
			source: { $ref: '#/$defs/source' },
			extra: { type: 'string' },
		},
		required: ['answer', 'confidence', 'count', 'tags', 'mood', 'when', 'note', 'source'],
		additionalProperties: false,
		$defs: {
			source: {
				type: 'object',
				properties: {
					url: { type: 'string', format: 'uri' },
					kind: { anyOf: [{ type: 'string', enum: ['web'] }, { type: 'null' }] },
				},
				required: ['url', 'kind'],
			},
		},
	};
	/** the same schema in zod: the oracle */
	const ORACLE = z
		.object({
			answer: z.string(),
			confidence: z.number().min(0).max(1),
			count: z.number().int().min(3),
			tags: z.array(z.string()).min(2),
			mood: z.enum(['calm', 'busy']),
			when: z.string().datetime(),
			note: z.string().nullable(),
			source: z.object({ url: z.string().url(), kind: z.enum(['web']).nullable() }).strict(),
			extra: z.string().optional(),
		})
		.strict();
	const format = {
		type: 'json_schema',
		json_schema: { name: 'report', schema: SCHEMA, strict: true },
	};
	const user = (text: string) => ({ role: 'user', content: text });

	it('chat, plain and streamed: JSON that validates, the answer in its first string', async () => {
		const plain = await post('/v1/chat/completions', {
			model: 'alpha-chat-4o',
			response_format: format,
			messages: [user('Summarise the day')],
		});
		const value = JSON.parse(plain.json.choices[0].message.content);
		expect(ORACLE.safeParse(value).success).toBe(true);
		expect(value.answer).toMatch(/Summarise the day/);
		const { events, done } = chatEvents(
			(
				await post('/v1/chat/completions', {
					model: 'alpha-chat-4o',
					response_format: format,
					messages: [user('Summarise the day')],
					stream: true,
					stream_options: { include_usage: true },
				})
			).buf,
		);
		expect(done).toBe(true);
		expect(
			events
				.filter((e) => e.choices.length)
				.map((e) => e.choices[0].delta.content ?? '')
				.join(''),
		).toBe(plain.json.choices[0].message.content);
		expect(events.at(-1)!.usage.completion_tokens).toBeGreaterThan(0);
	});

	it('[llm:invalid-first]: the first answer lacks a required property; the repair request gets a valid one', async () => {
		const system = { role: 'system', content: 'Answer as JSON. [llm:invalid-first]' };
		const first = (
			await post('/v1/chat/completions', {
				model: 'alpha-chat-4o',
				response_format: format,
				messages: [system, user('Summarise the day')],
			})
		).json.choices[0].message;
		const bad = JSON.parse(first.content);
		expect(ORACLE.safeParse(bad).success).toBe(false);
		expect(bad).not.toHaveProperty('answer');
		const repair = [
			system,
			user('Summarise the day'),
			first,
			user('That does not match the schema: answer is missing. Answer again.'),
		];
		const second = await post('/v1/chat/completions', {
			model: 'alpha-chat-4o',
			response_format: format,
			messages: repair,
		});
		expect(ORACLE.safeParse(JSON.parse(second.json.choices[0].message.content)).success).toBe(true);
	});

	it('[llm:invalid-first=not-json]: the first answer is not JSON at all (also streamed); [llm:invalid-always] never validates', async () => {
		const system = { role: 'system', content: '[llm:invalid-first=not-json]' };
		const { events } = chatEvents(
			(
				await post('/v1/chat/completions', {
					model: 'alpha-chat-4o-mini',
					response_format: format,
					messages: [system, user('go')],
					stream: true,
				})
			).buf,
		);
		const text = events.map((e) => e.choices[0]?.delta?.content ?? '').join('');
		expect(() => JSON.parse(text)).toThrow();
		const second = await post('/v1/chat/completions', {
			model: 'alpha-chat-4o-mini',
			response_format: format,
			messages: [
				system,
				user('go'),
				{ role: 'assistant', content: text },
				user('JSON only, please'),
			],
		});
		expect(ORACLE.safeParse(JSON.parse(second.json.choices[0].message.content)).success).toBe(true);
		const always = { role: 'system', content: '[llm:invalid-always]' };
		const again = await post('/v1/chat/completions', {
			model: 'alpha-chat-4o',
			response_format: format,
			messages: [always, user('go'), { role: 'assistant', content: '{}' }, user('again')],
		});
		expect(ORACLE.safeParse(JSON.parse(again.json.choices[0].message.content)).success).toBe(false);
	});

	it('responses: text.format json_schema (plain and streamed) and json_object; the invalid first answer too', async () => {
		const textFormat = {
			format: { type: 'json_schema', name: 'report', schema: SCHEMA, strict: true },
		};
		const plain = await post('/v1/responses', {
			model: 'alpha-chat-4o',
			input: 'Summarise the day',
			text: textFormat,
		});
		expect(ORACLE.safeParse(JSON.parse(plain.json.output[0].content[0].text)).success).toBe(true);
		const events = responsesEvents(
			(
				await post('/v1/responses', {
					model: 'alpha-chat-4o',
					input: 'Summarise the day',
					text: textFormat,
					stream: true,
				})
			).buf,
		);
		expect(
			ORACLE.safeParse(JSON.parse(events.find(([n]) => n === 'response.output_text.done')![1].text))
				.success,
		).toBe(true);
		const invalid = await post('/v1/responses', {
			model: 'alpha-chat-4o',
			instructions: '[llm:invalid-first]',
			input: 'Summarise the day',
			text: textFormat,
		});
		expect(ORACLE.safeParse(JSON.parse(invalid.json.output[0].content[0].text)).success).toBe(
			false,
		);
		const object = await post('/v1/responses', {
			model: 'alpha-chat-4o',
			input: 'hi',
			text: { format: { type: 'json_object' } },
		});
		expect(JSON.parse(object.json.output[0].content[0].text)).toEqual({
			answer: expect.stringMatching(/hi/),
		});
	});

	it('json_object in chat; a tool-using turn first, then the schema answer after the tool results; bad formats are 400', async () => {
		const object = await post('/v1/chat/completions', {
			model: 'alpha-chat-4o',
			response_format: { type: 'json_object' },
			messages: [user('hi')],
		});
		expect(JSON.parse(object.json.choices[0].message.content)).toEqual({
			answer: expect.any(String),
		});
		const schema = {
			type: 'json_schema',
			json_schema: {
				name: 'result',
				schema: {
					type: 'object',
					properties: { result: { type: 'string' } },
					required: ['result'],
				},
			},
		};
		const q = user('What is 6 * 7?');
		const call1 = (
			await post('/v1/chat/completions', {
				model: 'alpha-chat-4o',
				response_format: schema,
				tools: CALCULATOR,
				messages: [q],
			})
		).json.choices[0].message;
		expect(call1.tool_calls).toHaveLength(1);
		const final = await post('/v1/chat/completions', {
			model: 'alpha-chat-4o',
			response_format: schema,
			tools: CALCULATOR,
			messages: [q, call1, { role: 'tool', tool_call_id: call1.tool_calls[0].id, content: '42' }],
		});
		expect(JSON.parse(final.json.choices[0].message.content)).toEqual({
			result: 'The result is 42.',
		});
		for (const bad of [
			{ type: 'xml' },
			{ type: 'json_schema' },
			{ type: 'json_schema', json_schema: { name: 'has space', schema: {} } },
		]) {
			const r = await post('/v1/chat/completions', {
				model: 'alpha-chat-4o',
				response_format: bad,
				messages: [user('hi')],
			});
			expect([r.status, r.json.error.type]).toEqual([400, 'invalid_request_error']);
		}
	});
});

describe('the stream faults reach the scripted models as they reach the plain answers', () => {
	it('ignore-stream (JSON with reasoning), sse-error (an error event after the reasoning), huge-index, [incomplete]; each answer charged once', async () => {
		const messages = [{ role: 'user', content: 'Why is the sky blue?' }];
		sim.fault({ route: 'POST /v1/chat/completions', kind: 'ignore-stream' });
		const ignored = await post('/v1/chat/completions', {
			model: 'delta-think-r1',
			messages,
			stream: true,
		});
		expect(String(ignored.headers['content-type'])).toMatch(/json/);
		expect(ignored.json.choices[0].message.reasoning_content).toEqual(expect.any(String));

		sim.fault({ route: 'POST /v1/chat/completions', kind: 'sse-error' });
		const failed = chatEvents(
			(await post('/v1/chat/completions', { model: 'delta-think-r1', messages, stream: true })).buf,
		);
		expect(failed.done).toBe(false);
		expect(failed.events.at(-1)).toEqual({
			error: expect.objectContaining({ code: 'stream_error' }),
		});
		expect(failed.events.some((e) => e.choices?.[0]?.delta?.reasoning_content)).toBe(true);

		sim.fault({ route: 'POST /v1/chat/completions', kind: 'huge-index' });
		const huge = chatEvents(
			(
				await post('/v1/chat/completions', {
					model: 'alpha-chat-4o',
					messages: [{ role: 'user', content: 'What is 2 + 2?' }],
					tools: CALCULATOR,
					stream: true,
				})
			).buf,
		);
		expect(huge.events[0].choices[0].delta.tool_calls[0].index).toBe(100_000_000);

		const incomplete = responsesEvents(
			(
				await post('/v1/responses', {
					model: 'beta-think-2.5',
					input: 'hi [incomplete]',
					stream: true,
				})
			).buf,
		);
		expect(incomplete.at(-1)![0]).toBe('response.incomplete');
		expect(sim.ledger.map((l) => l.kind)).toEqual(['charge', 'charge', 'charge', 'charge']);
	});
});
