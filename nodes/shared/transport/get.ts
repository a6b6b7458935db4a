/**
 * Idempotent GETs and their one retry loop. Every retried GET (JSON queries and downloads) goes through
 * `withRetries`: back-off with jitter, the server's Retry-After, the attempt limit and the deadline, which is checked
 * before each back-off sleep (no sleep that would end past it) and again after it (a timer that fired late, on a
 * loaded machine, must not start a request past the deadline).
 */
import { GatewayNetworkError } from '../errors';
import { BodyError } from './body';
import type { GatewayClient, JsonResponse, OriginKind } from './client';
import { describeText } from './shown';
import { backoffDelay, isRetryableStatus, shouldWait } from './retry';
import type { TimeoutKind } from './timeouts';

/** One attempt's result: the value, or the error to retry on (and the wait the server asked for). */
export type Attempt<T> = { value: T } | { retry: Error; retryAfterMs?: number };

/**
 * Runs `attempt` until it yields a value or throws, retrying what it hands back as retryable while attempts and time
 * are left. Throws the last retryable error when they run out.
 */
export async function withRetries<T>(
	client: GatewayClient,
	what: string,
	limits: { maxAttempts: number; deadline?: number },
	attempt: (n: number) => Promise<Attempt<T>>,
): Promise<T> {
	const policy = client.retryPolicy;
	let lastError: Error | undefined;
	for (let n = 1; n <= limits.maxAttempts; n++) {
		const r = await attempt(n);
		if ('value' in r) return r.value;
		lastError = r.retry;
		if (n === limits.maxAttempts) break;
		const delay = backoffDelay(n, policy, r.retryAfterMs);
		if (!shouldWait(delay, policy, r.retryAfterMs, limits.deadline)) break;
		await client.sleep(delay);
		if (limits.deadline !== undefined && Date.now() >= limits.deadline) break;
	}
	throw lastError ?? new Error(`${what} failed`);
}

export interface GetJsonOptions {
	origin?: OriginKind;
	timeout?: TimeoutKind;
	/** epoch ms: no attempt starts after it, and each attempt's timeout is cut to it */
	deadline?: number;
	/** false: a public endpoint, sent without the key */
	auth?: boolean;
	/** 1 = no internal retry (a poller that owns back-off) */
	maxAttempts?: number;
	/** default limits.jsonBytes */
	maxBytes?: number;
}

/**
 * Authenticated GET returning JSON. Retried on network failure, 429 and 5xx with back-off and
 * Retry-After, within `deadline` (epoch ms). Other statuses throw GatewayHttpError at once.
 */
export async function getJson<T = unknown>(
	client: GatewayClient,
	target: string,
	opts: GetJsonOptions = {},
): Promise<JsonResponse<T>> {
	const url =
		opts.auth === false
			? client.resolvePublic(target, opts.origin)
			: client.resolve(target, opts.origin);
	const timeoutMs = client.timeouts[opts.timeout ?? 'query'];
	const headers = {
		accept: 'application/json',
		...(opts.auth === false ? {} : client.authHeaders()),
	};
	const maxAttempts = opts.maxAttempts ?? client.retryPolicy.maxAttempts;
	return await withRetries(
		client,
		`GET ${client.path(url)}`,
		{ maxAttempts, deadline: opts.deadline },
		async (attempt): Promise<Attempt<JsonResponse<T>>> => {
			const io = await client.io('GET', url, timeoutMs, async () => {
				const res = await client.send('GET', url, headers, undefined, {
					attempt,
					headersMs: remaining(timeoutMs, opts.deadline),
					whole: true,
				});
				return { res, ...(await client.readJson(res, 'GET', url, opts.maxBytes)) };
			});
			if (!io.ok) {
				if (io.error.cancelled) throw io.error;
				// an answer too large is not a network failure: asking again gets the same answer
				if (io.error instanceof BodyError && io.error.failure === 'TOO_LARGE') throw io.error;
				return { retry: io.error };
			}
			const { res, json, text, parsed } = io.value;
			if (res.statusCode >= 200 && res.statusCode < 300) {
				if (parsed)
					return {
						value: {
							status: res.statusCode,
							body: json as T,
							headers: client.redactHeaders(res.headers),
							url,
						},
					};
				return {
					retry: new GatewayNetworkError(
						`GET ${client.path(url)}: answer is not valid JSON (${describeText(text)})`,
						'BAD_JSON',
						true,
					),
				};
			}
			const err = client.httpError(res.statusCode, json, text, 'GET', url, res.headers);
			if (!isRetryableStatus(res.statusCode)) throw err;
			return { retry: err, retryAfterMs: err.retryAfterMs };
		},
	);
}

function remaining(timeoutMs: number, deadline?: number): number {
	if (deadline === undefined) return timeoutMs;
	return Math.max(1, Math.min(timeoutMs, deadline - Date.now()));
}
