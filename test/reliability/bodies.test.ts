/**
 * Hostile bodies through the transport: slow drips, stalls, endless and oversized bodies (chunked or declared),
 * huge error answers, redirects with endless bodies, bodies short of their Content-Length. Every read ends in
 * bounded time and memory.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { buffer as readBuffer } from 'node:stream/consumers';
import { BodyError } from '../../nodes/shared/transport/body';
import { GatewayHttpError } from '../../nodes/shared/errors';
import {
	rejectionOf,
	startServer,
	transportFor,
	withoutProxyEnv,
	type TestServer,
} from '../transport/support';

let host: TestServer;
beforeAll(async () => {
	withoutProxyEnv();
	host = await startServer();
});
afterAll(() => host.close());

/** Writes `piece` every `everyMs` until `total` bytes (or forever), stopping when the client goes away. */
const drip =
	(opts: {
		piece: Buffer | string;
		everyMs: number;
		total?: number;
		status?: number;
		headers?: Record<string, string | number>;
	}) =>
	(req: IncomingMessage, res: ServerResponse) => {
		res.writeHead(opts.status ?? 200, {
			'content-type': 'application/octet-stream',
			...(opts.headers ?? {}),
		});
		let sent = 0;
		const timer = setInterval(() => {
			if (opts.total !== undefined && sent >= opts.total) {
				clearInterval(timer);
				return void res.end();
			}
			res.write(opts.piece);
			sent += Buffer.byteLength(opts.piece);
		}, opts.everyMs);
		req.socket.on('close', () => clearInterval(timer));
	};

/** Streams `total` bytes of `fill` as fast as the client takes them (chunked unless a length is given), stopping when it goes away. */
const flood =
	(opts: {
		total: number;
		status?: number;
		fill?: string;
		headers?: Record<string, string | number>;
	}) =>
	(req: IncomingMessage, res: ServerResponse) => {
		res.writeHead(opts.status ?? 200, {
			'content-type': 'application/json',
			...(opts.headers ?? {}),
		});
		const chunk = Buffer.alloc(1024 * 1024, opts.fill ?? ' ');
		let sent = 0;
		let gone = false;
		req.socket.on('close', () => (gone = true));
		res.write('{"pad":"');
		const pump = () => {
			while (!gone && sent < opts.total) {
				sent += chunk.length;
				if (!res.write(chunk)) return void res.once('drain', pump);
			}
			if (!gone) res.end('"}');
		};
		pump();
	};

/** Peak RSS growth (MiB) while `fn` runs, sampled every 5 ms. */
async function rssGrowth<T>(
	fn: () => Promise<T>,
): Promise<{ value: T; growthMiB: number; ms: number }> {
	const before = process.memoryUsage.rss();
	let peak = before;
	const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 5);
	const started = Date.now();
	try {
		const value = await fn();
		return {
			value,
			growthMiB: (Math.max(peak, process.memoryUsage.rss()) - before) / 1048576,
			ms: Date.now() - started,
		};
	} finally {
		clearInterval(timer);
	}
}

describe('downloads: bounded in time', () => {
	it('a host sending 1 byte every 100 ms (per-read timers never fire) is stopped at the download deadline', async () => {
		host.reset(drip({ piece: 'x', everyMs: 100, headers: { 'content-length': 100_000 } }));
		const res = await transportFor(host.origin).download('/r/a.png', {
			withKey: false,
			maxDurationMs: 800,
			idleMs: 5000,
		});
		const err = await rejectionOf(readBuffer(res.body));
		expect(err).toBeInstanceOf(BodyError);
		expect(err).toMatchObject({ failure: 'DEADLINE' });
		// bytes, not a stopwatch: a byte per 100 ms gives at most 8 in 0.8 s (a busy machine sends fewer); the idle time would allow 50
		expect((err as unknown as BodyError).received).toBeLessThanOrEqual(10);
	});

	it('the deadline passed by the caller wins over a longer max duration', async () => {
		host.reset(drip({ piece: 'x', everyMs: 50 }));
		const res = await transportFor(host.origin).download('/r/a.png', {
			withKey: false,
			deadline: Date.now() + 400,
		});
		const err = await rejectionOf(readBuffer(res.body));
		expect(err).toMatchObject({ failure: 'DEADLINE' });
		// a byte per 50 ms: at most 8 in 0.4 s, against 2400 in the image download's default 2 minutes
		expect((err as unknown as BodyError).received).toBeLessThanOrEqual(10);
	});

	it("the default overall bound is the kind's timeout (imageDownload)", async () => {
		host.reset(drip({ piece: 'x', everyMs: 50 }));
		const res = await transportFor(host.origin, { timeouts: { imageDownload: 500 } }).download(
			'/r/a.png',
			{ withKey: false },
		);
		const err = await rejectionOf(readBuffer(res.body));
		expect(err).toMatchObject({ failure: 'DEADLINE' });
		expect((err as unknown as BodyError).received).toBeLessThanOrEqual(12);
	});

	it('a host that stalls after a few bytes fails after the idle time (a retryable network failure)', async () => {
		host.reset((_req, res) => {
			res.writeHead(200, { 'content-length': 1000 });
			res.write('abc');
		});
		const res = await transportFor(host.origin).download('/r/a.png', {
			withKey: false,
			idleMs: 300,
		});
		const err = await rejectionOf(readBuffer(res.body));
		expect(err).toMatchObject({ failure: 'IDLE', received: 3, expected: 1000 });
		expect((err as unknown as BodyError).retryable).toBe(true);
	});

	it('a redirect with an endless body is not read: the next hop is taken at once', async () => {
		host.reset((req, res) => {
			if (req.url === '/r/a.png') {
				res.writeHead(302, { location: '/r/b.png' });
				const timer = setInterval(() => res.write('x'.repeat(65536)), 1);
				return void req.socket.on('close', () => clearInterval(timer));
			}
			res.writeHead(200, { 'content-type': 'image/png', 'content-length': 3 });
			res.end('png');
		});
		const res = await transportFor(host.origin).download('/r/a.png', { withKey: false });
		expect((await readBuffer(res.body)).toString()).toBe('png');
	});
});

describe('downloads: bounded in size', () => {
	it('a declared Content-Length above the cap is refused before any body byte is read', async () => {
		host.reset((_req, res) => {
			res.writeHead(200, { 'content-length': 10 * 1024 * 1024 * 1024 });
			res.write('x');
		});
		const err = await rejectionOf(
			transportFor(host.origin).download('/v/a.mp4', { withKey: false, maxBytes: 1024 * 1024 }),
		);
		expect(err).toMatchObject({
			failure: 'TOO_LARGE',
			message: expect.stringMatching(/the file of 10240 MiB is larger than the limit of 1 MiB/),
		});
	});

	it('an endless chunked body stops at the cap', async () => {
		host.reset(flood({ total: Infinity }));
		const res = await transportFor(host.origin).download('/v/a.mp4', {
			withKey: false,
			maxBytes: 4 * 1024 * 1024,
		});
		const err = await rejectionOf(readBuffer(res.body));
		expect(err).toMatchObject({ failure: 'TOO_LARGE' });
		expect((err as unknown as BodyError).received).toBeLessThanOrEqual(
			4 * 1024 * 1024 + 1024 * 1024 + 16,
		);
	});

	it('a body that ends short of its Content-Length is a cut (retryable), never a complete file', async () => {
		host.reset((req, res) => {
			res.writeHead(200, { 'content-length': 1000 });
			// cut once the 600 bytes are on their way
			res.write('x'.repeat(600), () => req.socket.destroy());
		});
		const res = await transportFor(host.origin).download('/r/a.png', { withKey: false });
		const err = await rejectionOf(readBuffer(res.body));
		expect(err).toBeInstanceOf(BodyError);
		expect((err as unknown as BodyError).retryable).toBe(true);
		expect((err as unknown as BodyError).received).toBe(600);
	});
});

describe('JSON answers: counted while read', () => {
	it('a 200 MB chunked JSON answer fails at the cap (64 MiB) with bounded RSS growth, not retried', async () => {
		host.reset(flood({ total: 200 * 1024 * 1024 }));
		const r = await rssGrowth(() =>
			rejectionOf(transportFor(host.origin).getJson('/v1/images/tasks/t1')),
		);
		expect(r.value).toMatchObject({
			failure: 'TOO_LARGE',
			message: expect.stringMatching(/larger than the limit of 64 MiB/),
		});
		expect(host.seen).toHaveLength(1);
		expect(r.growthMiB).toBeLessThan(200);
		console.log(
			`200 MB chunked JSON: failed after ${r.ms} ms, RSS growth ${r.growthMiB.toFixed(0)} MiB`,
		);
	});

	it('with a smaller cap the growth follows the cap, not the body', async () => {
		host.reset(flood({ total: 200 * 1024 * 1024 }));
		const r = await rssGrowth(() =>
			rejectionOf(
				transportFor(host.origin, { limits: { jsonBytes: 4 * 1024 * 1024 } }).getJson(
					'/v1/images/tasks/t1',
				),
			),
		);
		expect(r.value).toMatchObject({ failure: 'TOO_LARGE' });
		expect(r.growthMiB).toBeLessThan(40);
		console.log(
			`200 MB chunked JSON, 4 MiB cap: failed after ${r.ms} ms, RSS growth ${r.growthMiB.toFixed(0)} MiB`,
		);
	});

	it('a declared Content-Length above the cap is refused unread', async () => {
		host.reset((_req, res) => {
			res.writeHead(200, {
				'content-type': 'application/json',
				'content-length': 900 * 1024 * 1024,
			});
			res.write('{');
		});
		const err = await rejectionOf(transportFor(host.origin).getJson('/v1/models'));
		expect(err).toMatchObject({
			failure: 'TOO_LARGE',
			message: expect.stringMatching(/answer of 900 MiB/),
		});
	});

	it('a 200 MB error answer (500, retried) is read only to 64 KiB per attempt: its message is its beginning', async () => {
		host.reset(flood({ total: 200 * 1024 * 1024, status: 500, fill: 'e' }));
		const r = await rssGrowth(() =>
			rejectionOf(
				transportFor(host.origin, { retry: { maxAttempts: 3 } }).getJson('/v1/images/tasks/t1'),
			),
		);
		expect(r.value).toBeInstanceOf(GatewayHttpError);
		expect(String(r.value.message)).toMatch(/HTTP 500: \{"pad":"eeee/);
		expect(host.seen).toHaveLength(3);
		expect(r.growthMiB).toBeLessThan(40);
	});

	it('a POST answered 429 with a huge body still throws GatewayHttpError with retryAfterMs', async () => {
		host.reset(flood({ total: 200 * 1024 * 1024, status: 429, headers: { 'retry-after': '2' } }));
		const err = await rejectionOf(
			transportFor(host.origin).submit('/v1/images/generations/async', { json: {} }),
		);
		expect(err).toBeInstanceOf(GatewayHttpError);
		expect(err).toMatchObject({ status: 429, retryAfterMs: 2000 });
	});

	it('a 2xx POST answer past the cap is an uncertain outcome (it was accepted, its answer unreadable), never resent', async () => {
		host.reset(flood({ total: 100 * 1024 * 1024 }));
		const out = await transportFor(host.origin, { limits: { jsonBytes: 1024 * 1024 } }).submit(
			'/v1/images/generations',
			{ json: {} },
		);
		expect(out).toMatchObject({
			kind: 'uncertain',
			reason: expect.stringMatching(/larger than the limit of 1 MiB/),
		});
		expect(host.seen).toHaveLength(1);
	});

	it("the per-call cap of getJson overrides the transport's", async () => {
		host.reset((_req, res) => {
			res.writeHead(200, { 'content-type': 'application/json' });
			res.end(JSON.stringify({ a: 'x'.repeat(3000) }));
		});
		await expect(
			transportFor(host.origin).getJson('/v1/models', { maxBytes: 1000 }),
		).rejects.toMatchObject({ failure: 'TOO_LARGE' });
		await expect(
			transportFor(host.origin).getJson('/v1/models', { maxBytes: 10_000 }),
		).resolves.toMatchObject({ status: 200 });
	});
});
