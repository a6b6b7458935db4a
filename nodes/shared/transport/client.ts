/**
 * What every request of the transport shares: the credential's origins (the key goes to them alone), the one `send`
 * (pooled, proxy-aware, never following a redirect, bounded in time, cancelled with the execution), and the
 * redaction of the key where a byte of the gateway enters: JSON bodies are decoded in the charset they declare,
 * redacted before they are parsed and their parsed value again after, headers and error messages before anyone sees
 * them. The operations (get.ts, submit.ts, stream.ts, download.ts) build on it.
 */
import { createHash } from 'node:crypto';
import { request, type Dispatcher, type FormData } from 'undici';
import type { Readable } from 'node:stream';
import { GatewayHttpError, GatewayNetworkError, SafetyError, extractGatewayError } from '../errors';
import { composeUrl, type GatewayRoot } from './baseUrl';
import { BodyError, discard, mib, readCapped } from './body';
import { cancelledError, sleep } from './clock';
import { parseJsonBody, type ReadJson } from './jsonBody';
import { redactorFor, type Redactor } from './redact';
import { DEFAULT_RETRY, parseRetryAfter, type RetryPolicy } from './retry';
import { ssrfGuardFromEnv, type SsrfGuard } from './ssrf';
import { DEFAULT_TIMEOUTS, type TimeoutKind } from './timeouts';
import { getDispatcher, guardedDispatcher } from './dispatcher';
import { pathOf, safeOrigin } from './shown';

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

export const DEFAULT_LIMITS: TransportLimits = {
	jsonBytes: 64 * 1024 * 1024,
	errorBytes: 64 * 1024,
	streamBytes: 64 * 1024 * 1024,
};

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
	/** n8n's SSRF rule for result downloads; default: the settings of the environment (ssrf.ts) */
	ssrf?: SsrfGuard;
	/** the credential's Key's Group (a name or a multiplier): what every cost and cap count when a node gives none */
	keyGroup?: { ratio?: number; groupName?: string };
}

export type Headers = Record<string, string | string[] | undefined>;

export interface JsonResponse<T = unknown> {
	status: number;
	body: T;
	headers: Headers;
	url: string;
}

export interface StreamResponse {
	status: number;
	headers: Headers;
	contentType: string;
	/** bytes of this answer's body (Content-Length) */
	contentLength?: number;
	/** the body, bounded (deadline, idle, size, Content-Length); it ends with a BodyError when a bound is broken */
	body: Readable;
	url: string;
	/** a 206 answer to a Range request: which bytes of the whole it holds */
	range?: { start: number; end: number; total?: number };
}

export type { ReadJson } from './jsonBody';

/** A bound as timers take it: whole milliseconds, at least 1, rounded up. */
const wholeMs = (ms: number) => Math.max(1, Math.ceil(ms));

/** How long one exchange of `send` may take. */
export interface SendBounds {
	/** this request's attempt number (for onAttempt) */
	attempt: number;
	/** until the answer's headers arrive */
	headersMs: number;
	/** longest gap between two body chunks (default headersMs) */
	idleMs?: number;
	/** the whole exchange, headers and body, ends by headersMs: for answers read whole (a stream is bounded by its GuardedBody) */
	whole: boolean;
}

export function header(headers: Headers, name: string): string | undefined {
	const v = headers[name];
	return Array.isArray(v) ? v[0] : v;
}

const NOT_SENT_CODES = new Set([
	'UND_ERR_INVALID_ARG',
	'ECONNREFUSED',
	'ENOTFOUND',
	'EAI_AGAIN',
	'UND_ERR_CONNECT_TIMEOUT',
	'EHOSTUNREACH',
	'ENETUNREACH',
	'CERT_HAS_EXPIRED',
	'DEPTH_ZERO_SELF_SIGNED_CERT',
]);

export class GatewayClient {
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

	/** The credential's Key's Group, when it gives one. */
	get keyGroup(): { ratio?: number; groupName?: string } | undefined {
		return this.cfg.keyGroup;
	}

	/** Waits `ms` (a back-off or poll interval the caller computed), ended early by a cancellation. */
	sleep(ms: number): Promise<void> {
		return sleep(ms, this.cfg.signal);
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
			throw new SafetyError(
				`Refusing to send the API key to ${safeOrigin(target)}: it is not the gateway origin of the credential`,
			);
		}
		return target;
	}

	/**
	 * n8n's SSRF rule for a download of `url`, or undefined when it does not apply: the protection is off
	 * (N8N_SSRF_PROTECTION_ENABLED), or the address is on one of the credential's own origins, where the package's
	 * calls to the gateway go anyway. With it, the download checks the address before connecting and sends `via` the
	 * dispatcher that checks what the connection resolves.
	 */
	ssrfFor(url: string): { guard: SsrfGuard; via: Dispatcher } | undefined {
		const guard = this.cfg.ssrf ?? ssrfGuardFromEnv();
		if (!guard.enabled || this.trustedKind(url)) return undefined;
		return { guard, via: guardedDispatcher(guard) };
	}

	/** Public endpoints (`/api/pricing`, `/api/status`) and keyless downloads: any origin, never the key. */
	resolvePublic(target: string, kind: OriginKind = 'base'): string {
		return target.startsWith('/') ? composeUrl(this.root(kind), target) : target;
	}

	/**
	 * Which credential this is, without its key: a digest of the gateway origin and the key. What one credential's
	 * gateway sent (a thinking model's reasoning) is kept under it and never handed to another credential's calls.
	 */
	get credentialIdentity(): string {
		return createHash('sha256')
			.update(`${this.cfg.base.origin}\n${this.cfg.apiKey}`)
			.digest('hex')
			.slice(0, 32);
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

	/** The path of an address for a message, redacted (a followed redirect's path may carry the key). */
	path(url: string): string {
		return this.redact(pathOf(url));
	}

	redactHeaders(headers: Headers): Headers {
		return this.redactor.value(headers);
	}

	/** A POST on an execution that is already cancelled is not sent at all, and must not look uncertain. */
	throwIfCancelled(): void {
		if (this.cfg.signal?.aborted) throw cancelledError();
	}

	authHeaders(): Record<string, string> {
		return { authorization: `Bearer ${this.cfg.apiKey}` };
	}

	/**
	 * The one way a request leaves. Redirects are never followed here (undici's `request` follows none): a keyless
	 * download follows them itself, one hop at a time, each checked.
	 */
	send(
		method: string,
		url: string,
		headers: Record<string, string>,
		body: string | FormData | undefined,
		bounds: SendBounds,
		via: Dispatcher = getDispatcher(),
	): Promise<Dispatcher.ResponseData> {
		this.cfg.onAttempt?.({ method, url, attempt: bounds.attempt });
		// timers take whole milliseconds (a timeout option of 999.5, or 0.0001 s, is a bound all the same): rounded up
		const headersMs = wholeMs(bounds.headersMs);
		const idleMs = wholeMs(bounds.idleMs ?? bounds.headersMs);
		const timeout = bounds.whole ? AbortSignal.timeout(headersMs) : undefined;
		const signal =
			timeout && this.cfg.signal
				? AbortSignal.any([timeout, this.cfg.signal])
				: (timeout ?? this.cfg.signal);
		return request(url, {
			method: method as Dispatcher.HttpMethod,
			headers,
			body,
			signal,
			dispatcher: via,
			headersTimeout: headersMs,
			bodyTimeout: idleMs,
		});
	}

	/**
	 * Runs one exchange and turns anything it throws into a GatewayNetworkError (the HTTP status is
	 * judged by the caller, outside any catch block, so typed errors are thrown where they are made).
	 */
	async io<T>(
		method: string,
		url: string,
		timeoutMs: number,
		fn: () => Promise<T>,
	): Promise<{ ok: true; value: T } | { ok: false; error: GatewayNetworkError }> {
		try {
			return { ok: true, value: await fn() };
		} catch (err) {
			// a refusal by the package's own rules (n8n's SSRF rule) is no network failure: nothing was sent, nothing to retry
			if (err instanceof SafetyError) throw err;
			return { ok: false, error: this.networkError(err, method, url, timeoutMs, true) };
		}
	}

	networkError(
		err: unknown,
		method: string,
		url: string,
		timeoutMs: number,
		sent: boolean,
	): GatewayNetworkError {
		if (this.cfg.signal?.aborted) return cancelledError(sent);
		if (err instanceof GatewayNetworkError) return err;
		const e = err as { name?: string; code?: string; message?: string; cause?: { code?: string } };
		const code = e.code ?? e.cause?.code;
		if (
			e.name === 'TimeoutError' ||
			e.name === 'AbortError' ||
			code === 'UND_ERR_HEADERS_TIMEOUT' ||
			code === 'UND_ERR_BODY_TIMEOUT'
		) {
			return new GatewayNetworkError(
				`${method} ${this.path(url)} timed out after ${Math.round(timeoutMs / 1000)} s`,
				'TIMEOUT',
				true,
			);
		}
		const maybeDelivered = !(code && NOT_SENT_CODES.has(code));
		return new GatewayNetworkError(
			this.redact(
				`${method} ${this.path(url)} failed: ${e.message ?? String(err)}${code ? ` (${code})` : ''}`,
			),
			code,
			maybeDelivered,
		);
	}

	/**
	 * Reads a JSON answer with a byte cap counted while reading (chunked answers included). A 2xx answer larger
	 * than the cap fails (TOO_LARGE); of an error answer only the first `limits.errorBytes` are read. The text is
	 * decoded in the charset its Content-Type declares (a byte order mark decides; UTF-8 by default) and redacted
	 * before it is parsed, and the parsed value is redacted again (a JSON escape can make a form appear only once
	 * parsed), so nothing built from either can hold the key.
	 */
	async readJson(
		res: Dispatcher.ResponseData,
		method: string,
		url: string,
		maxBytes?: number,
	): Promise<ReadJson> {
		const ok = res.statusCode >= 200 && res.statusCode < 300;
		const cap = ok ? (maxBytes ?? this.limits.jsonBytes) : this.limits.errorBytes;
		const what = `${method} ${this.path(url)}`;
		const declared = Number(header(res.headers, 'content-length') ?? NaN);
		if (ok && declared > cap) {
			discard(res.body);
			throw new BodyError(
				`${what}: the answer of ${mib(declared)} is larger than the limit of ${mib(cap)}`,
				'TOO_LARGE',
				0,
				declared,
			);
		}
		const { bytes } = await readCapped(res.body, cap, what, !ok);
		return this.parseBody(bytes, header(res.headers, 'content-type'));
	}

	/** The one reader of a whole JSON body, whatever path it came by: see ./jsonBody.ts. */
	parseBody(bytes: Buffer, contentType: string | undefined): ReadJson {
		return parseJsonBody(this.redactor, bytes, contentType);
	}

	httpError(
		status: number,
		json: unknown,
		text: string,
		method: string,
		url: string,
		headers: Headers,
	): GatewayHttpError {
		const ex = extractGatewayError(json, status, text);
		let message = ex.message;
		if (status >= 300 && status < 400) {
			message = `redirect (HTTP ${status}) to ${safeOrigin(header(headers, 'location') ?? '')} was not followed: authenticated calls never follow redirects`;
		}
		return new GatewayHttpError(
			status,
			this.redact(message),
			ex.code === undefined ? undefined : this.redact(ex.code),
			method,
			this.path(url),
			parseRetryAfter(headers['retry-after']),
		);
	}
}

function stripUndefined<T extends object>(o: T): Partial<T> {
	return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
