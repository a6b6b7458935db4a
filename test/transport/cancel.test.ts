/**
 * The execution cancel signal stops waits and in-flight requests promptly (jest's 5 s test timeout is
 * the bound: every wait in these tests is far longer than that).
 */
import { text as readText } from 'node:stream/consumers';
import { GatewayNetworkError } from '../../nodes/shared/errors';
import {
	json,
	rejectionOf,
	startServer,
	transportFor,
	withoutProxyEnv,
	type TestServer,
} from './support';
import { waitFor } from '../harness/wait';

let gw: TestServer;
beforeAll(async () => {
	withoutProxyEnv();
	gw = await startServer();
});
afterAll(() => gw.close());
beforeEach(() => gw.reset());

const expectCancelled = (err: unknown) => {
	expect(err).toBeInstanceOf(GatewayNetworkError);
	expect((err as GatewayNetworkError).cancelled).toBe(true);
	expect((err as GatewayNetworkError).code).toBe('CANCELLED');
};

it('aborting during a GET retry wait (Retry-After: 60) stops it', async () => {
	gw.reset((_req, res) => json(res, 429, { error: { message: 'slow' } }, { 'retry-after': '60' }));
	const ac = new AbortController();
	const p = transportFor(gw.origin, { signal: ac.signal }).getJson('/v1/images/tasks/abc', {
		deadline: Date.now() + 600_000,
	});
	await waitFor(() => gw.seen.length === 1, 'first request');
	await new Promise((r) => setTimeout(r, 50));
	ac.abort();
	expectCancelled(await rejectionOf(p));
	expect(gw.seen).toHaveLength(1);
});

it('aborting an in-flight GET (server never answers) stops it', async () => {
	gw.reset(() => undefined);
	const ac = new AbortController();
	const p = transportFor(gw.origin, { signal: ac.signal }).getJson('/v1/models');
	await waitFor(() => gw.seen.length === 1, 'request');
	ac.abort();
	expectCancelled(await rejectionOf(p));
	expect(gw.seen).toHaveLength(1);
});

it('aborting an in-flight download stops it, also in the middle of the body', async () => {
	gw.reset((_req, res) => {
		res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': 10_000_000 });
		res.write(Buffer.alloc(1000));
	});
	const ac = new AbortController();
	const t = transportFor(gw.origin, { signal: ac.signal });
	const dl = await t.download('/v1/videos/v/content', { withKey: true, timeout: 'videoDownload' });
	const reading = readText(dl.body);
	ac.abort();
	await expect(reading).rejects.toBeDefined();

	gw.reset(() => undefined);
	const ac2 = new AbortController();
	const p = transportFor(gw.origin, { signal: ac2.signal }).download('/v1/videos/v/content', {
		withKey: true,
	});
	await waitFor(() => gw.seen.length === 1, 'request');
	ac2.abort();
	expectCancelled(await rejectionOf(p));
});

it('aborting an in-flight POST returns an uncertain outcome (it may have been accepted), sent once', async () => {
	gw.reset(() => undefined);
	const ac = new AbortController();
	const p = transportFor(gw.origin, { signal: ac.signal }).submit('/v1/videos', {
		json: { prompt: 'x' },
	});
	await waitFor(() => gw.seen.length === 1, 'request');
	ac.abort();
	const out = await p;
	expect(out.kind).toBe('uncertain');
	expect(out.kind === 'uncertain' && out.reason).toMatch(/cancelled/i);
	expect(gw.seen).toHaveLength(1);
});

it('a POST on an already cancelled execution is not sent and says so (not uncertain)', async () => {
	const ac = new AbortController();
	ac.abort();
	const err = await rejectionOf(
		transportFor(gw.origin, { signal: ac.signal }).submit('/v1/videos', { json: { prompt: 'x' } }),
	);
	expectCancelled(err);
	expect((err as unknown as GatewayNetworkError).maybeDelivered).toBe(false);
	const err2 = await rejectionOf(
		transportFor(gw.origin, { signal: ac.signal }).postStream('/v1/chat/completions', {}),
	);
	expectCancelled(err2);
	expect((err2 as unknown as GatewayNetworkError).maybeDelivered).toBe(false);
	expect(gw.seen).toHaveLength(0);
});

it('a GET on an already cancelled execution sends nothing', async () => {
	const ac = new AbortController();
	ac.abort();
	expectCancelled(
		await rejectionOf(transportFor(gw.origin, { signal: ac.signal }).getJson('/v1/models')),
	);
	expect(gw.seen).toHaveLength(0);
});

it('transport.sleep is abortable', async () => {
	const ac = new AbortController();
	const p = transportFor(gw.origin, { signal: ac.signal }).sleep(60_000);
	// the sleep has begun when the call returns: cancelled in it
	ac.abort();
	expectCancelled(await rejectionOf(p));
});

it('transport.sleep resolves normally without a cancel', async () => {
	await expect(transportFor(gw.origin).sleep(5)).resolves.toBeUndefined();
});
