/**
 * A paid POST is sent exactly once, always. Its outcome is accepted, rejected (thrown) or uncertain
 * (returned: the caller must not resend). Every test counts the requests the server received.
 */
import { text as readText } from 'node:stream/consumers';
import type { ServerResponse } from 'node:http';
import { GatewayHttpError, GatewayNetworkError } from '../../nodes/shared/errors';
import type { SubmitOutcome } from '../../nodes/shared/transport';
import {
	closedPort,
	json,
	rejectionOf,
	reset,
	startServer,
	text,
	transportFor,
	withoutProxyEnv,
	type Handler,
	type TestServer,
} from './support';

let gw: TestServer;
beforeAll(async () => {
	withoutProxyEnv();
	gw = await startServer();
});
afterAll(() => gw.close());
beforeEach(() => gw.reset());

const PATH = '/v1/images/generations/async';
const BODY = { model: 'alpha-image-2.5', prompt: 'a red bicycle', size: '1024x1024', n: 1 };
const TASK = {
	id: 'task_AbC-123',
	task_id: 'task_AbC-123',
	object: 'image.generation.task',
	status: 'processing',
	state: 'queued',
	poll_path: '/v1/images/tasks/task_AbC-123',
	poll_after_ms: 3000,
};

const answer =
	(fn: (res: ServerResponse) => void): Handler =>
	(_req, res) =>
		fn(res);
const submit = (opts: Parameters<typeof transportFor>[1] = {}) =>
	transportFor(gw.origin, opts).submit(PATH, { json: BODY });
const uncertain = (out: SubmitOutcome) => {
	expect(out.kind).toBe('uncertain');
	return out as Extract<SubmitOutcome, { kind: 'uncertain' }>;
};
afterEach(() => {
	// whatever happened, the paid POST reached the server at most once
	expect(gw.seen.filter((s) => s.method === 'POST').length).toBeLessThanOrEqual(1);
});

describe('accepted', () => {
	it.each([202, 200, 201])('HTTP %i with a task object', async (code) => {
		gw.reset(answer((res) => json(res, code, TASK)));
		const out = await submit();
		expect(out).toMatchObject({ kind: 'accepted', status: code, body: TASK });
		expect(gw.seen).toHaveLength(1);
		expect(JSON.parse(gw.seen[0].body)).toEqual(BODY);
	});

	it('5xx WITH a task ID is accepted: the task exists and must be queried, not resubmitted', async () => {
		gw.reset(
			answer((res) => json(res, 503, { task_id: 'task_5xx', error: { message: 'upstream busy' } })),
		);
		const out = await submit();
		expect(out).toMatchObject({ kind: 'accepted', status: 503 });
		expect(gw.seen).toHaveLength(1);
	});

	it('5xx with the task ID under data.task_id (gamma shape) is accepted', async () => {
		gw.reset(
			answer((res) =>
				json(res, 500, { code: 'error', message: 'query failed', data: { task_id: 'gamma_77' } }),
			),
		);
		expect((await submit()).kind).toBe('accepted');
		expect(gw.seen).toHaveLength(1);
	});
});

describe('rejected: thrown as GatewayHttpError with the status and the gateway message', () => {
	it.each([
		[
			400,
			{
				error: {
					message: "Unknown parameter: 'response_format'",
					type: 'invalid_request_error',
					code: 'unknown_parameter',
				},
			},
			"Unknown parameter: 'response_format'",
		],
		[
			401,
			{ error: { message: 'Invalid token (request id: 2026112215)', type: 'new_api_error' } },
			'Invalid token (request id: 2026112215)',
		],
		[
			403,
			{ error: { message: 'user quota is not enough', code: 'insufficient_user_quota' } },
			'user quota is not enough',
		],
		[413, '', 'HTTP 413 (empty body)'],
		[429, '', 'Too many requests (empty body)'],
		[429, { error: { message: 'concurrency limit', code: 429 } }, 'concurrency limit'],
	])('%i', async (code, body, message) => {
		gw.reset(
			answer((res) => (typeof body === 'string' ? text(res, code, body) : json(res, code, body))),
		);
		const err = await rejectionOf(submit());
		expect(err).toBeInstanceOf(GatewayHttpError);
		const e = err as unknown as GatewayHttpError;
		expect(e.status).toBe(code);
		expect(e.gatewayMessage).toBe(message);
		expect(e.method).toBe('POST');
		expect(e.path).toBe(PATH);
		expect(gw.seen).toHaveLength(1);
	});

	it('a 429 with Retry-After is still not resent; the wait is reported', async () => {
		gw.reset(
			answer((res) => json(res, 429, { error: { message: 'slow' } }, { 'retry-after': '1' })),
		);
		const err = (await rejectionOf(submit())) as unknown as GatewayHttpError;
		expect(err.retryAfterMs).toBe(1000);
		expect(gw.seen).toHaveLength(1);
	});
});

describe('uncertain: returned, never thrown, never resent', () => {
	it('connection reset after the request was received', async () => {
		gw.reset((req) => reset(req));
		const out = uncertain(await submit());
		expect(out.reason).toMatch(/may have accepted/);
		expect(gw.seen).toHaveLength(1);
	});

	it('a server that never answers: cut at the submit timeout', async () => {
		gw.reset(() => undefined);
		const out = uncertain(await submit({ timeouts: { submit: 300 } }));
		expect(out.reason).toMatch(/timed out/);
		expect(gw.seen).toHaveLength(1);
	});

	it('the answer stops in the middle of the body', async () => {
		gw.reset((req, res) => {
			res.writeHead(202, { 'content-type': 'application/json', 'content-length': 500 });
			// cut once the first bytes are on their way
			res.write('{"task_id":"task_', () => req.socket.destroy());
		});
		const out = uncertain(await submit());
		expect(out.status).toBe(202);
		expect(out.reason).toMatch(/while reading the answer/);
		expect(gw.seen).toHaveLength(1);
	});

	it.each([500, 502, 503, 504])('%i without a task ID', async (code) => {
		gw.reset(answer((res) => json(res, code, { error: { message: 'upstream error' } })));
		const out = uncertain(await submit());
		expect(out.status).toBe(code);
		expect(out.reason).toContain(`HTTP ${code}`);
		expect(out.reason).toContain('upstream error');
		expect(gw.seen).toHaveLength(1);
	});

	it('502 with an HTML page', async () => {
		gw.reset(
			answer((res) =>
				text(res, 502, '<html><body><h1>502 Bad Gateway</h1></body></html>', 'text/html'),
			),
		);
		const out = uncertain(await submit());
		expect(out.reason).toContain('HTTP 502');
		expect(out.reason).not.toContain('<html>');
		expect(gw.seen).toHaveLength(1);
	});

	it.each([
		[200, 'OK', 'text/plain'],
		[202, '', 'application/json'],
		[200, '<!doctype html><html></html>', 'text/html'],
		[200, '{"task_id": "trunc', 'application/json'],
	])('HTTP %i with a body that is not a JSON object (%j)', async (code, body, type) => {
		gw.reset(answer((res) => text(res, code, body, type)));
		const out = uncertain(await submit());
		expect(out.status).toBe(code);
		expect(out.reason).toMatch(/unreadable body/);
		expect(gw.seen).toHaveLength(1);
	});

	it('3xx', async () => {
		gw.reset(
			answer((res) => {
				res.writeHead(302, { location: '/login', 'content-length': 0 });
				res.end();
			}),
		);
		const out = uncertain(await submit());
		expect(out.status).toBe(302);
		expect(out.reason).toMatch(/redirect/);
		expect(gw.seen).toHaveLength(1);
	});
});

describe('provably not delivered', () => {
	it('ECONNREFUSED throws GatewayNetworkError with maybeDelivered=false', async () => {
		const port = await closedPort();
		const err = await rejectionOf(
			transportFor(`http://127.0.0.1:${port}`).submit(PATH, { json: BODY }),
		);
		expect(err).toBeInstanceOf(GatewayNetworkError);
		const e = err as unknown as GatewayNetworkError;
		expect(e.code).toBe('ECONNREFUSED');
		expect(e.maybeDelivered).toBe(false);
		expect(e.cancelled).toBe(false);
	});

	it('an unresolvable host throws with maybeDelivered=false', async () => {
		const err = await rejectionOf(
			transportFor('http://gateway.invalid').submit(PATH, { json: BODY }),
		);
		expect(err).toBeInstanceOf(GatewayNetworkError);
		expect((err as unknown as GatewayNetworkError).maybeDelivered).toBe(false);
	});
});

describe('postStream follows the same outcome rules', () => {
	it('200 event stream: the body is handed over as a stream; sent once', async () => {
		gw.reset(
			answer((res) => {
				res.writeHead(200, { 'content-type': 'text/event-stream' });
				res.write('data: {"choices":[{"delta":{"content":"Hi"}}]}\n\n');
				res.end('data: [DONE]\n\n');
			}),
		);
		const out = await transportFor(gw.origin).postStream('/v1/chat/completions', {
			model: 'm',
			messages: [],
			stream: true,
		});
		expect('kind' in out).toBe(false);
		if ('kind' in out) return;
		expect(out.contentType).toBe('text/event-stream');
		expect(await readText(out.body)).toContain('[DONE]');
		expect(gw.seen).toHaveLength(1);
		expect(gw.seen[0].headers.accept).toContain('text/event-stream');
	});

	it('400 is thrown; 500 and a reset are uncertain; each sent once', async () => {
		const t = transportFor(gw.origin);
		gw.reset(answer((res) => json(res, 400, { error: { message: 'bad model' } })));
		expect(
			((await rejectionOf(t.postStream('/v1/responses', {}))) as unknown as GatewayHttpError)
				.status,
		).toBe(400);
		expect(gw.seen).toHaveLength(1);
		gw.reset(answer((res) => json(res, 500, { error: { message: 'boom' } })));
		expect(await t.postStream('/v1/responses', {})).toMatchObject({
			kind: 'uncertain',
			status: 500,
		});
		expect(gw.seen).toHaveLength(1);
		gw.reset((req) => reset(req));
		expect(await t.postStream('/v1/responses', {})).toMatchObject({ kind: 'uncertain' });
		expect(gw.seen).toHaveLength(1);
	});

	it('ECONNREFUSED is thrown as not delivered', async () => {
		const port = await closedPort();
		const err = (await rejectionOf(
			transportFor(`http://127.0.0.1:${port}`).postStream('/v1/responses', {}),
		)) as unknown as GatewayNetworkError;
		expect(err.maybeDelivered).toBe(false);
	});
});
