/**
 * Error bodies in both envelopes real gateways use, codes as strings or numbers, request-id suffixes,
 * empty and HTML bodies; and the API key never appears in any error text.
 */
import { NodeApiError, NodeOperationError, type INode } from 'n8n-workflow';
import {
	GatewayHttpError,
	GatewayNetworkError,
	InputRuleError,
	SafetyError,
	adviceFor,
	extractGatewayError,
	redact,
	toNodeError,
} from '../../nodes/shared/errors';
import {
	KEY,
	json,
	rejectionOf,
	startServer,
	text,
	transportFor,
	withoutProxyEnv,
	type TestServer,
} from './support';

describe('extractGatewayError (pure)', () => {
	it('OpenAI-style envelope: message, type and string code', () => {
		expect(
			extractGatewayError(
				{
					error: {
						message: 'model not found',
						type: 'invalid_request_error',
						param: 'model',
						code: 'model_not_found',
					},
				},
				503,
			),
		).toEqual({
			message: 'model not found',
			type: 'invalid_request_error',
			code: 'model_not_found',
		});
	});

	it('task-route envelope {code, message, data:null}', () => {
		expect(
			extractGatewayError({ code: 'task_not_exist', message: 'task_not_exist', data: null }, 400),
		).toEqual({ message: 'task_not_exist', code: 'task_not_exist' });
	});

	it('numeric codes become strings in both envelopes', () => {
		expect(extractGatewayError({ error: { message: 'x', code: 429 } }, 429).code).toBe('429');
		expect(extractGatewayError({ code: 40001, message: 'bad seconds', data: null }, 400).code).toBe(
			'40001',
		);
	});

	it('error.message wins over message; an empty error.message falls back to message', () => {
		expect(
			extractGatewayError({ error: { message: 'inner' }, message: 'outer' }, 400).message,
		).toBe('inner');
		expect(
			extractGatewayError({ error: { message: '' }, message: 'outer', code: 'c' }, 400),
		).toEqual({ message: 'outer', code: 'c' });
	});

	it('error as a plain string, and fail_reason', () => {
		expect(
			extractGatewayError({ error: 'quota exhausted', code: 'insufficient_user_quota' }, 403),
		).toEqual({ message: 'quota exhausted', code: 'insufficient_user_quota' });
		expect(extractGatewayError({ fail_reason: 'content policy' }, 400).message).toBe(
			'content policy',
		);
	});

	it('keeps the " (request id: ...)" suffix', () => {
		expect(
			extractGatewayError(
				{ error: { message: 'Invalid token (request id: 20261122155301234567)' } },
				401,
			).message,
		).toBe('Invalid token (request id: 20261122155301234567)');
	});

	it('empty bodies give a status text', () => {
		expect(extractGatewayError(undefined, 429, '').message).toBe('Too many requests (empty body)');
		expect(extractGatewayError(undefined, 503, '  ').message).toBe(
			'Gateway or upstream error 503 (empty body)',
		);
		expect(extractGatewayError(undefined, 413, '').message).toBe('HTTP 413 (empty body)');
	});

	it('an HTML page is not shown as the message, and not called an empty body', () => {
		const html = '<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>';
		const m = extractGatewayError(undefined, 502, html).message;
		expect(m).not.toContain('<');
		expect(m).not.toMatch(/empty body/);
		expect(m).toMatch(/502/);
		expect(m).toMatch(/HTML/);
		expect(extractGatewayError(undefined, 404, '<!DOCTYPE html><html></html>').message).toMatch(
			/HTML/,
		);
	});

	it('plain text is used, cut to a sane length', () => {
		expect(extractGatewayError(undefined, 400, 'bad request: size').message).toBe(
			'bad request: size',
		);
		expect(extractGatewayError(undefined, 400, 'x'.repeat(1000)).message).toHaveLength(300);
	});

	it('JSON without a message falls back to the raw text, then to the status', () => {
		expect(extractGatewayError({ success: false }, 500, '{"success":false}').message).toBe(
			'{"success":false}',
		);
		expect(extractGatewayError({ error: { type: 'x' } }, 500).message).toBe(
			'Gateway or upstream error 500 (empty body)',
		);
	});
});

describe('errors over real HTTP', () => {
	let gw: TestServer;
	beforeAll(async () => {
		withoutProxyEnv();
		gw = await startServer();
	});
	afterAll(() => gw.close());

	const get = async (status: number, body: unknown, contentType = 'application/json') => {
		gw.reset((_req, res) =>
			typeof body === 'string' ? text(res, status, body, contentType) : json(res, status, body),
		);
		const err = await rejectionOf(transportFor(gw.origin).getJson('/v1/images/tasks/abc'));
		expect(err).toBeInstanceOf(GatewayHttpError);
		return err as unknown as GatewayHttpError;
	};

	it('OpenAI envelope on 404', async () => {
		const e = await get(404, {
			error: { message: 'task not found', type: 'invalid_request_error', code: 'not_found' },
		});
		expect([e.status, e.gatewayMessage, e.code, e.method, e.path]).toEqual([
			404,
			'task not found',
			'not_found',
			'GET',
			'/v1/images/tasks/abc',
		]);
		expect(e.message).toBe('GET /v1/images/tasks/abc → HTTP 404: task not found');
	});

	it('task envelope on 400', async () => {
		const e = await get(400, { code: 'task_not_exist', message: 'task_not_exist', data: null });
		expect([e.status, e.gatewayMessage, e.code]).toEqual([400, 'task_not_exist', 'task_not_exist']);
	});

	it('numeric code and request-id suffix', async () => {
		const e = await get(401, {
			error: {
				message: '无效的令牌 (request id: 2026112215530)',
				type: 'new_api_error',
				code: 401,
			},
		});
		expect(e.code).toBe('401');
		expect(e.gatewayMessage).toBe('无效的令牌 (request id: 2026112215530)');
	});

	it('empty body', async () => {
		const e = await get(403, '');
		expect(e.gatewayMessage).toBe('HTTP 403 (empty body)');
	});

	it('HTML body', async () => {
		const e = await get(404, '<html><body><h1>404 Not Found</h1></body></html>', 'text/html');
		expect(e.gatewayMessage).not.toContain('<');
		expect(e.gatewayMessage).toMatch(/HTML/);
	});

	describe('key redaction: a server that echoes the key', () => {
		const echo = `Invalid token: Bearer ${KEY} is not valid (key ${KEY})`;

		it('GET 401 → ***', async () => {
			const e = await get(401, { error: { message: echo } });
			expect(e.message).toContain('***');
			expect(e.message).not.toContain(KEY);
			expect(e.gatewayMessage).not.toContain(KEY);
		});

		it('POST 400 (thrown), 500 (uncertain reason) and 200 non-JSON (uncertain body) → ***', async () => {
			const t = transportFor(gw.origin);
			gw.reset((_req, res) => json(res, 400, { message: echo, code: 'bad', data: null }));
			const e = (await rejectionOf(
				t.submit('/v1/videos', { json: {} }),
			)) as unknown as GatewayHttpError;
			expect(e.message).not.toContain(KEY);
			expect(e.message).toContain('***');

			gw.reset((_req, res) => json(res, 500, { error: { message: echo } }));
			const u = await t.submit('/v1/videos', { json: {} });
			expect(JSON.stringify(u)).not.toContain(KEY);
			expect(u.kind === 'uncertain' && u.reason).toContain('***');

			gw.reset((_req, res) => text(res, 200, echo));
			const u2 = await t.submit('/v1/videos', { json: {} });
			expect(u2.kind).toBe('uncertain');
			expect(JSON.stringify(u2)).not.toContain(KEY);
		});

		it('postStream 500 and a download 403 → ***', async () => {
			const t = transportFor(gw.origin);
			gw.reset((_req, res) => json(res, 500, { error: { message: echo } }));
			expect(JSON.stringify(await t.postStream('/v1/chat/completions', {}))).not.toContain(KEY);
			gw.reset((_req, res) => json(res, 403, { error: { message: echo } }));
			const e = await rejectionOf(t.download('/v1/videos/v/content', { withKey: true }));
			expect(e.message).not.toContain(KEY);
		});

		it('transport.redact and redact() replace every occurrence; short secrets are left alone', () => {
			expect(transportFor(gw.origin).redact(`a ${KEY} b ${KEY}`)).toBe('a *** b ***');
			expect(redact('abc abc', ['abc'])).toBe('abc abc');
			expect(redact('x sk-1234 y', [undefined, 'sk-1234'])).toBe('x *** y');
		});
	});
});

describe('toNodeError and adviceFor', () => {
	const node = {
		id: '1',
		name: 'GenGateway Test',
		type: 'n8n-nodes-gen-gateway.genGatewayImageSubmit',
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
	} as INode;

	it('GatewayHttpError → NodeApiError with status, code, advice and item index; the key is redacted', () => {
		const err = toNodeError(
			node,
			new GatewayHttpError(
				403,
				`no access for ${KEY}`,
				'insufficient_user_quota',
				'POST',
				'/v1/images/generations/async',
			),
			2,
			[KEY],
		);
		expect(err).toBeInstanceOf(NodeApiError);
		expect(err.message).toBe('no access for *** [HTTP 403 insufficient_user_quota]');
		expect(err.description).toMatch(/Balance or token quota/);
		expect(err.description).toContain('POST /v1/images/generations/async');
		expect((err as NodeApiError).httpCode).toBe('403');
		expect(JSON.stringify(err)).not.toContain(KEY);
	});

	it('InputRuleError → NodeOperationError listing every violation', () => {
		const err = toNodeError(
			node,
			new InputRuleError([
				{ field: 'size', rule: 'must be WxH' },
				{ field: 'n', rule: 'must be 1' },
			]),
			0,
		);
		expect(err).toBeInstanceOf(NodeOperationError);
		expect(err.message).toBe('2 problems: size: must be WxH; n: must be 1');
		expect(err.description).toContain('Nothing was sent');
	});

	it('other errors keep their message, redacted', () => {
		expect(
			toNodeError(node, new GatewayNetworkError(`reset ${KEY}`, 'ECONNRESET', true), 0, [KEY])
				.message,
		).toBe('reset ***');
		expect(toNodeError(node, new SafetyError('Refusing'), 0).message).toBe('Refusing');
	});

	it.each([
		[400, undefined, /do not loop/],
		[401, undefined, /missing, invalid or expired/],
		[403, undefined, /GET \/v1\/models/],
		[404, undefined, /about 2 hours/],
		[413, undefined, /Base64/],
		[429, undefined, /never resent/],
		[502, undefined, /with a task ID keep querying/],
		[302, undefined, /never follow redirects/],
		[503, 'model_not_found', /No channel serves this model/],
		[400, 'model_price_error', /no price/],
		[400, 'task_not_exist', /original key/],
	])('adviceFor(%i, %s)', (status, code, re) => {
		expect(adviceFor(status, code)).toMatch(re);
	});
});
