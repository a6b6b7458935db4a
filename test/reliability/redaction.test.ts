/**
 * The key never comes out of the transport: servers that echo it, raw, percent-encoded, JSON-escaped or as
 * `Bearer <key>`, in a task's error, a 200 with an error object, an error answer, a stream's error event split
 * byte by byte, plain JSON where a stream was asked for, and in headers. Plus the one exported redaction, and the
 * cases of issue 31 (forms that appear only after decoding, bodies in UTF-16 and Latin-1), judged by the property
 * tests' oracle (test/property/key-oracle.ts) rather than by the redactor itself. Generated forms: test/property/
 * redaction.property.test.ts.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { text as readText } from 'node:stream/consumers';
import { NodeOperationError, type INode } from 'n8n-workflow';
import { GatewayHttpError, redact, toNodeError } from '../../nodes/shared/errors';
import { Redactor, redactSecrets, redactorFor } from '../../nodes/shared/transport/redact';
import { ChatStreamParser } from '../../nodes/shared/text/chatStream';
import { ResponsesStreamParser } from '../../nodes/shared/text/responsesStream';
import { pumpStream } from '../../nodes/shared/text/pump';
import { StreamError } from '../../nodes/shared/text/sse';
import {
	json,
	rejectionOf,
	startServer,
	transportFor,
	withoutProxyEnv,
	type TestServer,
} from '../transport/support';
import { findKey } from '../property/key-oracle';

/** A key with characters that every encoding writes differently. */
const KEY = 'sk-live/AbC+dEf=0123456789_xyz';
const FORMS: Record<string, string> = {
	raw: KEY,
	bearer: `Bearer ${KEY}`,
	percent: encodeURIComponent(KEY),
	'percent, lower-case hex': encodeURIComponent(KEY).replace(/%[0-9A-F]{2}/g, (m) =>
		m.toLowerCase(),
	),
	'percent, every character': [...Buffer.from(KEY)]
		.map((b) => `%${b.toString(16).toUpperCase()}`)
		.join(''),
	'JSON-escaped slash': KEY.replace(/\//g, '\\/'),
	'JSON \\u escapes': [...KEY]
		.map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
		.join(''),
};
/** Every form as it appears inside a JSON string of the answer's text. */
const IN_JSON: Record<string, string> = {
	...FORMS,
	'JSON inside a JSON string': JSON.stringify(
		JSON.stringify({ authorization: `Bearer ${KEY}` }),
	).slice(1, -1),
};

/** What each form becomes, as a parsed JSON string value. */
const REDACTED_VALUE = (form: string) =>
	form === 'bearer'
		? 'Bearer ***'
		: form === 'JSON inside a JSON string'
			? '{"authorization":"Bearer ***"}'
			: '***';
const leaks = (s: string) =>
	new Redactor([KEY]).contains(s) || s.includes(KEY) || s.includes(encodeURIComponent(KEY));

let gw: TestServer;
beforeAll(async () => {
	withoutProxyEnv();
	gw = await startServer();
});
afterAll(() => gw.close());
const t = (extra: Parameters<typeof transportFor>[1] = {}) =>
	transportFor(gw.origin, { apiKey: KEY, ...extra });

/** The answer's raw text, with `form` written inside a JSON string. */
const taskWith = (form: string) =>
	`{"task_id":"t1","status":"failed","error":{"message":"upstream refused key ${form} (request id: 9)"},"poll_url":"https://x.example/v1/tasks/t1?key=${form}","echo":{"authorization":"${form}"}}`;

describe('JSON answers', () => {
	it.each(Object.keys(IN_JSON))(
		'a task query whose error and fields echo the key (%s): nothing of it comes out',
		async (form) => {
			gw.reset((_req, res) => json(res, 200, taskWith(IN_JSON[form])));
			const r = await t().getJson<Record<string, unknown>>('/v1/images/tasks/t1');
			const out = JSON.stringify(r.body);
			expect(leaks(out)).toBe(false);
			expect((r.body.error as Record<string, string>).message).toBe(
				`upstream refused key ${REDACTED_VALUE(form)} (request id: 9)`,
			);
		},
	);

	it.each(Object.keys(IN_JSON))(
		'a 200 to a paid POST carrying an error object with the key (%s)',
		async (form) => {
			gw.reset((_req, res) =>
				json(
					res,
					200,
					`{"created":1,"data":[],"error":{"message":"bad key ${IN_JSON[form]}","type":"x"}}`,
				),
			);
			const out = await t().submit('/v1/images/generations', { json: {} });
			expect(out.kind).toBe('accepted');
			expect(leaks(JSON.stringify(out))).toBe(false);
		},
	);

	it.each(Object.keys(IN_JSON))(
		'an error answer (400, 503 uncertain, 429) with the key (%s)',
		async (form) => {
			const body = `{"error":{"message":"key ${IN_JSON[form]} is not valid for this group","code":"bad_key"}}`;
			gw.reset((_req, res) => json(res, 400, body));
			const err = await rejectionOf(t().getJson('/v1/models'));
			expect(err).toBeInstanceOf(GatewayHttpError);
			expect(leaks(String(err.message) + JSON.stringify(err))).toBe(false);
			gw.reset((_req, res) => json(res, 503, body));
			const out = await t().submit('/v1/images/generations', { json: {} });
			expect(out.kind).toBe('uncertain');
			expect(leaks(JSON.stringify(out))).toBe(false);
			gw.reset((_req, res) => json(res, 429, body));
			const e429 = await rejectionOf(t().submit('/v1/images/generations', { json: {} }));
			expect(e429).toBeInstanceOf(GatewayHttpError);
			expect(leaks(String(e429.message))).toBe(false);
		},
	);

	it('an answer that echoes the request headers (the Authorization header among them), in its body and its own headers', async () => {
		gw.reset((req: IncomingMessage, res: ServerResponse) =>
			json(
				res,
				200,
				{ received: req.headers, raw: req.rawHeaders },
				{ 'x-echo-authorization': String(req.headers.authorization) },
			),
		);
		const r = await t().getJson('/v1/models');
		expect(gw.seen[0].headers.authorization).toBe(`Bearer ${KEY}`);
		expect(leaks(JSON.stringify(r))).toBe(false);
		expect(r.headers['x-echo-authorization']).toBe('Bearer ***');
		expect((r.body as { received: Record<string, string> }).received.authorization).toBe(
			'Bearer ***',
		);
	});

	it('non-JSON text echoing the key (an HTML or plain-text error) is redacted in the error', async () => {
		gw.reset((_req, res) => {
			res.writeHead(401, { 'content-type': 'text/plain' });
			res.end(`invalid token: ${KEY}`);
		});
		const err = await rejectionOf(t().getJson('/v1/models'));
		expect(err.message).toMatch(/invalid token: \*\*\*/);
	});
});

describe('streams', () => {
	/** Writes `text` one byte per write, so the key is split at every position across chunks. */
	const byteByByte = (text: string) => async (_req: IncomingMessage, res: ServerResponse) => {
		res.writeHead(200, { 'content-type': 'text/event-stream' });
		for (const b of Buffer.from(text)) {
			res.write(Buffer.from([b]));
			await new Promise((r) => setImmediate(r));
		}
		res.end();
	};

	it.each(Object.keys(IN_JSON))(
		'a chat stream whose deltas and error event carry the key (%s), split byte by byte: the parser never sees it',
		async (form) => {
			const f = IN_JSON[form];
			const events = [
				`data: {"choices":[{"index":0,"delta":{"content":"your key is ${f}, "}}]}\n\n`,
				`event: error\ndata: {"error":{"message":"quota exceeded for ${f}"}}\n\n`,
			];
			gw.reset(byteByByte(events.join('')));
			const res = await t().postStream('/v1/chat/completions', { stream: true });
			if ('kind' in res) throw new Error('uncertain');
			const deltas: string[] = [];
			const parser = new ChatStreamParser((d) => deltas.push(d));
			const err = await rejectionOf(pumpStream(res.body, parser, { idleMs: 5000 }));
			expect(err).toBeInstanceOf(StreamError);
			expect(err.message).toBe(
				`the gateway reported an error in the answer: quota exceeded for ${REDACTED_VALUE(form)}`,
			);
			expect((err as unknown as StreamError).partialText).toBe(
				`your key is ${REDACTED_VALUE(form)}, `,
			);
			expect(leaks(deltas.join(''))).toBe(false);
		},
	);

	it('a responses stream with the key in an event split across chunks, then the completion: the text is redacted and the stream completes at once', async () => {
		const ev = (name: string, data: unknown) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
		gw.reset(
			byteByByte(
				ev('response.output_text.delta', { delta: `k=${KEY};` }) +
					ev('response.completed', {
						response: {
							status: 'completed',
							output: [{ type: 'message', content: [{ type: 'output_text', text: `k=${KEY};` }] }],
						},
					}),
			),
		);
		const res = await t().postStream('/v1/responses', { stream: true });
		if ('kind' in res) throw new Error('uncertain');
		const parser = new ResponsesStreamParser();
		await pumpStream(res.body, parser, { idleMs: 5000 });
		expect(parser.result.text).toBe('k=***;');
		expect(leaks(JSON.stringify(parser.result))).toBe(false);
	});

	it('a gateway that ignores stream: true and answers JSON with the key: the body handed out is redacted too', async () => {
		gw.reset((_req, res) =>
			json(res, 200, `{"choices":[{"message":{"content":"${FORMS['JSON-escaped slash']}"}}]}`),
		);
		const res = await t().postStream('/v1/chat/completions', { stream: true });
		if ('kind' in res) throw new Error('uncertain');
		const body = await readText(res.body);
		expect(body).toBe('{"choices":[{"message":{"content":"***"}}]}');
	});

	it('an event that ends its chunk is handed on at once (only a possible start of the key is held back)', async () => {
		let release!: () => void;
		const hold = new Promise<void>((r) => (release = r));
		gw.reset(async (_req, res) => {
			res.writeHead(200, { 'content-type': 'text/event-stream' });
			res.write('data: {"choices":[{"index":0,"delta":{"content":"a"}}]}\n\ndata: [DONE]\n\n');
			await hold;
			res.end();
		});
		const res = await t().postStream('/v1/chat/completions', { stream: true });
		if ('kind' in res) throw new Error('uncertain');
		const parser = new ChatStreamParser();
		await pumpStream(res.body, parser, { idleMs: 5000 });
		release();
		expect(parser.result.content).toBe('a');
	});
});

describe('the one redaction', () => {
	it.each(Object.keys(FORMS))('redactSecrets finds the %s form inside any text', (form) => {
		expect(redactSecrets(`before ${FORMS[form]} after`, [KEY])).toBe(
			form === 'bearer' ? 'before Bearer *** after' : 'before *** after',
		);
	});

	it('several secrets, the longest first; short or empty ones are ignored', () => {
		expect(
			redactSecrets('ab sk-abcdef sk-abcdefgh', ['sk-abcdef', 'sk-abcdefgh', '', undefined, 'ab']),
		).toBe('ab *** ***');
	});

	it('a different case is not the key (keys are case-sensitive); hex digits of percent forms are', () => {
		expect(redactSecrets(KEY.toUpperCase(), [KEY])).toBe(KEY.toUpperCase());
	});

	it('value() redacts strings and object keys anywhere in a JSON-like value and keeps it when nothing matches', () => {
		const r = new Redactor([KEY]);
		const v = { a: [1, { [KEY]: `x ${KEY}` }], b: null, c: true };
		expect(r.value(v)).toEqual({ a: [1, { '***': 'x ***' }], b: null, c: true });
		const clean = { a: [1, { b: 'c' }] };
		expect(r.value(clean)).toBe(clean);
	});

	it('the stream Transform catches the key split at every position, in every form', async () => {
		const r = new Redactor([KEY]);
		for (const [name, form] of Object.entries(FORMS)) {
			const input = Buffer.from(`<<${form}>>ü`);
			for (let cut = 1; cut < input.length; cut++) {
				const s = r.stream();
				const out = readText(s);
				s.write(input.subarray(0, cut));
				s.end(input.subarray(cut));
				expect(await out).toBe(`<<${REDACTED_VALUE(name)}>>ü`);
			}
		}
	});

	it('toNodeError redacts every form in message and description (secrets passed by the layers above)', () => {
		const node = {
			name: 'N',
			type: 't',
			typeVersion: 1,
			position: [0, 0],
			parameters: {},
		} as unknown as INode;
		const http = toNodeError(
			node,
			new GatewayHttpError(400, `bad ${FORMS.percent}`, undefined, 'GET', '/v1/x'),
			0,
			[KEY],
		);
		expect(http.message).not.toContain(FORMS.percent);
		const other = Object.assign(new Error(`failed for ${FORMS['JSON-escaped slash']}`), {
			description: `see ${KEY}`,
		});
		const e = toNodeError(node, other, 0, [KEY]);
		expect(e).toBeInstanceOf(NodeOperationError);
		expect(`${e.message} ${e.description}`).toBe('failed for *** see ***');
		expect(redact(`x ${KEY}`, [KEY])).toBe('x ***');
	});

	it('Base64 JSON of 8 and 64 MB, with escaped slashes (every form searched) or plain, is redacted to its end (the time: npm run bench -- p5)', () => {
		const r = new Redactor([KEY]);
		const escaped = (mb: number) =>
			JSON.stringify({
				data: [{ b64_json: Buffer.alloc(mb * 750_000, 7).toString('base64') }],
				url: `https:\\/\\/x/${KEY}`,
				e: KEY,
			});
		const plain = JSON.stringify({
			data: [{ b64_json: Buffer.alloc(48e6, 7).toString('base64') }],
			e: KEY,
		});
		for (const body of [escaped(8), escaped(64), plain]) {
			const out = r.text(body);
			expect(out.endsWith('"e":"***"}')).toBe(true);
			expect(out.includes(KEY)).toBe(false);
			expect(out.length).toBe(body.length - (body.split(KEY).length - 1) * (KEY.length - 3));
		}
	});
});

describe('Base64 forms of the key', () => {
	const key = 'sk-b64-KEY-9d8c7b6a5f4e';
	const r = redactorFor([key]);
	it.each(['', 'a', 'ab', 'user:', 'Bearer '])(
		'the key Base64-encoded after %j (any alignment, both alphabets) is redacted, whole or streamed in pieces',
		(before) => {
			const b64 = Buffer.from(`${before}${key}:tail`).toString('base64');
			for (const text of [b64, b64.replace(/\+/g, '-').replace(/\//g, '_')]) {
				const out = r.text(`x=${text};`);
				expect(out).toContain('***');
				expect(
					Buffer.from(out.replace(/^x=|;$/g, '').replace(/\*\*\*/g, ''), 'base64').toString(
						'latin1',
					),
				).not.toContain(key.slice(4, 16));
				const c = r.chunks();
				let streamed = '';
				for (let i = 0; i < text.length; i += 5) streamed += c.write(text.slice(i, i + 5));
				streamed += c.end();
				expect(streamed).toContain('***');
			}
		},
	);
	it('ordinary Base64 and text are left alone', () => {
		const other = Buffer.from('an ordinary payload, nothing secret in it').toString('base64');
		expect(r.text(other)).toBe(other);
		expect(r.contains(other)).toBe(false);
	});
});

describe('issue 31: forms that appear only after decoding, and bodies in the charset they declare', () => {
	const bytesAnswer =
		(status: number, contentType: string, body: Buffer) =>
		(_req: IncomingMessage, res: ServerResponse) => {
			res.writeHead(status, { 'content-type': contentType, 'content-length': body.length });
			res.end(body);
		};
	const errorJson = (message: string) => `{"error":{"message":"${message}","code":"bad_key"}}`;
	const utf16be = (s: string) => Buffer.from(s, 'utf16le').swap16();
	/** every character percent-encoded, the `%` and the digits of an escape too */
	const pct = (s: string) =>
		[...Buffer.from(s)].map((b) => `%${b.toString(16).toUpperCase()}`).join('');

	it('a 400 whose error.code holds the Base64 of the key with one character written as a JSON \\u escape: not in the error, not in its code', async () => {
		const b64 = Buffer.from(KEY).toString('base64');
		const code = `${b64.slice(0, 10)}\\u00${b64.charCodeAt(10).toString(16)}${b64.slice(11)}`;
		gw.reset((_req, res) => json(res, 400, `{"error":{"message":"refused","code":"${code}"}}`));
		const err = await rejectionOf(t().getJson('/v1/models'));
		expect(err).toBeInstanceOf(GatewayHttpError);
		expect(err.code).toBe('***');
		expect(
			findKey(JSON.stringify({ m: err.message, c: err.code, g: err.gatewayMessage }), KEY),
		).toBeUndefined();
	});

	it.each([
		['utf-16le', 'application/json; charset=utf-16le', (s: string) => Buffer.from(s, 'utf16le')],
		['utf-16be', 'application/json; charset="UTF-16BE"', utf16be],
		[
			'utf-16 with a big-endian BOM',
			'application/json; charset=utf-16',
			(s: string) => Buffer.concat([Buffer.from([0xfe, 0xff]), utf16be(s)]),
		],
		[
			'utf-16 with a little-endian BOM under a utf-8 label (the BOM decides)',
			'application/json; charset=utf-8',
			(s: string) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(s, 'utf16le')]),
		],
		[
			'iso-8859-1',
			'application/json; charset=iso-8859-1',
			(s: string) => Buffer.from(s.replace('€', 'EUR'), 'latin1'),
		],
		[
			'windows-1252',
			'application/json; charset=windows-1252',
			(s: string) => Buffer.from(s.replace('€', '\x80'), 'latin1'),
		],
	])(
		'a JSON answer in %s is decoded in its charset, then redacted and parsed',
		async (_name, contentType, encode) => {
			gw.reset(
				bytesAnswer(
					200,
					contentType,
					encode(
						`{"task_id":"t1","status":"failed","error":{"message":"key ${KEY} refused, 5 €, café"}}`,
					),
				),
			);
			const r = await t().getJson<{ error: { message: string } }>('/v1/images/tasks/t1');
			expect(r.body.error.message).toBe(
				`key *** refused, 5 ${contentType.includes('8859') ? 'EUR' : '€'}, café`,
			);
		},
	);

	it.each([
		[
			'a UTF-16LE body labelled UTF-8 (the key between NULs)',
			'application/json',
			Buffer.from(errorJson(`bad key ${KEY}`), 'utf16le'),
		],
		[
			'a UTF-8 body labelled UTF-16LE (decoded, the key would be hidden in CJK characters)',
			'application/json; charset=utf-16le',
			Buffer.from(errorJson(`bad key ${KEY}`)),
		],
		[
			'a UTF-16LE body with the key at an odd byte offset',
			'text/plain; charset=utf-16le',
			Buffer.concat([Buffer.from('x'), Buffer.from(`bad key ${KEY}`, 'utf16le'), Buffer.from('x')]),
		],
		[
			'the key percent-encoded twice',
			'application/json',
			Buffer.from(errorJson(`bad key ${encodeURIComponent(pct(KEY))}`)),
		],
		[
			'the key percent-encoded as %25%37%33 (the % and digits encoded again)',
			'application/json',
			Buffer.from(errorJson(`bad key ${pct(pct(KEY))}`)),
		],
		[
			'the key as HTML character references',
			'application/json',
			Buffer.from(errorJson(`bad key ${[...KEY].map((c) => `&#${c.charCodeAt(0)};`).join('')}`)),
		],
		[
			'the key as HTML references escaped again (&amp;#x..;)',
			'application/json',
			Buffer.from(
				errorJson(
					`bad key ${[...KEY].map((c) => `&amp;#x${c.charCodeAt(0).toString(16)};`).join('')}`,
				),
			),
		],
		[
			'the key as HTML references in a plain-text answer',
			'text/plain',
			Buffer.from(`bad key ${[...KEY].map((c) => `&#x${c.charCodeAt(0).toString(16)};`).join('')}`),
		],
	])(
		'an error answer with %s: the error has no form of the key',
		async (_name, contentType, body) => {
			gw.reset(bytesAnswer(401, contentType, body));
			const err = await rejectionOf(t().getJson('/v1/models'));
			expect(err).toBeInstanceOf(GatewayHttpError);
			const out = `${err.message} ${String(err.gatewayMessage)}`;
			// the oracle's own decoders, and the text's characters read back as the UTF-16 bytes they may have come from
			expect(findKey(out, KEY)).toBeUndefined();
			expect(findKey(Buffer.from(out, 'utf16le').toString('latin1'), KEY)).toBeUndefined();
		},
	);

	it('a stream in UTF-16LE (declared) with the key in a delta, split byte by byte: decoded, redacted, handed out as UTF-8', async () => {
		const events = `data: {"choices":[{"index":0,"delta":{"content":"your key is ${KEY}, é"}}]}\n\ndata: [DONE]\n\n`;
		gw.reset(async (_req, res) => {
			res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-16le' });
			for (const b of Buffer.from(events, 'utf16le')) {
				res.write(Buffer.from([b]));
				await new Promise((r) => setImmediate(r));
			}
			res.end();
		});
		const res = await t().postStream('/v1/chat/completions', { stream: true });
		if ('kind' in res) throw new Error('uncertain');
		expect(res.contentType).toBe('text/event-stream; charset=utf-8');
		const parser = new ChatStreamParser();
		await pumpStream(res.body, parser, { idleMs: 5000 });
		expect(parser.result.content).toBe('your key is ***, é');
	});

	it('a stream whose byte order mark says UTF-16BE under a utf-8 label, fed a byte at a time: the mark decides, the key is redacted', () => {
		const r = new Redactor([KEY]);
		const body = Buffer.concat([
			Buffer.from([0xfe, 0xff]),
			utf16be(`data: {"delta":"${KEY}"} é\n\n`),
		]);
		const c = r.chunks({ charset: 'utf-8' });
		let out = '';
		for (const b of body) out += c.write(Buffer.from([b]));
		out += c.end();
		expect(out).toBe('data: {"delta":"***"} é\n\n');
	});

	it('textStream (decoded text in pieces, as for a chat): holds back only what may still become the key, lets it go with the piece that rules it out', () => {
		const s = new Redactor([KEY]).textStream();
		const steps: Array<[string, string, number]> = [
			['Hello, world. ', 'Hello, world. ', 0],
			['your key is sk-li', 'your key is ', 5],
			['ve/AbC', '', 11],
			['+nope. ', 'sk-live/AbC+nope. ', 0],
			['and %73%6B%2', 'and ', 8],
			['D%6C', '', 12],
			['ive/AbC+dEf=0123456789_xyz!', '***!', 0],
			[' bye', ' bye', 0],
		];
		for (const [piece, out, held] of steps) {
			expect([s.write(piece), s.pending]).toEqual([out, held]);
			expect(s.pending).toBeLessThanOrEqual(s.bound);
		}
		expect(s.end()).toBe('');
	});
});
