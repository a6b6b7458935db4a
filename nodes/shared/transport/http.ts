/**
 * The one module that talks HTTP. Every node goes through GatewayTransport:
 * key pinning, no redirects on authenticated calls, per-kind timeouts, GET-only retries,
 * POST outcome classification, proxies from the environment, pooled connections.
 * Every answer is bounded in time and size, and every text it hands out (JSON bodies, error messages, headers,
 * text streams) has the key and the other credential secrets redacted already.
 */
import { EnvHttpProxyAgent, FormData as UndiciFormData, request, type Dispatcher, type FormData } from 'undici';
import type { Readable } from 'node:stream';
import { GatewayHttpError, GatewayNetworkError, SafetyError, extractGatewayError } from '../errors';
import { composeUrl, type GatewayRoot } from './baseUrl';
import { BodyError, GuardedBody, discard, mib, readCapped } from './body';
import { redactorFor, type Redactor } from './redact';
import { markDispatched, markRejected } from './spend';
import { DEFAULT_RETRY, backoffDelay, isRetryableStatus, parseRetryAfter, shouldWait, type RetryPolicy } from './retry';
import { DEFAULT_TIMEOUTS, type TimeoutKind } from './timeouts';

export type OriginKind = 'base' | 'video';
export type Timeouts = Record<TimeoutKind, number>;

/** Size bounds of what the transport reads. */
export interface TransportLimits {
	/** largest JSON answer (2xx) read whole; default 64 MiB (a synchronous 4K image as Base64 fits) */
	jsonBytes: number;
	/** how much of an error answer (non-2xx) is read for its message; the rest is dropped; default 64 KiB */
	errorBytes: number;
	/** largest streamed text answer (SSE); default 64 MiB */
	streamBytes: number;
}

export const DEFAULT_LIMITS: TransportLimits = { jsonBytes: 64 * 1024 * 1024, errorBytes: 64 * 1024, streamBytes: 64 * 1024 * 1024 };

export interface TransportConfig {
	apiKey: string;
	/** other credential secrets, redacted like the key */
	secrets?: string[];
	limits?: Partial<TransportLimits>;
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
	/** bytes of this answer's body (Content-Length) */
	contentLength?: number;
	/** the body, bounded (deadline, idle, size, Content-Length); it ends with a BodyError when a bound is broken */
	body: Readable;
	url: string;
	/** a 206 answer to a Range request: which bytes of the whole it holds */
	range?: { start: number; end: number; total?: number };
}

export interface DownloadOptions {
	/** send the key: only on a trusted origin, and redirects are then never followed */
	withKey: boolean;
	origin?: OriginKind;
	/** which timeout bounds the whole download (headers and body, retries included); default imageDownload */
	timeout?: TimeoutKind;
	/** epoch ms: nothing of this download goes past it */
	deadline?: number;
	/** overall time of this download, default `timeouts[timeout]` */
	maxDurationMs?: number;
	/** longest gap between two body chunks; default `timeouts.downloadIdle` */
	idleMs?: number;
	/** a body (or declared Content-Length) larger than this fails with TOO_LARGE */
	maxBytes?: number;
	/** ask for the bytes from `start` on (Range), only if the file is still `ifRange` (an ETag or Last-Modified) */
	range?: { start: number; ifRange?: string };
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
	readonly limits: TransportLimits;
	private readonly retry: RetryPolicy;
	/** the one redaction of the key and the credential's other secrets */
	readonly redactor: Redactor;

	constructor(private readonly cfg: TransportConfig) {
		this.timeouts = { ...DEFAULT_TIMEOUTS, ...stripUndefined(cfg.timeouts ?? {}) };
		this.retry = { ...DEFAULT_RETRY, ...stripUndefined(cfg.retry ?? {}) };
		this.limits = { ...DEFAULT_LIMITS, ...stripUndefined(cfg.limits ?? {}) };
		this.redactor = redactorFor([cfg.apiKey, ...(cfg.secrets ?? [])]);
	}

	/** The back-off policy of GET retries (downloads resumed after a cut use it too). */
	get retryPolicy(): RetryPolicy {
		return this.retry;
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

	/** The path of an address for a message, redacted (a followed redirect's path may carry the key). */
	private path(url: string): string {
		return this.redact(pathOf(url));
	}

	/** The secrets every text from the gateway is redacted of (for error mappers that take a list). */
	get redactionSecrets(): string[] {
		return [this.cfg.apiKey, ...(this.cfg.secrets ?? [])];
	}

	/** The text with the key and the credential's other secrets redacted in every form they may take. */
	redact(text: string): string {
		return this.redactor.text(text);
	}

	/** A copy of any JSON-like value with every string in it redacted (the value itself when it holds no secret). */
	redactValue<T>(value: T): T {
		return this.redactor.value(value);
	}

	private redactHeaders(headers: JsonResponse['headers']): JsonResponse['headers'] {
		return this.redactor.value(headers);
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
			return new GatewayNetworkError(`${method} ${this.path(url)} timed out after ${Math.round(timeoutMs / 1000)} s`, 'TIMEOUT', true);
		}
		const maybeDelivered = !(code && NOT_SENT_CODES.has(code));
		return new GatewayNetworkError(this.redact(`${method} ${this.path(url)} failed: ${e.message ?? String(err)}${code ? ` (${code})` : ''}`), code, maybeDelivered);
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

	/**
	 * Reads a JSON answer with a byte cap counted while reading (chunked answers included). A 2xx answer larger
	 * than the cap fails (TOO_LARGE); of an error answer only the first `limits.errorBytes` are read. The text is
	 * redacted before it is parsed, so nothing built from it can hold the key.
	 */
	private async readJson(res: Dispatcher.ResponseData, method: string, url: string, maxBytes?: number): Promise<{ json: unknown; text: string; parsed: boolean }> {
		const ok = res.statusCode >= 200 && res.statusCode < 300;
		const cap = ok ? (maxBytes ?? this.limits.jsonBytes) : this.limits.errorBytes;
		const what = `${method} ${this.path(url)}`;
		const declared = Number(header(res.headers, 'content-length') ?? NaN);
		if (ok && declared > cap) {
			discard(res.body);
			throw new BodyError(`${what}: the answer of ${mib(declared)} is larger than the limit of ${mib(cap)}`, 'TOO_LARGE', 0, declared);
		}
		const { bytes } = await readCapped(res.body, cap, what, !ok);
		const text = this.redact(bytes.toString('utf8'));
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
		return new GatewayHttpError(status, this.redact(message), ex.code, method, this.path(url), parseRetryAfter(headers['retry-after']));
	}

	/** Refuses a redirect of a keyless download whose target carries the key, another secret or credentials. */
	private checkRedirectTarget(next: URL): void {
		if (next.username || next.password) throw new SafetyError('Result address redirected to an address with credentials in it; it was not followed');
		if (this.redact(next.toString()) !== next.toString() || this.redact(decodeURIComponentSafe(next.toString())) !== decodeURIComponentSafe(next.toString())) {
			throw new SafetyError('Result address redirected to an address that carries the API key; it was not followed');
		}
	}

	/**
	 * Authenticated GET returning JSON. Retried on network failure, 429 and 5xx with back-off and
	 * Retry-After, within `deadline` (epoch ms). Other statuses throw GatewayHttpError at once.
	 */
	async getJson<T = unknown>(
		target: string,
		opts: { origin?: OriginKind; timeout?: TimeoutKind; deadline?: number; auth?: boolean; /** 1 = no internal retry (a poller that owns back-off) */ maxAttempts?: number; /** default limits.jsonBytes */ maxBytes?: number } = {},
	): Promise<JsonResponse<T>> {
		const maxAttempts = opts.maxAttempts ?? this.retry.maxAttempts;
		const url = opts.auth === false ? this.resolvePublic(target, opts.origin) : this.resolve(target, opts.origin);
		const timeoutMs = this.timeouts[opts.timeout ?? 'query'];
		const headers = { accept: 'application/json', ...(opts.auth === false ? {} : this.authHeaders()) };
		let lastError: Error | undefined;
		for (let attempt = 1; attempt <= maxAttempts; attempt++) {
			let retryAfterMs: number | undefined;
			const io = await this.io('GET', url, timeoutMs, async () => {
				const res = await this.send('GET', url, headers, undefined, remaining(timeoutMs, opts.deadline), attempt);
				return { res, ...(await this.readJson(res, 'GET', url, opts.maxBytes)) };
			});
			if (!io.ok) {
				if (io.error.cancelled) throw io.error;
				// an answer too large is not a network failure: asking again gets the same answer
				if (io.error instanceof BodyError && io.error.failure === 'TOO_LARGE') throw io.error;
				lastError = io.error;
			} else {
				const { res, json, text, parsed } = io.value;
				if (res.statusCode >= 200 && res.statusCode < 300) {
					if (parsed) return { status: res.statusCode, body: json as T, headers: this.redactHeaders(res.headers), url };
					lastError = new GatewayNetworkError(`GET ${this.path(url)}: answer is not valid JSON (${describeText(text)})`, 'BAD_JSON', true);
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
		throw lastError ?? new Error(`GET ${this.path(url)} failed`);
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
	async submit(
		target: string,
		body: { json?: unknown; form?: FormData | globalThis.FormData },
		opts: { origin?: OriginKind; timeout?: TimeoutKind; headers?: Record<string, string>; /** default limits.jsonBytes */ maxBytes?: number } = {},
	): Promise<SubmitOutcome> {
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
			markDispatched();
			res = await this.send('POST', url, headers, payload, timeoutMs, 1);
		} catch (err) {
			const ne = this.networkError(err, 'POST', url, timeoutMs, true);
			if (!ne.maybeDelivered) throw markRejected(ne);
			return { kind: 'uncertain', reason: `${ne.message}; the gateway may have accepted it`, url };
		}
		let parsed: { json: unknown; text: string; parsed: boolean };
		try {
			parsed = await this.readJson(res, 'POST', url, opts.maxBytes);
		} catch (err) {
			const ne = this.networkError(err, 'POST', url, timeoutMs, true);
			return { kind: 'uncertain', reason: `${ne.message} while reading the answer (HTTP ${res.statusCode})`, status: res.statusCode, url };
		}
		const status = res.statusCode;
		const obj = parsed.json && typeof parsed.json === 'object' ? (parsed.json as Record<string, unknown>) : undefined;
		const answerHeaders = this.redactHeaders(res.headers);
		if (status >= 200 && status < 300) {
			if (obj) return { kind: 'accepted', status, body: obj, headers: answerHeaders, url };
			return { kind: 'uncertain', reason: `HTTP ${status} with an unreadable body (${describeText(parsed.text)})`, status, body: parsed.text.slice(0, 200), url };
		}
		if (status >= 300 && status < 400) {
			return { kind: 'uncertain', reason: this.httpError(status, obj, parsed.text, 'POST', url, res.headers).message, status, url };
		}
		if (status >= 500) {
			if (obj && findTaskId(obj)) return { kind: 'accepted', status, body: obj, headers: answerHeaders, url };
			if (neverProcessed(obj, status)) throw markRejected(this.httpError(status, obj, parsed.text, 'POST', url, res.headers));
			const ex = extractGatewayError(obj, status, parsed.text);
			return { kind: 'uncertain', reason: `HTTP ${status} without a task ID: ${ex.message}`, status, body: obj, url };
		}
		throw markRejected(this.httpError(status, obj, parsed.text, 'POST', url, res.headers));
	}

	/**
	 * A POST whose answer is read as a stream (SSE). Same outcome rules as submit. `idleTimeoutMs`
	 * (default `timeouts.streamIdle`) is the longest gap between two body chunks, `maxDurationMs` (default
	 * `timeouts.streamTotal`) the longest the whole answer may take, `maxBytes` (default `limits.streamBytes`) its
	 * size. The body handed out is redacted text: a key split across chunks is caught too.
	 */
	async postStream(
		target: string,
		json: unknown,
		opts: { origin?: OriginKind; timeout?: TimeoutKind; headers?: Record<string, string>; idleTimeoutMs?: number; maxDurationMs?: number; maxBytes?: number } = {},
	): Promise<StreamResponse | Extract<SubmitOutcome, { kind: 'uncertain' }>> {
		const url = this.resolve(target, opts.origin);
		const timeoutMs = this.timeouts[opts.timeout ?? 'text'];
		const idleMs = opts.idleTimeoutMs && opts.idleTimeoutMs > 0 ? opts.idleTimeoutMs : this.timeouts.streamIdle;
		const deadline = Date.now() + (opts.maxDurationMs && opts.maxDurationMs > 0 ? opts.maxDurationMs : this.timeouts.streamTotal);
		const headers = { accept: 'text/event-stream, application/json', 'content-type': 'application/json', ...this.authHeaders(), ...(opts.headers ?? {}) };
		this.throwIfCancelled();
		let res: Dispatcher.ResponseData;
		try {
			markDispatched();
			this.cfg.onAttempt?.({ method: 'POST', url, attempt: 1 });
			res = await request(url, {
				method: 'POST',
				headers,
				body: JSON.stringify(json),
				signal: this.cfg.signal,
				dispatcher: getDispatcher(),
				headersTimeout: Math.min(timeoutMs, Math.max(1, deadline - Date.now())),
				bodyTimeout: idleMs,
			});
		} catch (err) {
			const ne = this.networkError(err, 'POST', url, timeoutMs, true);
			if (!ne.maybeDelivered) throw markRejected(ne);
			if (ne.cancelled) throw ne;
			return { kind: 'uncertain', reason: ne.message, url };
		}
		if (res.statusCode >= 200 && res.statusCode < 300) {
			const answerHeaders = this.redactHeaders(res.headers);
			const contentType = header(answerHeaders, 'content-type') ?? '';
			const body = new GuardedBody(res.body, {
				what: `POST ${this.path(url)}`,
				deadline,
				idleMs,
				maxBytes: opts.maxBytes ?? this.limits.streamBytes,
				signal: this.cfg.signal,
				map: this.redactor.chunks().asBytes(),
			});
			return { status: res.statusCode, headers: answerHeaders, contentType, body, url: this.redact(url) };
		}
		const parsed = await this.readJson(res, 'POST', url).catch(() => ({ json: undefined, text: '', parsed: false }));
		if (neverProcessed(parsed.json, res.statusCode)) throw markRejected(this.httpError(res.statusCode, parsed.json, parsed.text, 'POST', url, res.headers));
		if (res.statusCode >= 500 || (res.statusCode >= 300 && res.statusCode < 400)) {
			const ex = extractGatewayError(parsed.json, res.statusCode, parsed.text);
			const reason = res.statusCode < 400 ? this.httpError(res.statusCode, parsed.json, parsed.text, 'POST', url, res.headers).message : `HTTP ${res.statusCode}: ${ex.message}`;
			return { kind: 'uncertain', reason, status: res.statusCode, body: parsed.json, url };
		}
		throw markRejected(this.httpError(res.statusCode, parsed.json, parsed.text, 'POST', url, res.headers));
	}

	/**
	 * Opens a download. `withKey` only on a trusted origin and never following redirects; without the key, up
	 * to three redirects are followed (http(s) only, the key is never attached). GETs are retried on network
	 * failure, 429 and 5xx before the body starts. The whole download (these retries and the body) ends by
	 * `maxDurationMs` (default: its kind's timeout) or `deadline`, whichever comes first; the body also ends after
	 * `idleMs` without a byte, past `maxBytes`, or short of its Content-Length, with a BodyError.
	 */
	async download(target: string, opts: DownloadOptions): Promise<StreamResponse> {
		let url = opts.withKey ? this.resolve(target, opts.origin) : this.resolvePublic(target, opts.origin);
		if (!/^https?:\/\//i.test(url)) throw new SafetyError(`Result address "${safeOrigin(url)}" is not an http(s) URL`);
		const timeoutMs = opts.maxDurationMs && opts.maxDurationMs > 0 ? opts.maxDurationMs : this.timeouts[opts.timeout ?? 'imageDownload'];
		const deadline = Math.min(Date.now() + timeoutMs, opts.deadline ?? Infinity);
		const idleMs = Math.min(opts.idleMs && opts.idleMs > 0 ? opts.idleMs : this.timeouts.downloadIdle, timeoutMs);
		let lastError: Error | undefined;
		for (let attempt = 1; attempt <= this.retry.maxAttempts; attempt++) {
			let retryAfterMs: number | undefined;
			for (let hop = 0; ; hop++) {
				const headers: Record<string, string> = opts.withKey ? this.authHeaders() : {};
				if (opts.range) {
					headers.range = `bytes=${opts.range.start}-`;
					if (opts.range.ifRange) headers['if-range'] = opts.range.ifRange;
				}
				this.cfg.onAttempt?.({ method: 'GET', url, attempt });
				const hopUrl = url;
				const left = Math.max(1, deadline - Date.now());
				const io = await this.io('GET', hopUrl, left, () =>
					request(hopUrl, {
						method: 'GET',
						headers,
						signal: this.cfg.signal,
						dispatcher: getDispatcher(),
						headersTimeout: left,
						bodyTimeout: idleMs,
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
					discard(res.body);
					if (opts.withKey || !location || hop >= MAX_PUBLIC_REDIRECTS) {
						throw this.httpError(status, undefined, '', 'GET', url, res.headers);
					}
					const next = new URL(location, url);
					if (next.protocol !== 'http:' && next.protocol !== 'https:') {
						throw new SafetyError(`Result address redirected to a ${next.protocol.replace(':', '')} URL; only http(s) is followed`);
					}
					this.checkRedirectTarget(next);
					url = next.toString();
					continue;
				}
				if (status >= 200 && status < 300) return this.openBody(res, url, deadline, idleMs, opts);
				const { json, text } = await this.readJson(res, 'GET', url).catch(() => ({ json: undefined, text: '' }));
				const err = this.httpError(status, json, text, 'GET', url, res.headers);
				if (!isRetryableStatus(status)) throw err;
				lastError = err;
				retryAfterMs = err.retryAfterMs;
				break;
			}
			if (attempt === this.retry.maxAttempts) break;
			const delay = backoffDelay(attempt, this.retry, retryAfterMs);
			if (!shouldWait(delay, this.retry, retryAfterMs, deadline)) break;
			await sleep(delay, this.cfg.signal);
		}
		throw lastError ?? new Error(`GET ${this.path(url)} failed`);
	}

	/** A 2xx download answer: its size checked against the cap at once, its body guarded. */
	private openBody(res: Dispatcher.ResponseData, url: string, deadline: number, idleMs: number, opts: DownloadOptions): StreamResponse {
		const len = header(res.headers, 'content-length');
		const contentLength = len !== undefined && /^\d+$/.test(len.trim()) ? Number(len) : undefined;
		const what = `GET ${this.path(url)}`;
		let range: StreamResponse['range'];
		if (res.statusCode === 206) {
			const m = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(header(res.headers, 'content-range')?.trim() ?? '');
			if (m) range = { start: Number(m[1]), end: Number(m[2]), total: m[3] === '*' ? undefined : Number(m[3]) };
		}
		const total = range?.total ?? contentLength;
		if (opts.maxBytes !== undefined && total !== undefined && total > opts.maxBytes) {
			discard(res.body);
			throw new BodyError(`${what}: the file of ${mib(total)} is larger than the limit of ${mib(opts.maxBytes)}`, 'TOO_LARGE', 0, total);
		}
		const maxBytes = opts.maxBytes !== undefined ? opts.maxBytes - (range?.start ?? 0) : undefined;
		const body = new GuardedBody(res.body, { what, deadline, idleMs, maxBytes, expectedBytes: contentLength, signal: this.cfg.signal });
		const headers = this.redactHeaders(res.headers);
		return {
			status: res.statusCode,
			headers,
			contentType: header(headers, 'content-type') ?? '',
			contentLength,
			body,
			url: this.redact(url),
			...(range ? { range } : {}),
		};
	}

	sleep(ms: number): Promise<void> {
		return sleep(ms, this.cfg.signal);
	}
}

/** Error codes of a 5xx answer that say the request never reached a model (no channel for it in the key's group). */
const NEVER_PROCESSED_CODES = new Set(['model_not_found']);

function neverProcessed(body: unknown, status: number): boolean {
	if (status < 500 || !body || typeof body !== 'object') return false;
	const code = extractGatewayError(body, status).code;
	return code !== undefined && NEVER_PROCESSED_CODES.has(code);
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

function decodeURIComponentSafe(text: string): string {
	try {
		return decodeURIComponent(text);
	} catch {
		return text;
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
