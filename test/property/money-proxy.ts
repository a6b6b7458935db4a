/**
 * A recording pass-through in front of the simulator's gateway origin, for the money properties: the credential's
 * Base URL points here, every request goes on to the simulator unchanged, and each one is kept with its body, the
 * status, the gateway's request ID (X-Oneapi-Request-Id, the key of the simulator's ledger lines) and the answer's
 * body, in arrival order. The simulator's own log has no bodies; the properties need the prompt of every paid POST to
 * know its place (the item marker), and the usage the gateway reported to price it.
 */
import {
	Agent,
	createServer,
	request,
	type IncomingMessage,
	type Server,
	type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Exchange {
	/** arrival order */
	seq: number;
	method: string;
	path: string;
	body: string;
	/** the request's Authorization header (which account sent it) */
	auth?: string;
	/** every header of the request as it arrived */
	headers?: Record<string, string | string[] | undefined>;
	/** when the request arrived / its answer ended (ms) */
	started: number;
	ended?: number;
	/** HTTP status, -1 when the connection ended without one */
	status?: number;
	/** the answer's Retry-After, as the gateway sent it */
	retryAfter?: string;
	requestId?: string;
	/** the answer as text (at most ANSWER_LIMIT bytes) */
	answer: string;
	/** the gateway answered, and the proxy lost the answer: dropped the connection, or answered 500 instead */
	lost?: 'drop' | '500';
}

/** Lose the answer of the n-th POST (1-based, in arrival order) to a paid route, after the gateway did the work. */
export interface LossRule {
	route: 'chat' | 'image' | 'video';
	nth: number;
	how: 'drop' | '500';
}

const ROUTES: Record<LossRule['route'], RegExp> = {
	chat: /^\/v1\/chat\/completions/,
	image: /^\/v1\/images\/generations\/async/,
	video: /^\/v1\/videos(\?|$)/,
};

const ANSWER_LIMIT = 1 << 20;
const TEXT_ROUTE = /^\/v1\/(chat\/completions|responses)(\?|$)/;

export class RecordingProxy {
	readonly exchanges: Exchange[] = [];
	private server?: Server;
	private seq = 0;
	private target!: URL;
	private losses: LossRule[] = [];
	/** a new connection to the simulator for every request (no reuse race on that side either) */
	private readonly upstream = new Agent({ keepAlive: false });
	private counts: Record<string, number> = {};
	/** called when a request has arrived whole, before it goes on (a test samples the process there; a promise holds it) */
	onRequest?: (ex: Exchange) => void | Promise<void>;
	/** the Content-Types the text routes' event streams and JSON answers are passed on with (a proxy that relabels) */
	private relabel: { stream?: string; json?: string } = {};

	async start(target: string): Promise<string> {
		this.target = new URL(target);
		this.server = createServer((req, res) => this.forward(req, res));
		// an idle connection is closed by the client first (undici: 4 s), never by the proxy as the client reuses it:
		// a request lost in that race would be a POST the package must count as spent and the gateway never saw
		this.server.keepAliveTimeout = 120_000;
		await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
		return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
	}

	/** Forgets the exchanges; `losses` are the answers to lose from now on; `relabel` relabels text answers. */
	reset(
		losses: LossRule[] = [],
		opts: { relabel?: { stream?: string; json?: string } } = {},
	): void {
		this.exchanges.length = 0;
		this.losses = losses;
		this.relabel = { stream: opts.relabel?.stream, json: opts.relabel?.json };
		this.counts = {};
	}

	private lossFor(method: string, path: string): LossRule['how'] | undefined {
		if (method !== 'POST') return undefined;
		const route = (Object.keys(ROUTES) as Array<LossRule['route']>).find((r) =>
			ROUTES[r].test(path),
		);
		if (!route) return undefined;
		const nth = (this.counts[route] = (this.counts[route] ?? 0) + 1);
		return this.losses.find((l) => l.route === route && l.nth === nth)?.how;
	}

	async stop(): Promise<void> {
		this.server?.closeAllConnections();
		await new Promise<void>((resolve) =>
			this.server ? this.server.close(() => resolve()) : resolve(),
		);
	}

	/** Every exchange has ended (the answers of a run are all in). */
	async settled(timeoutMs = 5000): Promise<void> {
		const until = Date.now() + timeoutMs;
		while (this.exchanges.some((e) => e.ended === undefined) && Date.now() < until)
			await new Promise((r) => setTimeout(r, 10));
	}

	/** The headers an answer is passed on with: a text route's event stream or JSON answer under its new label. */
	private labelled(path: string, headers: IncomingMessage['headers']): IncomingMessage['headers'] {
		const type = String(headers['content-type'] ?? '');
		const to = !TEXT_ROUTE.test(path)
			? undefined
			: /^\s*text\/event-stream/i.test(type)
				? this.relabel.stream
				: /^\s*application\/json/i.test(type)
					? this.relabel.json
					: undefined;
		if (to === undefined) return headers;
		const out = { ...headers };
		if (to === '') delete out['content-type'];
		else out['content-type'] = to;
		return out;
	}

	private forward(req: IncomingMessage, res: ServerResponse): void {
		const ex: Exchange = {
			seq: this.seq++,
			method: req.method ?? 'GET',
			path: req.url ?? '/',
			body: '',
			started: Date.now(),
			answer: '',
			auth: req.headers.authorization,
			headers: { ...req.headers },
		};
		this.exchanges.push(ex);
		const lose = this.lossFor(ex.method, ex.path);
		const chunks: Buffer[] = [];
		req.on('data', (c: Buffer) => chunks.push(c));
		req.on('end', async () => {
			await this.onRequest?.(ex);
			const body = Buffer.concat(chunks);
			ex.body = body.toString('utf8');
			const headers: Record<string, string | string[] | undefined> = {
				...req.headers,
				host: this.target.host,
			};
			delete headers.connection;
			delete headers['keep-alive'];
			const out = request(
				{
					host: this.target.hostname,
					port: this.target.port,
					method: ex.method,
					path: ex.path,
					headers,
					agent: this.upstream,
				},
				(up) => {
					ex.status = up.statusCode;
					const wait = up.headers['retry-after'];
					if (typeof wait === 'string') ex.retryAfter = wait;
					const id = up.headers['x-oneapi-request-id'];
					if (typeof id === 'string') ex.requestId = id;
					if (lose) {
						// the gateway does all its work (and charges); its answer never reaches the client
						up.on('data', (c: Buffer) => (ex.answer += c.toString('utf8')));
						const end = () => {
							if (ex.ended !== undefined) return;
							ex.ended = Date.now();
							ex.lost = lose;
							if (lose === 'drop') res.destroy();
							else {
								res.writeHead(500, { 'content-type': 'application/json' });
								res.end(
									JSON.stringify({
										error: { message: 'upstream connection lost', type: 'upstream_error' },
									}),
								);
							}
						};
						up.on('end', end);
						up.on('error', end);
						up.on('aborted', end);
						return;
					}
					res.writeHead(up.statusCode ?? 502, this.labelled(ex.path, up.headers));
					let kept = 0;
					up.on('data', (c: Buffer) => {
						if (kept < ANSWER_LIMIT) {
							ex.answer += c.toString('utf8');
							kept += c.length;
						}
						res.write(c);
					});
					up.on('end', () => {
						ex.ended = Date.now();
						res.end();
					});
					up.on('error', () => {
						ex.ended = Date.now();
						res.destroy();
					});
					up.on('aborted', () => {
						ex.ended = Date.now();
						res.destroy();
					});
				},
			);
			out.on('error', () => {
				ex.status ??= -1;
				ex.ended = Date.now();
				res.destroy();
			});
			res.on('close', () => {
				if (ex.ended === undefined && !lose) {
					// the client went away: stop the upstream request too
					ex.status ??= -1;
					ex.ended = Date.now();
					out.destroy();
				}
			});
			out.end(body);
		});
	}
}
