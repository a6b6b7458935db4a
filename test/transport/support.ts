/**
 * Small loopback HTTP servers for the transport tests. Every request is recorded (method, path,
 * headers, raw header list, body, arrival time) after its body has been read; the handler then
 * decides what to answer, or to reset the connection, or never to answer.
 */
import {
	createServer,
	type IncomingHttpHeaders,
	type IncomingMessage,
	type ServerResponse,
} from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { normaliseBaseUrl } from '../../nodes/shared/transport/baseUrl';
import {
	GatewayTransport,
	setDispatcher,
	type TransportConfig,
} from '../../nodes/shared/transport';

export const KEY = 'sk-test-0123456789abcdef';

export interface Seen {
	method: string;
	url: string;
	headers: IncomingHttpHeaders;
	rawHeaders: string[];
	body: string;
	at: number;
}

export type Handler = (
	req: IncomingMessage,
	res: ServerResponse,
	seen: Seen,
	index: number,
) => void | Promise<void>;

export interface TestServer {
	origin: string;
	port: number;
	url(path: string): string;
	seen: Seen[];
	/** TCP connections accepted since the start or the last reset (a request refused before connecting adds none) */
	readonly connections: number;
	/** replaces the handler and forgets what was seen */
	reset(handler?: Handler): void;
	close(): Promise<void>;
}

export function json(
	res: ServerResponse,
	status: number,
	body: unknown,
	headers: Record<string, string> = {},
): void {
	const text = typeof body === 'string' ? body : JSON.stringify(body);
	res.writeHead(status, {
		'content-type': 'application/json',
		'content-length': Buffer.byteLength(text),
		...headers,
	});
	res.end(text);
}

export function text(
	res: ServerResponse,
	status: number,
	body: string,
	contentType = 'text/plain',
	headers: Record<string, string> = {},
): void {
	res.writeHead(status, {
		'content-type': contentType,
		'content-length': Buffer.byteLength(body),
		...headers,
	});
	res.end(body);
}

/** Kills the TCP connection without an HTTP answer (the request has been fully received). */
export function reset(req: IncomingMessage): void {
	req.socket.destroy();
}

const ok: Handler = (_req, res) => json(res, 200, { ok: true });

export async function startServer(handler: Handler = ok, host = '127.0.0.1'): Promise<TestServer> {
	let current = handler;
	const seen: Seen[] = [];
	const sockets = new Set<Socket>();
	let connections = 0;
	const server = createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (c: Buffer) => chunks.push(c));
		req.on('end', () => {
			const s: Seen = {
				method: req.method ?? '',
				url: req.url ?? '',
				headers: req.headers,
				rawHeaders: req.rawHeaders,
				body: Buffer.concat(chunks).toString('utf8'),
				at: Date.now(),
			};
			seen.push(s);
			Promise.resolve(current(req, res, s, seen.length - 1)).catch(() => req.socket.destroy());
		});
	});
	server.on('connection', (s) => {
		connections++;
		sockets.add(s);
		s.on('close', () => sockets.delete(s));
	});
	await new Promise<void>((r) => server.listen(0, host, r));
	const port = (server.address() as AddressInfo).port;
	const origin = `http://${host}:${port}`;
	return {
		origin,
		port,
		url: (path) => origin + path,
		seen,
		get connections() {
			return connections;
		},
		reset(h = ok) {
			current = h;
			seen.length = 0;
			connections = 0;
		},
		async close() {
			for (const s of sockets) s.destroy();
			await new Promise((r) => server.close(r));
		},
	};
}

/** A port on loopback where nothing listens (connections are refused). */
export async function closedPort(): Promise<number> {
	const s = createServer();
	await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
	const port = (s.address() as AddressInfo).port;
	await new Promise((r) => s.close(r));
	return port;
}

/** A transport with fast back-off so retry tests stay short. */
export function transportFor(
	base: string,
	extra: Partial<TransportConfig> & { videoBase?: string } = {},
): GatewayTransport {
	const { videoBase, ...rest } = extra;
	return new GatewayTransport({
		apiKey: KEY,
		base: normaliseBaseUrl(base),
		video: videoBase ? normaliseBaseUrl(videoBase, 'Video Base URL') : undefined,
		...rest,
		retry: { baseDelayMs: 20, maxDelayMs: 100, ...(rest.retry ?? {}) },
	});
}

/** Makes sure no proxy from the machine's environment sits between the tests and loopback. */
export function withoutProxyEnv(): void {
	for (const k of [
		'HTTP_PROXY',
		'http_proxy',
		'HTTPS_PROXY',
		'https_proxy',
		'NO_PROXY',
		'no_proxy',
	])
		delete process.env[k];
	setDispatcher(undefined);
}

/** Resolves with the rejection of `p` (fails the test if `p` resolves). */
export async function rejectionOf(p: Promise<unknown>): Promise<Error & Record<string, unknown>> {
	try {
		const v = await p;
		throw new Error(`expected a rejection, got ${JSON.stringify(v)?.slice(0, 200)}`);
	} catch (err) {
		if (err instanceof Error && err.message.startsWith('expected a rejection')) throw err;
		return err as Error & Record<string, unknown>;
	}
}

/** How many `Authorization` headers a request carried (raw, before Node merges them). */
export function authHeaderCount(s: Seen): number {
	return s.rawHeaders.filter((h, i) => i % 2 === 0 && h.toLowerCase() === 'authorization').length;
}
