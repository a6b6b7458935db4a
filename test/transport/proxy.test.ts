/**
 * HTTP_PROXY / NO_PROXY from the environment (undici's EnvHttpProxyAgent). The proxy here is a plain
 * HTTP forward proxy: it receives absolute-form request lines (`GET http://host:port/path`) and relays
 * them. It refuses CONNECT, as many forward proxies do for plain-HTTP ports.
 */
import { text as readText } from 'node:stream/consumers';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setDispatcher } from '../../nodes/shared/transport';
import { KEY, json, startServer, transportFor, withoutProxyEnv, type TestServer } from './support';

interface ProxyLog {
	method: string;
	target: string;
	authorization?: string;
}

let gw: TestServer;
let proxy: Server;
let proxyUrl: string;
const proxied: ProxyLog[] = [];

beforeAll(async () => {
	withoutProxyEnv();
	gw = await startServer((req, res) => json(res, 200, { via: req.headers.via ?? null }));
	proxy = createServer((req, res) => {
		proxied.push({
			method: req.method ?? '',
			target: req.url ?? '',
			authorization: req.headers.authorization,
		});
		const target = new URL(req.url ?? '');
		const upstream = httpRequest(
			{
				host: target.hostname,
				port: target.port,
				path: target.pathname + target.search,
				method: req.method,
				headers: { ...req.headers, via: '1.1 test-proxy' },
			},
			(up) => {
				res.writeHead(up.statusCode ?? 502, up.headers);
				up.pipe(res);
			},
		);
		upstream.on('error', () => res.destroy());
		req.pipe(upstream);
	});
	proxy.on('connect', (req, socket) => {
		proxied.push({ method: 'CONNECT', target: req.url ?? '' });
		socket.end('HTTP/1.1 405 Method Not Allowed\r\ncontent-length: 0\r\n\r\n');
	});
	await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
	proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});

afterAll(async () => {
	withoutProxyEnv();
	proxy.closeAllConnections();
	await new Promise((r) => proxy.close(r));
	await gw.close();
});

beforeEach(() => {
	withoutProxyEnv();
	proxied.length = 0;
	gw.reset((req, res) => json(res, 200, { via: req.headers.via ?? null }));
});

/** A fresh dispatcher reads the environment as it is now. */
const useEnv = (env: Record<string, string>) => {
	Object.assign(process.env, env);
	setDispatcher(undefined);
};

it('HTTP_PROXY set, NO_PROXY unset: GET goes through the proxy in absolute form, with the key', async () => {
	useEnv({ HTTP_PROXY: proxyUrl });
	const res = await transportFor(`${gw.origin}/v1`).getJson<{ via: string | null }>('/v1/models');
	expect(res.body.via).toBe('1.1 test-proxy');
	expect(proxied).toEqual([
		{ method: 'GET', target: `${gw.origin}/v1/models`, authorization: `Bearer ${KEY}` },
	]);
	expect(gw.seen).toHaveLength(1);
});

it('lower-case http_proxy works the same, and NO_PROXY that does not match keeps the proxy', async () => {
	useEnv({ http_proxy: proxyUrl, NO_PROXY: 'gateway.internal,.corp.example' });
	const res = await transportFor(gw.origin).getJson<{ via: string | null }>('/v1/models');
	expect(res.body.via).toBe('1.1 test-proxy');
	expect(proxied.map((p) => `${p.method} ${p.target}`)).toEqual([`GET ${gw.origin}/v1/models`]);
});

it('a paid POST goes through the proxy exactly once', async () => {
	useEnv({ HTTP_PROXY: proxyUrl });
	gw.reset((req, res) =>
		json(res, 202, { task_id: 'task_p1', status: 'processing', via: req.headers.via }),
	);
	const out = await transportFor(gw.origin).submit('/v1/images/generations/async', {
		json: { prompt: 'x' },
	});
	expect(out).toMatchObject({
		kind: 'accepted',
		status: 202,
		body: { task_id: 'task_p1', via: '1.1 test-proxy' },
	});
	expect(proxied.map((p) => `${p.method} ${p.target}`)).toEqual([
		`POST ${gw.origin}/v1/images/generations/async`,
	]);
	expect(gw.seen).toHaveLength(1);
});

it('a download without the key goes through the proxy without Authorization', async () => {
	useEnv({ HTTP_PROXY: proxyUrl });
	gw.reset((_req, res) => {
		res.writeHead(200, { 'content-type': 'image/png', 'content-length': 3 });
		res.end('abc');
	});
	const dl = await transportFor('https://gw.example.com').download(`${gw.origin}/files/a.png`, {
		withKey: false,
	});
	expect(await readText(dl.body)).toBe('abc');
	expect(proxied).toEqual([
		{ method: 'GET', target: `${gw.origin}/files/a.png`, authorization: undefined },
	]);
});

it.each([
	['the host', '127.0.0.1'],
	['host:port', () => `127.0.0.1:${gw.port}`],
	['a list with the host', () => `example.com, 127.0.0.1`],
	['*', '*'],
])('NO_PROXY matching %s bypasses the proxy', async (_what, value) => {
	useEnv({ HTTP_PROXY: proxyUrl, NO_PROXY: typeof value === 'function' ? value() : value });
	const res = await transportFor(gw.origin).getJson<{ via: string | null }>('/v1/models');
	expect(res.body.via).toBeNull();
	expect(proxied).toEqual([]);
	expect(gw.seen).toHaveLength(1);
});

it('without HTTP_PROXY nothing goes through the proxy', async () => {
	useEnv({});
	const res = await transportFor(gw.origin).getJson<{ via: string | null }>('/v1/models');
	expect(res.body.via).toBeNull();
	expect(proxied).toEqual([]);
});

it('an https target is tunnelled with CONNECT, never sent to the proxy in clear text', async () => {
	useEnv({ HTTP_PROXY: proxyUrl });
	const t = transportFor(`https://127.0.0.1:${gw.port}`, { retry: { maxAttempts: 1 } });
	await expect(t.getJson('/v1/models')).rejects.toBeDefined();
	// this proxy refuses CONNECT, so the request goes no further; the key never crossed it in clear text
	expect(proxied).toEqual([{ method: 'CONNECT', target: `127.0.0.1:${gw.port}` }]);
	expect(gw.seen).toEqual([]);
});
