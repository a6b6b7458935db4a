/**
 * GETs are retried on 429, 5xx and network failures, with back-off and Retry-After, inside a deadline;
 * every other status ends the call at once.
 */
import type { ServerResponse } from 'node:http';
import { GatewayHttpError, GatewayNetworkError } from '../../nodes/shared/errors';
import {
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
import { atRealTime, TEST_TIME_SCALE } from '../time-scale';

let gw: TestServer;
beforeAll(async () => {
	withoutProxyEnv();
	gw = await startServer();
});
afterAll(() => gw.close());
beforeEach(() => gw.reset());

/** Answers request n with script[n] (the last entry repeats). */
const script =
	(
		...steps: Array<(res: ServerResponse, req: import('node:http').IncomingMessage) => void>
	): Handler =>
	(req, res, _s, i) =>
		steps[Math.min(i, steps.length - 1)](res, req);
const okModels = (res: ServerResponse) =>
	json(res, 200, { object: 'list', data: [{ id: 'alpha-image-2.5' }] });
const status =
	(
		code: number,
		body: unknown = { error: { message: `status ${code}` } },
		headers: Record<string, string> = {},
	) =>
	(res: ServerResponse) =>
		typeof body === 'string'
			? text(res, code, body, 'text/plain', headers)
			: json(res, code, body, headers);
const gaps = () => gw.seen.slice(1).map((s, i) => s.at - gw.seen[i].at);

describe('429', () => {
	// the one real-time test of "a GET waits out the Retry-After the gateway asked for"
	it(
		'honours Retry-After in seconds (real time)',
		atRealTime(async () => {
			gw.reset(
				script(status(429, { error: { message: 'slow down' } }, { 'retry-after': '1' }), okModels),
			);
			const res = await transportFor(gw.origin).getJson<{ data: unknown[] }>('/v1/models');
			expect(res.body.data).toHaveLength(1);
			expect(gw.seen).toHaveLength(2);
			expect(gaps()[0]).toBeGreaterThanOrEqual(950);
		}),
	);

	it('honours Retry-After as an HTTP date', async () => {
		gw.reset(
			script(
				(res) => status(429, '', { 'retry-after': new Date(Date.now() + 2000).toUTCString() })(res),
				okModels,
			),
		);
		await transportFor(gw.origin).getJson('/v1/models');
		expect(gw.seen).toHaveLength(2);
		// the date has whole seconds, so the wait is between 1 and 2 s (on the test clock)
		expect(gaps()[0]).toBeGreaterThanOrEqual(900 * TEST_TIME_SCALE);
	});

	// the one real-time test of "a GET backs off exponentially with jitter"
	it(
		'an empty 429 without Retry-After backs off by itself and then succeeds (real time)',
		atRealTime(async () => {
			gw.reset(script(status(429, ''), status(429, ''), okModels));
			const res = await transportFor(gw.origin, {
				retry: { baseDelayMs: 200, maxDelayMs: 400 },
			}).getJson('/v1/models');
			expect(res.status).toBe(200);
			expect(gw.seen).toHaveLength(3);
			// full jitter never goes below half of the exponential step (200 ms, then 400 ms)
			expect(gaps()[0]).toBeGreaterThanOrEqual(90);
			expect(gaps()[1]).toBeGreaterThanOrEqual(190);
		}),
	);

	it('keeps the 429 (status, message, Retry-After) when the attempts run out', async () => {
		gw.reset(script(status(429, { error: { message: 'rate limited', code: 'rate_limit' } })));
		const err = await rejectionOf(
			transportFor(gw.origin, { retry: { maxAttempts: 3 } }).getJson('/v1/models'),
		);
		expect(err).toBeInstanceOf(GatewayHttpError);
		expect((err as unknown as GatewayHttpError).status).toBe(429);
		expect((err as unknown as GatewayHttpError).gatewayMessage).toBe('rate limited');
		expect(gw.seen).toHaveLength(3);
	});

	it('the cap for a server-requested wait is configurable', async () => {
		gw.reset(script(status(429, '', { 'retry-after': '1' }), okModels));
		const err = await rejectionOf(
			transportFor(gw.origin, { retry: { maxRetryAfterMs: 500 } }).getJson('/v1/models'),
		);
		expect((err as unknown as GatewayHttpError).retryAfterMs).toBe(1000);
		expect(gw.seen).toHaveLength(1);
	});

	it('with a deadline, a long Retry-After that fits inside it is honoured', async () => {
		gw.reset(script(status(429, '', { 'retry-after': '1' }), okModels));
		await transportFor(gw.origin, { retry: { maxRetryAfterMs: 500 } }).getJson('/v1/models', {
			deadline: Date.now() + 10_000,
		});
		expect(gw.seen).toHaveLength(2);
	});

	it('a Retry-After too long to wait for ends the retries at once, keeping retryAfterMs', async () => {
		gw.reset(script(status(429, '', { 'retry-after': '3600' }), okModels));
		const err = await rejectionOf(transportFor(gw.origin).getJson('/v1/models'));
		expect(err).toBeInstanceOf(GatewayHttpError);
		expect((err as unknown as GatewayHttpError).retryAfterMs).toBe(3_600_000);
		expect(gw.seen).toHaveLength(1);
	});
});

describe('5xx and network failures', () => {
	it('a burst of 500/502/503/504 then success', async () => {
		gw.reset(
			script(
				status(500),
				status(502, '<html>bad gateway</html>'),
				status(503, ''),
				status(504),
				okModels,
			),
		);
		const res = await transportFor(gw.origin).getJson('/v1/models');
		expect(res.status).toBe(200);
		expect(gw.seen).toHaveLength(5);
	});

	it('503 with Retry-After is honoured as well', async () => {
		gw.reset(
			script(
				status(
					503,
					{ error: { message: 'model_not_found', code: 'model_not_found' } },
					{ 'retry-after': '1' },
				),
				okModels,
			),
		);
		await transportFor(gw.origin).getJson('/v1/models');
		expect(gw.seen).toHaveLength(2);
		expect(gaps()[0]).toBeGreaterThanOrEqual(950 * TEST_TIME_SCALE);
	});

	it('a connection reset then success', async () => {
		gw.reset((req, res, _s, i) => (i === 0 ? reset(req) : okModels(res)));
		const res = await transportFor(gw.origin).getJson('/v1/models');
		expect(res.status).toBe(200);
		expect(gw.seen).toHaveLength(2);
	});

	it('a reset in the middle of the body then success', async () => {
		gw.reset((req, res, _s, i) => {
			if (i > 0) return okModels(res);
			res.writeHead(200, { 'content-type': 'application/json', 'content-length': 1000 });
			// cut once the first bytes are on their way
			res.write('{"object":"list","data":[', () => req.socket.destroy());
		});
		const res = await transportFor(gw.origin).getJson('/v1/models');
		expect(res.status).toBe(200);
		expect(gw.seen).toHaveLength(2);
	});

	it('a 2xx that is not JSON (an HTML portal page) is retried, then reported', async () => {
		gw.reset(script(status(200, '<!doctype html><html>login</html>')));
		const err = await rejectionOf(
			transportFor(gw.origin, { retry: { maxAttempts: 2 } }).getJson('/v1/models'),
		);
		expect(err).toBeInstanceOf(GatewayNetworkError);
		expect(err.message).toMatch(/not valid JSON \(HTML\)/);
		expect(gw.seen).toHaveLength(2);
	});

	it('a refused connection is retried and ends as a network error that was never delivered', async () => {
		const { closedPort } = await import('./support');
		const port = await closedPort();
		const attempts: number[] = [];
		const err = await rejectionOf(
			transportFor(`http://127.0.0.1:${port}`, {
				retry: { maxAttempts: 3 },
				onAttempt: (a) => attempts.push(a.attempt),
			}).getJson('/v1/models'),
		);
		expect(err).toBeInstanceOf(GatewayNetworkError);
		expect((err as unknown as GatewayNetworkError).code).toBe('ECONNREFUSED');
		expect((err as unknown as GatewayNetworkError).maybeDelivered).toBe(false);
		expect(attempts).toEqual([1, 2, 3]);
	});
});

describe('statuses that are not retried', () => {
	it.each([400, 401, 403, 404, 405, 409, 413, 422])(
		'%i ends the call after one request',
		async (code) => {
			gw.reset(script(status(code, { error: { message: `no (${code})` } })));
			const err = await rejectionOf(transportFor(gw.origin).getJson('/v1/images/tasks/abc'));
			expect(err).toBeInstanceOf(GatewayHttpError);
			expect((err as unknown as GatewayHttpError).status).toBe(code);
			expect((err as unknown as GatewayHttpError).gatewayMessage).toBe(`no (${code})`);
			expect(gw.seen).toHaveLength(1);
		},
	);
});

describe('deadline', () => {
	// the one real-time test of "a wait that would end past the deadline is not waited"
	it(
		'stops when the server asks for a wait beyond the deadline (one request only, real time)',
		atRealTime(async () => {
			gw.reset(script(status(503, '', { 'retry-after': '3' }), okModels));
			const err = await rejectionOf(
				transportFor(gw.origin).getJson('/v1/images/tasks/abc', { deadline: Date.now() + 1500 }),
			);
			expect(err).toBeInstanceOf(GatewayHttpError);
			expect((err as unknown as GatewayHttpError).status).toBe(503);
			expect((err as unknown as GatewayHttpError).retryAfterMs).toBe(3000);
			expect(gw.seen).toHaveLength(1);
		}),
	);

	it(
		'with back-off alone: no request starts after the deadline and attempts stop early (real time)',
		atRealTime(async () => {
			gw.reset(script(status(503)));
			const deadline = Date.now() + 800;
			const err = await rejectionOf(
				transportFor(gw.origin, {
					retry: { maxAttempts: 50, baseDelayMs: 100, maxDelayMs: 400 },
				}).getJson('/v1/models', { deadline }),
			);
			expect((err as unknown as GatewayHttpError).status).toBe(503);
			expect(gw.seen.length).toBeGreaterThanOrEqual(2);
			expect(gw.seen.length).toBeLessThan(50);
			for (const s of gw.seen) expect(s.at).toBeLessThan(deadline);
		}),
	);

	/**
	 * A back-off sleep that ends past the deadline (its timer fired late: the event loop was busy, the machine
	 * loaded) must not be followed by another request. The server answers 503, then (50 ms later, when the client
	 * sleeps its back-off of 100 to 200 ms) keeps the process busy for 600 ms, so that sleep ends well past the deadline.
	 */
	const busyAfterAnswer =
		(ms: number): Handler =>
		(_req, res, _s, i) => {
			json(res, 503, { error: { message: 'busy' } });
			if (i === 0)
				setTimeout(() => {
					const end = Date.now() + ms;
					while (Date.now() < end);
				}, 50);
		};

	// the one real-time test of "the deadline is checked again after each back-off sleep", on both users of the one loop
	it(
		'a back-off sleep that ends past the deadline starts no further request (getJson and download, real time)',
		atRealTime(async () => {
			const calls = {
				getJson: (t: ReturnType<typeof transportFor>, deadline: number) =>
					t.getJson('/v1/models', { deadline }),
				download: (t: ReturnType<typeof transportFor>, deadline: number) =>
					t.download('/files/a.png', { withKey: true, deadline }),
			};
			for (const [name, call] of Object.entries(calls)) {
				gw.reset(busyAfterAnswer(600));
				const attempts: number[] = [];
				const deadline = Date.now() + 450;
				const t = transportFor(gw.origin, {
					retry: { maxAttempts: 5, baseDelayMs: 200, maxDelayMs: 200 },
					onAttempt: () => attempts.push(Date.now()),
				});
				const err = await rejectionOf(call(t, deadline));
				expect([name, (err as unknown as GatewayHttpError).status]).toEqual([name, 503]);
				expect(Date.now()).toBeGreaterThan(deadline);
				expect([name, attempts.length]).toEqual([name, 1]);
			}
		}),
	);

	it('a deadline already past still makes one attempt (with a tiny timeout) and does not retry', async () => {
		gw.reset(script(status(500)));
		const err = await rejectionOf(
			transportFor(gw.origin).getJson('/v1/models', { deadline: Date.now() - 1 }),
		);
		expect(err).toBeDefined();
		expect(gw.seen.length).toBeLessThanOrEqual(1);
	});

	it('a slow answer is cut at the per-request timeout and retried', async () => {
		gw.reset((_req, res, _s, i) => (i === 0 ? undefined : okModels(res)));
		const res = await transportFor(gw.origin, { timeouts: { query: 300 } }).getJson('/v1/models');
		expect(res.status).toBe(200);
		expect(gw.seen).toHaveLength(2);
	});
});
