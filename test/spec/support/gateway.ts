/**
 * A scriptable stand-in gateway for black-box tests of the nodes: each test says what every route answers, and the
 * log records every request with its start and end time (for intervals and concurrency). Two origins: the gateway
 * and a result host. Independent of the simulator, so these tests only depend on the spec's contract.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { mp4File } from '../../media/mp4-files';

export interface Hit {
	server: 'gateway' | 'result';
	method: string;
	path: string;
	start: number;
	end?: number;
	status?: number;
	auth: boolean;
	body: string;
}

export interface Reply {
	status?: number;
	json?: unknown;
	body?: Buffer | string;
	headers?: Record<string, string>;
	/** hold the answer this long */
	delayMs?: number;
}

export type Handler = (hit: Hit, match: RegExpExecArray, count: number) => Reply | Promise<Reply>;

interface Route {
	server: Hit['server'];
	method: string;
	pattern: RegExp;
	handler: Handler;
	count: number;
}

export class FakeGateway {
	baseUrl = '';
	resultUrl = '';
	readonly log: Hit[] = [];
	private routes: Route[] = [];
	private servers: Server[] = [];

	/** What `METHOD path` answers on a server (later routes win); `count` is how often this route was hit before. */
	on(method: string, pattern: RegExp, handler: Handler, server: Hit['server'] = 'gateway'): this {
		this.routes.unshift({ server, method, pattern, handler, count: 0 });
		return this;
	}

	reset(): void {
		this.routes = [];
		this.log.length = 0;
		this.defaults();
	}

	hits(method: string, pattern: RegExp): Hit[] {
		return this.log.filter((h) => h.method === method && pattern.test(h.path));
	}

	/** The most requests in flight at once among `hits` (counting any request of the log that overlaps them). */
	peakConcurrency(hits: Hit[]): number {
		return Math.max(
			0,
			...hits.map(
				(h) => this.log.filter((o) => o.start <= h.start && (o.end ?? Infinity) > h.start).length,
			),
		);
	}

	async start(): Promise<this> {
		const [gw, result] = await Promise.all([this.listen('gateway'), this.listen('result')]);
		this.baseUrl = gw;
		this.resultUrl = result;
		this.defaults();
		return this;
	}

	async stop(): Promise<void> {
		await Promise.all(this.servers.map((s) => new Promise<void>((res) => s.close(() => res()))));
		for (const s of this.servers) s.closeAllConnections();
	}

	private defaults(): void {
		this.on('GET', /^\/api\/pricing$/, () => ({
			json: { success: true, data: [], group_ratio: {}, usable_group: {} },
		}));
		this.on('GET', /^\/api\/status$/, () => ({ json: { success: true, data: {} } }));
		this.on('GET', /^\/v1\/models$/, () => ({ json: { object: 'list', data: [] } }));
	}

	private listen(server: Hit['server']): Promise<string> {
		const srv = createServer((req, res) => void this.handle(server, req, res));
		this.servers.push(srv);
		return new Promise((resolve) =>
			srv.listen(0, '127.0.0.1', () =>
				resolve(`http://127.0.0.1:${(srv.address() as AddressInfo).port}`),
			),
		);
	}

	private async handle(
		server: Hit['server'],
		req: IncomingMessage,
		res: ServerResponse,
	): Promise<void> {
		const chunks: Buffer[] = [];
		for await (const c of req) chunks.push(c as Buffer);
		const path = (req.url ?? '/').split('?')[0];
		const hit: Hit = {
			server,
			method: req.method ?? 'GET',
			path,
			start: Date.now(),
			auth: !!req.headers.authorization,
			body: Buffer.concat(chunks).toString('utf8'),
		};
		this.log.push(hit);
		let reply: Reply = {
			status: 404,
			json: { error: { message: `no route for ${hit.method} ${path}` } },
		};
		for (const r of this.routes) {
			const m = r.server === server && r.method === hit.method ? r.pattern.exec(path) : null;
			if (m) {
				reply = await r.handler(hit, m, r.count++);
				break;
			}
		}
		if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
		const body = reply.json !== undefined ? JSON.stringify(reply.json) : (reply.body ?? '');
		const headers = {
			...(reply.json !== undefined ? { 'content-type': 'application/json' } : {}),
			...(reply.headers ?? {}),
		};
		hit.status = reply.status ?? 200;
		res.writeHead(hit.status, headers);
		res.end(body, () => {
			hit.end = Date.now();
		});
	}
}

export async function startGateway(): Promise<FakeGateway> {
	return new FakeGateway().start();
}

export const credsFor = (gw: FakeGateway) => ({ apiKey: 'sk-spec-test', baseUrl: gw.baseUrl });

/** An image task object as the spec describes it. */
export function imageTask(
	id: string,
	status: 'processing' | 'completed' | 'failed',
	extra: Record<string, unknown> = {},
): Record<string, unknown> {
	const state =
		status === 'processing' ? 'running' : status === 'completed' ? 'succeeded' : 'failed';
	return {
		id,
		task_id: id,
		object: 'image.generation.task',
		status,
		state,
		poll_path: `/v1/images/tasks/${id}`,
		poll_after_ms: 1000,
		created_at: Math.floor(Date.now() / 1000),
		...extra,
	};
}

export function png(width = 32, height = 24): Promise<Buffer> {
	return sharp({ create: { width, height, channels: 3, background: { r: 30, g: 120, b: 200 } } })
		.png()
		.toBuffer();
}

/** A small complete MP4 of about `bytes`: `ftyp`, a `moov` with one video track, and an `mdat` its samples tile. */
export function mp4(bytes = 4096): Buffer {
	const sampleBytes = 256;
	return mp4File({ samples: Math.max(1, Math.floor((bytes - 400) / sampleBytes)), sampleBytes });
}

/** An image-task input item for Task Wait, as Image Submit emits it. */
export const imageItem = (taskId: string, extra: Record<string, unknown> = {}) => ({
	json: { task_id: taskId, kind: 'image', origin: 'base', poll_after_ms: 1000, ...extra },
});
