/** Retry decisions for idempotent GETs. POSTs are never retried (see submit.ts). */
import { scaled } from './clock';

export interface RetryPolicy {
	maxAttempts: number;
	baseDelayMs: number;
	maxDelayMs: number;
	/**
	 * Without a deadline, a Retry-After longer than this ends the retries at once (the error keeps
	 * retryAfterMs) instead of holding the execution for as long as the server asks. Default 60 s.
	 */
	maxRetryAfterMs?: number;
}

export const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 6, baseDelayMs: 500, maxDelayMs: 20_000, maxRetryAfterMs: 60_000 };

/** Whether to wait `delayMs` before the next attempt: not past the deadline, and not an unbounded server-requested wait. */
export function shouldWait(delayMs: number, policy: RetryPolicy, retryAfterMs: number | undefined, deadline: number | undefined, now = Date.now()): boolean {
	if (deadline !== undefined) return now + delayMs < deadline;
	return retryAfterMs === undefined || retryAfterMs <= (policy.maxRetryAfterMs ?? DEFAULT_RETRY.maxRetryAfterMs!);
}

export function isRetryableStatus(status: number): boolean {
	return status === 429 || (status >= 500 && status <= 599);
}

/** Retry-After as delta-seconds or an HTTP date; undefined when absent or unparsable. */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
	const v = Array.isArray(value) ? value[0] : value;
	if (v === undefined || v.trim() === '') return undefined;
	if (/^\d+(\.\d+)?$/.test(v.trim())) return Math.round(Number(v.trim()) * 1000);
	const date = Date.parse(v);
	if (Number.isNaN(date)) return undefined;
	return Math.max(0, date - now);
}

/**
 * Exponential back-off with full jitter, never below what the server asked for: the wait before the next attempt
 * (on the clock's time scale, see clock.ts; 1 outside tests).
 */
export function backoffDelay(attempt: number, policy: RetryPolicy, retryAfterMs?: number, random = Math.random): number {
	const exp = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempt - 1));
	const jittered = exp / 2 + random() * (exp / 2);
	return scaled(Math.max(retryAfterMs ?? 0, Math.round(jittered)));
}
