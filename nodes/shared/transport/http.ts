/**
 * The one module that talks HTTP. Every node goes through GatewayTransport:
 * key pinning, no redirects on authenticated calls, per-kind timeouts, GET-only retries,
 * POST outcome classification, proxies from the environment, pooled connections.
 */
import { EnvHttpProxyAgent, FormData as UndiciFormData, request, type Dispatcher, type FormData } from 'undici';
import type { Readable } from 'node:stream';
import { GatewayHttpError, GatewayNetworkError, SafetyError, extractGatewayError, redact } from '../errors';
import { composeUrl, type GatewayRoot } from './baseUrl';
import { DEFAULT_RETRY, backoffDelay, isRetryableStatus, parseRetryAfter, shouldWait, type RetryPolicy } from './retry';
import { DEFAULT_TIMEOUTS, type TimeoutKind } from './timeouts';

export type OriginKind = 'base' | 'video';
export type Timeouts = Record<TimeoutKind, number>;

export interface TransportConfig {
	apiKey: string;
	base: GatewayRoot;
	video?: GatewayRoot;
	timeouts?: Partial<Timeouts>;
	retry?: Partial<RetryPolicy>;
	/** n8n's execution cancel signal */
	signal?: AbortSignal;
	/** called for every HTTP attempt (metrics, benchmarks) */
	onAttempt?: (info: { method: string; url: string; attempt: number }) => void;
}

export interface JsonResponse<T = unknown> {
	status: number;
	body: T;
	headers: Record<string, string | string[] | undefined>;
	url: string;
}

/** A POST's outcome. A definite rejection is thrown as GatewayHttpError instead. */
export type SubmitOutcome =
	| { kind: 'accepted'; status: number; body: Record<string, unknown>; headers: JsonResponse['headers']; url: string }
	| { kind: 'uncertain'; reason: string; status?: number; body?: unknown; url: string };

export interface StreamResponse {
	status: number;
	headers: JsonResponse['headers'];
	contentType: string;
	contentLength?: number;
	body: Readable;
	url: string;
}

let sharedDispatcher: Dispatcher | undefined;
/**
 * One pooled, proxy-aware dispatcher per process; connections are pooled per origin.
 * `proxyTunnel: false`: plain-http targets go to an HTTP_PROXY as absolute-form requests, as curl and
 * browsers do; undici's default (CONNECT for every target) fails on forward proxies that only allow
 * CONNECT to port 443. https targets are still tunnelled with CONNECT.
 */
export function getDispatcher(): Dispatcher {
	sharedDispatcher ??= new EnvHttpProxyAgent({ keepAliveTimeout: 10_000, keepAliveMaxTimeout: 60_000, proxyTunnel: false });
	return sharedDispatcher;
}
export function setDispatcher(d: Dispatcher | undefined): void {
	sharedDispatcher = d;
}

const MAX_JSON_BYTES = 96 * 1024 * 1024;
const MAX_PUBLIC_REDIRECTS = 3;

function header(headers: JsonResponse['headers'], name: string): string | undefined {
	const v = headers[name];
	return Array.isArray(v) ? v[0] : v;
}

/** setTimeout fires at once for delays above 2^31-1 ms; longer sleeps are clamped to that (~24.8 days). */
const MAX_TIMER_MS = 2_147_483_647;

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
	return new Promise((resolve, reject) => {
		if (signal?.aborted) return reject(new GatewayNetworkError('Execution cancelled', 'CANCELLED', false, true));
		const t = setTimeout(() => {
			signal?.removeEventListener('abort', onAbort);
			resolve();
		}, Math.min(Math.max(0, ms), MAX_TIMER_MS));
		const onAbort = () => {
			clearTimeout(t);
			reject(new GatewayNetworkError('Execution cancelled', 'CANCELLED', false, true));
		};
		signal?.addEventListener('abort', onAbort, { once: true });
	});
}

/**
 * Nodes build multipart bodies with Node's global FormData (they may not import undici). Node 20 bundles an
 * older undici whose FormData this undici's `request` does not recognise ("action is not a function"), so a
 * form that is not ours is copied entry by entry (strings and File/Blob parts, with their file names).
 */
function toUndiciForm(form: FormData | globalThis.FormData): FormData {
	if (form instanceof UndiciFormData) return form;
	const out = new UndiciFormData();
	for (const [name, value] of (form as globalThis.FormData).entries()) {
		if (typeof value === 'string') out.append(name, value);
		else out.append(name, value as Blob, (value as File).name);
	}
	return out;
}

const NOT_SENT_CODES = new Set(['UND_ERR_INVALID_ARG', 'ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'CERT_HAS_EXPIRED', 'DEPTH_ZERO_SELF_SIGNED_CERT']);

export class GatewayTransport {
	readonly timeouts: Timeouts;
	private readonly retry: RetryPolicy;

	constructor(private readonly cfg: TransportConfig) {
		this.timeouts = { ...DEFAULT_TIMEOUTS, ...stripUndefined(cfg.timeouts ?? {}) };
		this.retry = { ...DEFAULT_RETRY, ...stripUndefined(cfg.retry ?? {}) };
	}

	get signal(): AbortSignal | undefined {
		return this.cfg.signal;
	}

	root(kind: OriginKind): GatewayRoot {
		return kind === 'video' && this.cfg.video ? this.cfg.video : this.cfg.base;
	}

	/** Which trusted origin a URL belongs to; undefined for any other origin. */
	trustedKind(url: string): OriginKind | undefined {
		let origin: string;
		try {
			origin = new URL(url).origin;
		} catch {
			return undefined;
		}
		if (origin === this.cfg.base.origin) return 'base';
		if (this.cfg.video && origin === this.cfg.video.origin) return 'video';
		return undefined;
	}

	/** `/v1/...` on the chosen origin, or an absolute URL that must be on a trusted origin. */
	resolve(target: string, kind: OriginKind = 'base'): string {
		if (target.startsWith('/')) return composeUrl(this.root(kind), target);
		if (!this.trustedKind(target)) {
			throw new SafetyError(`Refusing to send the API key to ${safeOrigin(target)}: it is not the gateway origin of the credential`);
		}
		return target;
	}

	redact(text: string): string {
		return redact(text, [this.cfg.apiKey]);
	}

	/** A body handed back in an outcome (nodes may put it in an output item): the key replaced everywhere in it. */
	private redactBody<T>(body: T): T {
		if (body === undefined) return body;
		if (typeof body === 'string') return this.redact(body) as T;
		const json = JSON.stringify(body);
		const clean = this.redact(json);
		return clean === json ? body : (JSON.parse(clean) as T);
	}

	/** A POST on an execution that is already cancelled is not sent at all, and must not look uncertain. */
	private throwIfCancelled(): void {
		if (this.cfg.signal?.aborted) throw new GatewayNetworkError('Execution cancelled', 'CANCELLED', false, true);
	}

	private authHeaders(): Record<string, string> {
		return { authorization: `Bearer ${this.cfg.apiKey}` };
	}

	private signalFor(timeoutMs: number): AbortSignal {
		const t = AbortSignal.timeout(timeoutMs);
		return this.cfg.signal ? AbortSignal.any([t, this.cfg.signal]) : t;
	}

	private networkError(err: unknown, method: string, url: string, timeoutMs: number, sent: boolean): GatewayNetworkError {
		if (this.cfg.signal?.aborted) return new GatewayNetworkError('Execution cancelled', 'CANCELLED', sent, true);
		if (err instanceof GatewayNetworkError) return err;
		const e = err as { name?: string; code?: string; message?: string; cause?: { code?: string } };
		const code = e.code ?? e.cause?.code;
		if (e.name === 'TimeoutError' || e.name === 'AbortError' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
			return new GatewayNetworkError(`${method} ${pathOf(url)} timed out after ${Math.round(timeoutMs / 1000)} s`, 'TIMEOUT', true);
		}
		const maybeDelivered = !(code && NOT_SENT_CODES.has(code));
		return new GatewayNetworkError(this.redact(`${method} ${pathOf(url)} failed: ${e.message ?? String(err)}${code ? ` (${code})` : ''}`), code, maybeDelivered);
	}

	private async send(method: string, url: string, headers: Record<string, string>, body: string | FormData | undefined, timeoutMs: number, attempt: number): Promise<Dispatcher.ResponseData> {
		this.cfg.onAttempt?.({ method, url, attempt });
		return request(url, {
			method: method as Dispatcher.HttpMethod,
			headers,
			body,
			signal: this.signalFor(timeoutMs),
			dispatcher: getDispatcher(),
			headersTimeout: timeoutMs,
			bodyTimeout: timeoutMs,
		});
	}

	private async readJson(res: Dispatcher.ResponseData, method: string, url: string): Promise<{ json: unknown; text: string; parsed: boolean }> {
		const len = Number(header(res.headers, 'content-length') ?? 0);
		if (len > MAX_JSON_BYTES) {
			res.body.destroy();
			throw new GatewayNetworkError(`${method} ${pathOf(url)}: response of ${len} bytes is too large for JSON`, 'TOO_LARGE', true);
		}
		const text = await res.body.text();
		if (text.trim() === '') return { json: undefined, text, parsed: false };
		try {
			return { json: JSON.parse(text), text, parsed: true };
		} catch {
			return { json: undefined, text, parsed: false };
		}
	}

	private httpError(status: number, json: unknown, text: string, method: string, url: string, headers: JsonResponse['headers']): GatewayHttpError {
		const ex = extractGatewayError(json, status, text);
		let message = ex.message;
		if (status >= 300 && status < 400) {
			message = `redirect (HTTP ${status}) to ${safeOrigin(header(headers, 'location') ?? '')} was not followed: authenticated calls never follow redirects`;
		}
		return new GatewayHttpError(status, this.redact(message), ex.code, method, pathOf(url), parseRetryAfter(headers['retry-after']));
	}

	/**
	 * Authenticated GET returning JSON. Retried on network failure, 429 and 5xx with back-off and
	 * Retry-After, within `deadline` (epoch ms). Other statuses throw GatewayHttpError at once.
	 */
	async getJson<T = unknown>(target: string, opts: { origin?: OriginKind; timeout?: TimeoutKind; deadline?: number; auth?: boolean; /** 1 = no internal retry (a poller that owns back-off) */ maxAttempts?: number } = {}): Promise<JsonResponse<T>> {
		const maxAttempts = opts.maxAttempts ?? this.retry.maxAttempts;
		const url = opts.auth === false ? this.resolvePublic(target, opts.origin) : this.resolve(target, opts.origin);
		const timeoutMs = this.timeouts[opts.timeout ?? 'query'];
		const headers = { accept: 'application/json', ...(opts.auth === false ? {} : this.authHeaders()) };
		let lastError: Error | undefined;
		for (let attempt = 1; attempt <= maxAttempts; attempt++) {
			let retryAfterMs: number | undefined;
			const io = await this.io('GET', url, timeoutMs, async () => {
				const res = await this.send('GET', url, headers, undefined, remaining(timeoutMs, opts.deadline), attempt);
				return { res, ...(await this.readJson(res, 'GET', url)) };
			});
			if (!io.ok) {
				if (io.error.cancelled) throw io.error;
				lastError = io.error;
			} else {
				const { res, json, text, parsed } = io.value;
				if (res.statusCode >= 200 && res.statusCode < 300) {
					if (parsed) return { status: res.statusCode, body: json as T, headers: res.headers, url };
					lastError = new GatewayNetworkError(`GET ${pathOf(url)}: answer is not valid JSON (${describeText(text)})`, 'BAD_JSON', true);
				} else {
					const err = this.httpError(res.statusCode, json, text, 'GET', url, res.headers);
					if (!isRetryableStatus(res.statusCode)) throw err;
					lastError = err;
					retryAfterMs = err.retryAfterMs;
				}
			}
			if (attempt === maxAttempts) break;
			const delay = backoffDelay(attempt, this.retry, retryAfterMs);
			if (!shouldWait(delay, this.retry, retryAfterMs, opts.deadline)) break;
			await sleep(delay, this.cfg.signal);
		}
		throw lastError ?? new Error(`GET ${pathOf(url)} failed`);
	}

	/**
	 * Runs one exchange and turns anything it throws into a GatewayNetworkError (the HTTP status is
	 * judged by the caller, outside any catch block, so typed errors are thrown where they are made).
	 */
	private async io<T>(method: string, url: string, timeoutMs: number, fn: () => Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: GatewayNetworkError }> {
		try {
			return { ok: true, value: await fn() };
		} catch (err) {
			return { ok: false, error: this.networkError(err, method, url, timeoutMs, true) };
		}
	}

	/** Public endpoints (`/api/pricing`, `/api/status`) live on the base origin and take no key. */
	private resolvePublic(target: string, kind: OriginKind = 'base'): string {
		return target.startsWith('/') ? composeUrl(this.root(kind), target) : target;
	}

	/**
	 * A paid POST. Never retried. Returns accepted (2xx JSON) or uncertain (timeout, reset,
	 * cancellation, 5xx without a task ID, unreadable 2xx, a redirect); throws GatewayHttpError when
	 * the gateway definitely rejected it, or GatewayNetworkError when it provably never left.
	 */
	async submit(target: string, body: { json?: unknown; form?: FormData | globalThis.FormData }, opts: { origin?: OriginKind; timeout?: TimeoutKind; headers?: Record<string, string> } = {}): Promise<SubmitOutcome> {
		const url = this.resolve(target, opts.origin);
		const timeoutMs = this.timeouts[opts.timeout ?? 'submit'];
		const headers: Record<string, string> = { accept: 'application/json', ...this.authHeaders(), ...(opts.headers ?? {}) };
		let payload: string | FormData | undefined;
		if (body.form) payload = toUndiciForm(body.form);
		else {
			headers['content-type'] = 'application/json';
			payload = JSON.stringify(body.json ?? {});
		}
		this.throwIfCancelled();
		let res: Dispatcher.ResponseData;
		try {
			res = await this.send('POST', url, headers, payload, timeoutMs, 1);
		} catch (err) {
			const ne = this.networkError(err, 'POST', url, timeoutMs, true);
			if (!ne.maybeDelivered) throw ne;
			return { kind: 'uncertain', reason: `${ne.message}; the gateway may have accepted it`, url };
		}
		let parsed: { json: unknown; text: string; parsed: boolean };
		try {
			parsed = await this.readJson(res, 'POST', url);
		} catch (err) {
			const ne = this.networkError(err, 'POST', url, timeoutMs, true);
			return { kind: 'uncertain', reason: `${ne.message} while reading the answer (HTTP ${res.statusCode})`, status: res.statusCode, url };
		}
		const status = res.statusCode;
		const obj = parsed.json && typeof parsed.json === 'object' ? (parsed.json as Record<string, unknown>) : undefined;
		if (status >= 200 && status < 300) {
			if (obj) return { kind: 'accepted', status, body: obj, headers: res.headers, url };
			return { kind: 'uncertain', reason: `HTTP ${status} with an unreadable body (${describeText(parsed.text)})`, status, body: this.redact(parsed.text).slice(0, 200), url };
		}
		if (status >= 300 && status < 400) {
			return { kind: 'uncertain', reason: this.httpError(status, obj, parsed.text, 'POST', url, res.headers).message, status, url };
		}
		if (status >= 500) {
			if (obj && findTaskId(obj)) return { kind: 'accepted', status, body: obj, headers: res.headers, url };
			const ex = extractGatewayError(obj, status, parsed.text);
			return { kind: 'uncertain', reason: this.redact(`HTTP ${status} without a task ID: ${ex.message}`), status, body: this.redactBody(obj), url };
		}
		throw this.httpError(status, obj, parsed.text, 'POST', url, res.headers);
	}

	/**
	 * A POST whose answer is read as a stream (SSE). Same outcome rules as submit. `idleTimeoutMs`
	 * (default `timeouts.streamIdle`) is the longest gap between two body chunks.
	 */
	async postStream(target: string, json: unknown, opts: { origin?: OriginKind; timeout?: TimeoutKind; headers?: Record<string, string>; idleTimeoutMs?: number } = {}): Promise<StreamResponse | Extract<SubmitOutcome, { kind: 'uncertain' }>> {
		const url = this.resolve(target, opts.origin);
		const timeoutMs = this.timeouts[opts.timeout ?? 'text'];
		const headers = { accept: 'text/event-stream, application/json', 'content-type': 'application/json', ...this.authHeaders(), ...(opts.headers ?? {}) };
		this.throwIfCancelled();
		let res: Dispatcher.ResponseData;
		try {
			this.cfg.onAttempt?.({ method: 'POST', url, attempt: 1 });
			res = await request(url, {
				method: 'POST',
				headers,
				body: JSON.stringify(json),
				signal: this.cfg.signal,
				dispatcher: getDispatcher(),
				headersTimeout: timeoutMs,
				bodyTimeout: opts.idleTimeoutMs && opts.idleTimeoutMs > 0 ? opts.idleTimeoutMs : this.timeouts.streamIdle,
			});
		} catch (err) {
			const ne = this.networkError(err, 'POST', url, timeoutMs, true);
			if (!ne.maybeDelivered || ne.cancelled) throw ne;
			return { kind: 'uncertain', reason: ne.message, url };
		}
		if (res.statusCode >= 200 && res.statusCode < 300) {
			const contentType = header(res.headers, 'content-type') ?? '';
			return { status: res.statusCode, headers: res.headers, contentType, body: res.body, url };
		}
		const parsed = await this.readJson(res, 'POST', url).catch(() => ({ json: undefined, text: '', parsed: false }));
		if (res.statusCode >= 500 || (res.statusCode >= 300 && res.statusCode < 400)) {
			const ex = extractGatewayError(parsed.json, res.statusCode, parsed.text);
			return { kind: 'uncertain', reason: this.redact(`HTTP ${res.statusCode}: ${ex.message}`), status: res.statusCode, body: this.redactBody(parsed.json), url };
		}
		throw this.httpError(res.statusCode, parsed.json, parsed.text, 'POST', url, res.headers);
	}

	/**
	 * Opens a download. `withKey` only on a trusted origin and never following redirects;
	 * without the key, up to three redirects are followed (the key is never attached).
	 * GETs are retried on network failure, 429 and 5xx before the body starts.
	 */
	async download(target: string, opts: { withKey: boolean; origin?: OriginKind; timeout?: TimeoutKind; deadline?: number }): Promise<StreamResponse> {
		let url = opts.withKey ? this.resolve(target, opts.origin) : this.resolvePublic(target, opts.origin);
		if (!/^https?:\/\//i.test(url)) throw new SafetyError(`Result address "${safeOrigin(url)}" is not an http(s) URL`);
		const timeoutMs = this.timeouts[opts.timeout ?? 'imageDownload'];
		let lastError: Error | undefined;
		for (let attempt = 1; attempt <= this.retry.maxAttempts; attempt++) {
			let retryAfterMs: number | undefined;
			for (let hop = 0; ; hop++) {
				const headers: Record<string, string> = opts.withKey ? this.authHeaders() : {};
				this.cfg.onAttempt?.({ method: 'GET', url, attempt });
				const hopUrl = url;
				const io = await this.io('GET', hopUrl, timeoutMs, () =>
					request(hopUrl, {
						method: 'GET',
						headers,
						signal: this.cfg.signal,
						dispatcher: getDispatcher(),
						headersTimeout: timeoutMs,
						bodyTimeout: timeoutMs,
					}),
				);
				if (!io.ok) {
					if (io.error.cancelled) throw io.error;
					lastError = io.error;
					break;
				}
				const res = io.value;
				const status = res.statusCode;
				if (status >= 300 && status < 400) {
					const location = header(res.headers, 'location');
					res.body.resume();
					if (opts.withKey || !location || hop >= MAX_PUBLIC_REDIRECTS) {
						throw this.httpError(status, undefined, '', 'GET', url, res.headers);
					}
					const next = new URL(location, url);
					if (next.protocol !== 'http:' && next.protocol !== 'https:') {
						throw new SafetyError(`Result address redirected to a ${next.protocol.replace(':', '')} URL; only http(s) is followed`);
					}
					url = next.toString();
					continue;
				}
				if (status >= 200 && status < 300) {
					const len = header(res.headers, 'content-length');
					return {
						status,
						headers: res.headers,
						contentType: header(res.headers, 'content-type') ?? '',
						contentLength: len !== undefined ? Number(len) : undefined,
						body: res.body,
						url,
					};
				}
				const { json, text } = await this.readJson(res, 'GET', url).catch(() => ({ json: undefined, text: '' }));
				const err = this.httpError(status, json, text, 'GET', url, res.headers);
				if (!isRetryableStatus(status)) throw err;
				lastError = err;
				retryAfterMs = err.retryAfterMs;
				break;
			}
			if (attempt === this.retry.maxAttempts) break;
			const delay = backoffDelay(attempt, this.retry, retryAfterMs);
			if (!shouldWait(delay, this.retry, retryAfterMs, opts.deadline)) break;
			await sleep(delay, this.cfg.signal);
		}
		throw lastError ?? new Error(`GET ${pathOf(url)} failed`);
	}

	sleep(ms: number): Promise<void> {
		return sleep(ms, this.cfg.signal);
	}
}

export function findTaskId(body: Record<string, unknown>): string | undefined {
	const data = body.data && typeof body.data === 'object' && !Array.isArray(body.data) ? (body.data as Record<string, unknown>) : undefined;
	for (const v of [body.task_id, body.id, data?.task_id, data?.id]) {
		if (typeof v === 'string' && /^[A-Za-z0-9_-]{1,200}$/.test(v)) return v;
	}
	return undefined;
}

function remaining(timeoutMs: number, deadline?: number): number {
	if (deadline === undefined) return timeoutMs;
	return Math.max(1, Math.min(timeoutMs, deadline - Date.now()));
}

function pathOf(url: string): string {
	try {
		return new URL(url).pathname;
	} catch {
		return '(invalid URL)';
	}
}

function safeOrigin(url: string): string {
	try {
		return new URL(url).origin;
	} catch {
		return '(invalid address)';
	}
}

function describeText(text: string): string {
	const t = text.trim();
	if (!t) return 'empty';
	if (t.startsWith('<')) return 'HTML';
	return `${t.length} bytes`;
}

function stripUndefined<T extends object>(o: T): Partial<T> {
	return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
