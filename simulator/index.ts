/**
 * The gateway simulator: a stateful local implementation of the gateway spec with fault injection.
 * Three servers on loopback: the gateway origin, an alternative video origin, and a result host.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { modelById } from './catalog';
import type { FaultSpec } from './faults';
import { openAiError, parseForm, readBody, sendJson, type Req } from './http';
import { handleImageQuery } from './image-tasks';
import { handleImageSubmit, type ImageCtx } from './images';
import { addJsonMode, oversizeJson, sendBody } from './delivery';
import { DOWNLOAD_FAULTS, serveDownload } from './downloads';
import { handleNative } from './native';
import { pricingBody, statusBody, type StatusOverrides } from './pricing';
import { SimState, type LedgerEntry, type RequestLogEntry, type ServerName, type SimulatorOptions } from './state';
import { admitSubmit, isSubmit } from './submit-gate';
import { handleChat, handleResponses } from './text';
import { handleVideoContent, handleVideoCreate, handleVideoQuery } from './videos';

export type { EchoWhere, FaultSpec, FaultKind } from './faults';
export type { LedgerEntry, RequestLogEntry, SimulatorOptions } from './state';

export interface Simulator {
	baseUrl: string;
	altBaseUrl: string;
	resultBaseUrl: string;
	keys: { demo: string; limited: string; other: string; broke: string; [name: string]: string };
	log: RequestLogEntry[];
	ledger: LedgerEntry[];
	state: SimState;
	fault(f: FaultSpec | FaultSpec[]): void;
	clearFaults(): void;
	/** changes what /api/status reports (display currency) */
	setStatus(o: StatusOverrides): void;
	reset(): void;
	stop(): Promise<void>;
}

const IMAGE_QUERY = /^\/v1\/(?:images\/tasks|image-tasks|images\/generations|images\/edits|tasks)\/([A-Za-z0-9_-]+)$/;
const NATIVE = /^\/v1beta\/models\/([^/:]+):generateContent$/;
const VIDEO_QUERY = /^\/v1\/(?:videos|video\/generations)\/([A-Za-z0-9_-]+)$/;
const VIDEO_CONTENT = /^\/v1\/videos\/([A-Za-z0-9_-]+)\/content$/;

export async function startSimulator(opts: SimulatorOptions = {}): Promise<Simulator> {
	const sim = new SimState(opts);
	const host = opts.host ?? '127.0.0.1';
	let statusOverrides: StatusOverrides = {};

	const handle = (server: ServerName) => async (raw: IncomingMessage, res: ServerResponse) => {
		const url = new URL(raw.url ?? '/', 'http://x');
		const path = url.pathname;
		const method = raw.method ?? 'GET';
		if (server === 'gateway' && path.startsWith('/__sim/')) return admin(raw, res, path, method);
		const auth = typeof raw.headers.authorization === 'string';
		const entry: RequestLogEntry = { time: Date.now(), method, server, path, status: 0, auth };
		sim.log.push(entry);
		res.on('finish', () => (entry.status = res.statusCode));
		res.on('close', () => {
			if (!res.writableFinished && !entry.status) entry.status = -1;
		});
		try {
			if (server === 'result') return await serveResult(res, path, method);
			if (hostileJson(raw, res, method, path)) return;
			// generic faults first
			const generic = sim.faults.take(method, path, ['status', 'rate-limit', 'delay', 'redirect']);
			if (generic) {
				if (generic.kind === 'delay') await new Promise((r) => setTimeout(r, generic.delayMs ?? 5000));
				else if (generic.kind === 'redirect') {
					res.writeHead(generic.status ?? 302, { location: generic.location ?? `${sim.urls.result}/elsewhere${path}` });
					return void res.end();
				} else {
					const status = generic.kind === 'rate-limit' ? 429 : (generic.status ?? 500);
					const headers: Record<string, string> = {};
					if (generic.retryAfter !== undefined) headers['retry-after'] = String(generic.retryAfter);
					if (generic.emptyBody) {
						res.writeHead(status, headers);
						return void res.end();
					}
					if (generic.body !== undefined) return sendJson(res, status, generic.body, headers);
					return sendJson(res, status, { error: { message: status === 429 ? 'Too many requests' : 'upstream error', type: status === 429 ? 'rate_limit_error' : 'upstream_error', code: status } }, headers);
				}
			}
			if (method === 'GET' && path === '/api/pricing') return sendJson(res, 200, pricingBody());
			if (method === 'GET' && path === '/api/status') return sendJson(res, 200, statusBody(statusOverrides));
			const authz = raw.headers.authorization;
			const m = typeof authz === 'string' ? /^Bearer (\S+)$/.exec(authz) : null;
			const key = m ? sim.keys.get(m[1]) : undefined;
			if (!key) return openAiError(res, 401, authz ? 'Invalid token (check the Bearer format and the key)' : 'No token provided', 'invalid_api_key', 'authentication_error');
			entry.keyName = key.name;
			const body = await readBody(raw);
			if (body === 'too-large') return openAiError(res, 413, 'Request body too large', 'request_too_large');
			const ct = String(raw.headers['content-type'] ?? '');
			const submit = isSubmit(method, path);
			const req: Req = { method, path, query: url.searchParams, headers: raw.headers, raw, body, res };
			if (ct.startsWith('multipart/form-data')) {
				req.form = await parseForm(body, ct);
				if (!req.form) return openAiError(res, 400, 'Malformed multipart body', 'invalid_request_error');
			} else if (body.length) {
				try {
					req.json = JSON.parse(body.toString('utf8'));
				} catch {
					return openAiError(res, 400, 'Malformed JSON body', 'invalid_request_error');
				}
			}
			if (submit) {
				if (!admitSubmit(sim, res)) {
					const model = (req.json as { model?: unknown } | undefined)?.model ?? req.form?.get('model');
					if (typeof model === 'string') entry.model = model;
					return openAiError(res, 429, `Too many concurrent requests: at most ${sim.opts.maxConcurrentSubmits} submissions at a time`, 'concurrency_limit_exceeded', 'rate_limit_error', undefined, { 'retry-after': String(sim.opts.submitRetryAfterSec) });
				}
				if (sim.opts.submitLatencyMs > 0) await new Promise((r) => setTimeout(r, sim.opts.submitLatencyMs));
			}
			const ctx: ImageCtx = {
				sim,
				key,
				req,
				log: entry,
				checkModel: (model) => {
					const mm = modelById(String(model));
					if (!mm || !mm.groups.includes(key.group)) {
						if (!mm) openAiError(res, 503, `model ${String(model)} not found: no available channel in group ${key.group}`, 'model_not_found', 'new_api_error');
						else openAiError(res, 403, `This key's group ${key.group} may not use model ${String(model)}`, 'model_not_allowed', 'permission_error');
						return false;
					}
					if (mm.noChannel) {
						openAiError(res, 503, `No available channel for model ${mm.id} in group ${key.group}`, 'model_not_found', 'new_api_error');
						return false;
					}
					if (key.quota <= 0) {
						openAiError(res, 403, 'Insufficient user quota', 'insufficient_user_quota', 'new_api_error');
						return false;
					}
					return true;
				},
			};
			return await route(ctx, server);
		} catch (err) {
			if (!res.headersSent) openAiError(res, 500, `simulator error: ${(err as Error).message}`, 'internal_error', 'api_error');
			else res.destroy();
		}
	};

	async function route(ctx: ImageCtx, server: ServerName): Promise<void> {
		const { method, path, res } = ctx.req;
		let mm: RegExpExecArray | null;
		if (server === 'alt') {
			if (method === 'POST' && (path === '/v1/videos' || path === '/v1/video/generations')) return handleVideoCreate(ctx, 'alt');
			if (method === 'GET' && (mm = VIDEO_CONTENT.exec(path))) return handleVideoContent(ctx, mm[1], 'alt');
			if (method === 'GET' && (mm = VIDEO_QUERY.exec(path))) return handleVideoQuery(ctx, mm[1], 'alt');
			return openAiError(res, 404, `Invalid URL (${method} ${path}) on the video origin`, 'not_found');
		}
		if (method === 'GET' && path === '/v1/models') {
			const { modelsForGroup } = await import('./catalog');
			return sendJson(res, 200, { object: 'list', success: true, data: modelsForGroup(ctx.key.group).map((x) => ({ id: x.id, object: 'model', created: 1_700_000_000, owned_by: x.id.split('-')[0], supported_endpoint_types: x.endpointTypes })) });
		}
		if (method === 'POST') {
			if (path === '/v1/images/generations/async' || path === '/v1/image-tasks/generations' || path === '/v1/images/generations') return handleImageSubmit(ctx, false);
			if (path === '/v1/images/edits/async' || path === '/v1/image-tasks/edits' || path === '/v1/images/edits') return handleImageSubmit(ctx, true);
			if ((mm = NATIVE.exec(path))) return handleNative(ctx, decodeURIComponent(mm[1]));
			if (path === '/v1/chat/completions') return handleChat(ctx);
			if (path === '/v1/responses') return handleResponses(ctx);
			if (path === '/v1/videos' || path === '/v1/video/generations') return handleVideoCreate(ctx, 'gateway');
		}
		if (method === 'GET') {
			if ((mm = VIDEO_CONTENT.exec(path))) return handleVideoContent(ctx, mm[1], 'gateway');
			if ((mm = VIDEO_QUERY.exec(path))) return handleVideoQuery(ctx, mm[1], 'gateway');
			if ((mm = IMAGE_QUERY.exec(path))) return handleImageQuery(ctx, mm[1]);
		}
		return openAiError(res, 404, `Invalid URL (${method} ${path})`, 'not_found');
	}

	/** Faults that make any JSON answer of the route hostile: trickled, oversize, or echoing the request headers. True when answered. */
	function hostileJson(raw: IncomingMessage, res: ServerResponse, method: string, path: string): boolean {
		const f = sim.faults.take(method, path, ['trickle', 'oversize-json', 'echo-key'], (x) => (x.kind === 'echo-key' ? x.where === 'headers' : x.kind !== 'trickle' || !VIDEO_CONTENT.test(path)));
		if (!f) return false;
		if (f.kind === 'echo-key') addJsonMode(res, { kind: 'echo-headers', headers: { ...raw.headers } });
		else if (f.kind === 'trickle') addJsonMode(res, { kind: 'trickle', intervalMs: f.intervalMs ?? 500 });
		else if (f.status === undefined) addJsonMode(res, { kind: 'oversize', bytes: f.bytes ?? 200_000_000 });
		else {
			void sendBody(res, f.status, { 'content-type': 'application/json' }, oversizeJson(`{"error":{"type":"upstream_error","code":${f.status},"message":"`, '"}}', f.bytes ?? 200_000_000));
			return true;
		}
		return false;
	}

	async function serveResult(res: ServerResponse, path: string, method: string): Promise<void> {
		if (method !== 'GET') return openAiError(res, 405, 'method not allowed', 'method_not_allowed');
		const m = /^\/(r|v)\/([A-Za-z0-9_-]+)\.[a-z0-9]+$/.exec(path);
		const r = m ? sim.results.get(m[2]) : undefined;
		if (!r) {
			res.writeHead(404, { 'content-type': 'text/plain' });
			return void res.end('not found');
		}
		const fault = sim.faults.take(method, path, [...DOWNLOAD_FAULTS, 'redirect', 'status', 'rate-limit']);
		if (fault?.kind === 'status' || fault?.kind === 'rate-limit') {
			res.writeHead(fault.kind === 'rate-limit' ? 429 : (fault.status ?? 500), fault.retryAfter !== undefined ? { 'retry-after': String(fault.retryAfter) } : {});
			return void res.end();
		}
		if (fault?.kind === 'redirect') {
			res.writeHead(302, { location: fault.location ?? `${sim.urls.result}${path}` });
			return void res.end();
		}
		if (r.kind === 'video') return serveDownload(sim, res, { kind: 'video', bytes: r.bytes ?? sim.opts.videoBytes, durationSec: r.durationSec ?? 5 }, fault);
		return serveDownload(sim, res, { kind: 'image', id: m![2], width: r.width!, height: r.height!, format: r.format!, variant: r.seed % 16 }, fault);
	}

	async function admin(raw: IncomingMessage, res: ServerResponse, path: string, method: string): Promise<void> {
		const body = await readBody(raw);
		const json = body !== 'too-large' && body.length ? JSON.parse(body.toString('utf8')) : undefined;
		if (path === '/__sim/faults' && method === 'POST') {
			sim.faults.add(json);
			return sendJson(res, 200, { ok: true, faults: sim.faults.list() });
		}
		if (path === '/__sim/faults' && method === 'DELETE') {
			sim.faults.clear();
			return sendJson(res, 200, { ok: true });
		}
		if (path === '/__sim/log') return sendJson(res, 200, sim.log);
		if (path === '/__sim/ledger') return sendJson(res, 200, sim.ledger);
		if (path === '/__sim/reset' && method === 'POST') {
			sim.reset();
			return sendJson(res, 200, { ok: true });
		}
		if (path === '/__sim/status' && method === 'POST') {
			statusOverrides = json ?? {};
			return sendJson(res, 200, { ok: true });
		}
		return sendJson(res, 404, { error: 'unknown admin route' });
	}

	const listen = (s: Server, port: number) =>
		new Promise<string>((resolve, reject) => {
			s.once('error', reject);
			s.listen(port, host, () => resolve(`http://${host}:${(s.address() as AddressInfo).port}`));
		});
	const gateway = createServer(handle('gateway'));
	const alt = createServer(handle('alt'));
	const result = createServer(handle('result'));
	for (const s of [gateway, alt, result]) s.keepAliveTimeout = 5000;
	sim.urls.gateway = await listen(gateway, opts.port ?? 0);
	sim.urls.alt = await listen(alt, 0);
	sim.urls.result = await listen(result, 0);
	const keys = Object.fromEntries([...sim.keys.entries()].map(([secret, info]) => [info.name, secret])) as Simulator['keys'];

	return {
		baseUrl: sim.urls.gateway,
		altBaseUrl: sim.urls.alt,
		resultBaseUrl: sim.urls.result,
		keys,
		log: sim.log,
		ledger: sim.ledger,
		state: sim,
		fault: (f) => sim.faults.add(f),
		clearFaults: () => sim.faults.clear(),
		setStatus: (o) => (statusOverrides = o),
		reset: () => sim.reset(),
		stop: async () => {
			await Promise.all(
				[gateway, alt, result].map(
					(s) =>
						new Promise<void>((r) => {
							s.closeAllConnections();
							s.close(() => r());
						}),
				),
			);
		},
	};
}
