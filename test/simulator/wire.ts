/** What the wire carries: status, headers, bytes with their arrival times, and how the body ended. */
import { request } from 'node:http';

export interface Wire {
	status: number;
	headers: Record<string, string | string[] | undefined>;
	body: Buffer;
	/** ms from sending the request to the response headers, and to the first body byte */
	headersAt: number;
	firstByteAt?: number;
	/** arrival time (ms from sending) of each chunk and its size */
	chunks: Array<{ at: number; bytes: number }>;
	/** how reading stopped: the body ended, the peer closed early, or we stopped reading */
	ended: 'end' | 'aborted' | 'limit' | 'timeout';
}

export interface WireOptions {
	method?: string;
	headers?: Record<string, string>;
	body?: string | Buffer;
	/** stop reading after this many bytes (default 64 MiB) */
	maxBytes?: number;
	/** stop reading after this long (default 10 s) */
	timeoutMs?: number;
}

export function readWire(url: string, o: WireOptions = {}): Promise<Wire> {
	const maxBytes = o.maxBytes ?? 64 * 1024 * 1024;
	const t0 = Date.now();
	return new Promise((resolve, reject) => {
		const req = request(url, { method: o.method ?? 'GET', headers: o.headers, agent: false });
		let timer: NodeJS.Timeout | undefined;
		const finish = (w: Wire) => {
			clearTimeout(timer);
			req.destroy();
			resolve(w);
		};
		timer = setTimeout(
			() => reject(new Error(`no response from ${url} within ${o.timeoutMs ?? 10_000} ms`)),
			o.timeoutMs ?? 10_000,
		);
		req.on('error', (err) => reject(err));
		req.on('response', (res) => {
			const parts: Buffer[] = [];
			let total = 0;
			const w: Wire = {
				status: res.statusCode ?? 0,
				headers: res.headers,
				body: Buffer.alloc(0),
				headersAt: Date.now() - t0,
				chunks: [],
				ended: 'end',
			};
			let over = false;
			const done = (ended: Wire['ended']) => {
				if (over) return;
				over = true;
				w.body = Buffer.concat(parts);
				w.ended = ended;
				finish(w);
			};
			clearTimeout(timer);
			timer = setTimeout(() => done('timeout'), o.timeoutMs ?? 10_000);
			res.on('data', (c: Buffer) => {
				const at = Date.now() - t0;
				w.firstByteAt ??= at;
				w.chunks.push({ at, bytes: c.length });
				parts.push(c);
				total += c.length;
				if (total >= maxBytes) done('limit');
			});
			res.on('end', () => done('end'));
			res.on('aborted', () => done('aborted'));
			res.on('error', () => done('aborted'));
		});
		req.end(o.body);
	});
}
