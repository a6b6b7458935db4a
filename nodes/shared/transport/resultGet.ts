/**
 * Downloads of results: with the key only on a trusted origin and then never following a redirect; without it, a few
 * redirects followed hop by hop, each target checked (http(s) only, no credentials, never the key, and n8n's SSRF
 * rule when it is on: ssrf.ts). Retried through the GET retry loop (get.ts) before the body starts; the body is
 * handed on guarded (deadline, idle, size, length).
 */
import { SafetyError } from '../errors';
import { BodyError, GuardedBody, discard, mib } from './body';
import { alarm } from './clock';
import { safeOrigin } from './shown';
import { header, type GatewayClient, type OriginKind, type StreamResponse } from './client';
import { withRetries, type Attempt } from './get';
import { isRetryableStatus } from './retry';
import { SsrfBlockedError, withAddress } from './ssrf';
import type { TimeoutKind } from './timeouts';
import type { Dispatcher } from 'undici';

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

const MAX_PUBLIC_REDIRECTS = 3;

/** What every try and hop of one download shares: its first address, its end, its idle bound, its headers. */
interface DownloadPlan {
	url: string;
	deadline: number;
	idleMs: number;
	headers: Record<string, string>;
}

function planDownload(client: GatewayClient, target: string, opts: DownloadOptions): DownloadPlan {
	const url = opts.withKey
		? client.resolve(target, opts.origin)
		: client.resolvePublic(target, opts.origin);
	if (!/^https?:\/\//i.test(url))
		throw new SafetyError(`Result address "${safeOrigin(url)}" is not an http(s) URL`);
	const timeoutMs =
		opts.maxDurationMs && opts.maxDurationMs > 0
			? opts.maxDurationMs
			: client.timeouts[opts.timeout ?? 'imageDownload'];
	const deadline = Math.min(Date.now() + timeoutMs, opts.deadline ?? Infinity);
	const idleMs = Math.min(
		opts.idleMs && opts.idleMs > 0 ? opts.idleMs : client.timeouts.downloadIdle,
		timeoutMs,
	);
	const headers: Record<string, string> = opts.withKey ? client.authHeaders() : {};
	if (opts.range) {
		headers.range = `bytes=${opts.range.start}-`;
		if (opts.range.ifRange) headers['if-range'] = opts.range.ifRange;
	}
	return { url, deadline, idleMs, headers };
}

/** One hop's GET, after n8n's SSRF rule (the address and what it resolves to before connecting, and at connect time). */
function getHop(client: GatewayClient, hopUrl: string, plan: DownloadPlan, attempt: number) {
	const left = Math.max(1, plan.deadline - Date.now());
	const ssrf = client.ssrfFor(hopUrl);
	return client.io('GET', hopUrl, left, async () => {
		try {
			if (ssrf) await within(left, ssrf.guard.check(hopUrl));
			return await client.send(
				'GET',
				hopUrl,
				plan.headers,
				undefined,
				{ attempt, headersMs: left, idleMs: plan.idleMs, whole: false },
				ssrf?.via,
			);
		} catch (err) {
			if (!(err instanceof SsrfBlockedError)) throw err;
			throw withAddress(err, `${client.redact(safeOrigin(hopUrl))}${client.path(hopUrl)}`, (t) =>
				client.redact(t),
			);
		}
	});
}

/**
 * Opens a download. `withKey` only on a trusted origin and never following redirects; without the key, up
 * to three redirects are followed (http(s) only, the key is never attached). GETs are retried on network
 * failure, 429 and 5xx before the body starts. The whole download (these retries and the body) ends by
 * `maxDurationMs` (default: its kind's timeout) or `deadline`, whichever comes first; the body also ends after
 * `idleMs` without a byte, past `maxBytes`, or short of its Content-Length, with a BodyError.
 */
export async function download(
	client: GatewayClient,
	target: string,
	opts: DownloadOptions,
): Promise<StreamResponse> {
	const plan = planDownload(client, target, opts);
	let url = plan.url;
	return await withRetries(
		client,
		`GET ${client.path(url)}`,
		{ maxAttempts: client.retryPolicy.maxAttempts, deadline: plan.deadline },
		async (attempt): Promise<Attempt<StreamResponse>> => {
			for (let hop = 0; ; hop++) {
				const io = await getHop(client, url, plan, attempt);
				if (!io.ok) {
					if (io.error.cancelled) throw io.error;
					return { retry: io.error };
				}
				const res = io.value;
				const status = res.statusCode;
				if (status >= 300 && status < 400) {
					const location = header(res.headers, 'location');
					discard(res.body);
					if (opts.withKey || !location || hop >= MAX_PUBLIC_REDIRECTS) {
						throw client.httpError(status, undefined, '', 'GET', url, res.headers);
					}
					url = nextHop(client, location, url);
					continue;
				}
				if (status >= 200 && status < 300)
					return { value: openBody(client, res, url, plan.deadline, plan.idleMs, opts) };
				const { json, text } = await client
					.readJson(res, 'GET', url)
					.catch(() => ({ json: undefined, text: '' }));
				const err = client.httpError(status, json, text, 'GET', url, res.headers);
				if (!isRetryableStatus(status)) throw err;
				return { retry: err, retryAfterMs: err.retryAfterMs };
			}
		},
	);
}

/** `p`, or a TimeoutError once `ms` have passed (a DNS look-up before connecting is bounded like the connection). */
function within<T>(ms: number, p: Promise<T>): Promise<T> {
	return new Promise<T>((resolve, reject) => {
		const timer = alarm(ms, () =>
			reject(Object.assign(new Error(`no answer within ${ms} ms`), { name: 'TimeoutError' })),
		);
		p.then(
			(v) => {
				timer.stop();
				resolve(v);
			},
			(err: unknown) => {
				timer.stop();
				reject(err);
			},
		);
	});
}

/** The target of a keyless download's redirect, refused when it is not http(s) or carries credentials or the key. */
function nextHop(client: GatewayClient, location: string, from: string): string {
	const next = new URL(location, from);
	if (next.protocol !== 'http:' && next.protocol !== 'https:') {
		throw new SafetyError(
			`Result address redirected to a ${next.protocol.replace(':', '')} URL; only http(s) is followed`,
		);
	}
	if (next.username || next.password)
		throw new SafetyError(
			'Result address redirected to an address with credentials in it; it was not followed',
		);
	const text = next.toString();
	if (
		client.redact(text) !== text ||
		client.redact(decodeURIComponentSafe(text)) !== decodeURIComponentSafe(text)
	) {
		throw new SafetyError(
			'Result address redirected to an address that carries the API key; it was not followed',
		);
	}
	return text;
}

/** A 2xx download answer: its size checked against the cap at once, its body guarded. */
function openBody(
	client: GatewayClient,
	res: Dispatcher.ResponseData,
	url: string,
	deadline: number,
	idleMs: number,
	opts: DownloadOptions,
): StreamResponse {
	const len = header(res.headers, 'content-length');
	const contentLength = len !== undefined && /^\d+$/.test(len.trim()) ? Number(len) : undefined;
	const what = `GET ${client.path(url)}`;
	let range: StreamResponse['range'];
	if (res.statusCode === 206) {
		const m = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(
			header(res.headers, 'content-range')?.trim() ?? '',
		);
		if (m)
			range = {
				start: Number(m[1]),
				end: Number(m[2]),
				total: m[3] === '*' ? undefined : Number(m[3]),
			};
	}
	const total = range?.total ?? contentLength;
	if (opts.maxBytes !== undefined && total !== undefined && total > opts.maxBytes) {
		discard(res.body);
		throw new BodyError(
			`${what}: the file of ${mib(total)} is larger than the limit of ${mib(opts.maxBytes)}`,
			'TOO_LARGE',
			0,
			total,
		);
	}
	const maxBytes = opts.maxBytes !== undefined ? opts.maxBytes - (range?.start ?? 0) : undefined;
	const body = new GuardedBody(res.body, {
		what,
		deadline,
		idleMs,
		maxBytes,
		expectedBytes: contentLength,
		signal: client.signal,
	});
	const headers = client.redactHeaders(res.headers);
	return {
		status: res.statusCode,
		headers,
		contentType: header(headers, 'content-type') ?? '',
		contentLength,
		body,
		url: client.redact(url),
		...(range ? { range } : {}),
	};
}

function decodeURIComponentSafe(text: string): string {
	try {
		return decodeURIComponent(text);
	} catch {
		return text;
	}
}
