/**
 * A loopback server whose every answer the test scripts: for the readable examples of the invariants, where a case
 * needs one exact answer no faithful gateway would give. It records every request.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Seen {
	method: string;
	path: string;
	body: string;
	headers: IncomingMessage['headers'];
	/** epoch ms the request arrived */
	at: number;
}

export type Handler = (req: Seen, res: ServerResponse) => void | Promise<void>;

export interface ScriptedServer {
	url: string;
	seen: Seen[];
	posts(path?: string): Seen[];
	close(): Promise<void>;
}

export async function scriptedServer(handler: Handler): Promise<ScriptedServer> {
	const seen: Seen[] = [];
	const server: Server = createServer((req, res) => {
		const at = Date.now();
		const chunks: Buffer[] = [];
		req.on('data', (c: Buffer) => chunks.push(c));
		req.on('end', () => {
			const s: Seen = {
				method: req.method ?? '',
				path: req.url ?? '',
				body: Buffer.concat(chunks).toString('utf8'),
				headers: req.headers,
				at,
			};
			seen.push(s);
			Promise.resolve(handler(s, res)).catch(() => res.destroy());
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	return {
		url,
		seen,
		posts: (path) => seen.filter((s) => s.method === 'POST' && (!path || s.path === path)),
		close: () =>
			new Promise<void>((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
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
