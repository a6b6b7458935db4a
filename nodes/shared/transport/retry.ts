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

export const DEFAULT_RETRY: RetryPolicy = {
	maxAttempts: 6,
	baseDelayMs: 500,
	maxDelayMs: 20_000,
	maxRetryAfterMs: 60_000,
};

/** Whether to wait `delayMs` before the next attempt: not past the deadline, and not an unbounded server-requested wait. */
export function shouldWait(
	delayMs: number,
	policy: RetryPolicy,
	retryAfterMs: number | undefined,
	deadline: number | undefined,
	now = Date.now(),
): boolean {
	if (deadline !== undefined) return now + delayMs < deadline;
	return (
		retryAfterMs === undefined ||
		retryAfterMs <= (policy.maxRetryAfterMs ?? DEFAULT_RETRY.maxRetryAfterMs!)
	);
}

export function isRetryableStatus(status: number): boolean {
	return status === 429 || (status >= 500 && status <= 599);
}

const DAY = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const LONG_DAY = '(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)';
const MONTH = '(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)';
const TIME = '\\d{2}:\\d{2}:\\d{2}';
/** RFC 9110 §5.6.7 HTTP-date: IMF-fixdate, and the obsolete RFC 850 and asctime forms a recipient must accept. */
const HTTP_DATE = new RegExp(
	`^(?:${DAY}, \\d{2} ${MONTH} \\d{4} ${TIME} GMT|${LONG_DAY}, \\d{2}-${MONTH}-\\d{2} ${TIME} GMT|${DAY} ${MONTH} [ \\d]\\d ${TIME} \\d{4})$`,
);

/**
 * The year of an RFC 850 date's two digits, read at `now` as RFC 9110 §5.6.7 says: a year that would be more than 50
 * years in the future is the most recent past year with the same last two digits (so in 2026 `70` is 2070 and `77` 1977).
 */
export function rfc850Year(twoDigits: number, now = Date.now()): number {
	const current = new Date(now).getUTCFullYear();
	let year = current - (current % 100) + twoDigits;
	if (year > current + 50) year -= 100;
	else if (year <= current - 50) year += 100;
	return year;
}

/**
 * Retry-After as RFC 9110 §10.2.3 defines it: an HTTP-date (IMF-fixdate, RFC 850 with §5.6.7's two-digit-year rule, or
 * asctime) or a non-negative whole number of seconds of any size (one past what a number holds is read as the longest
 * wait, so the caller gives up saying the wait does not fit, never as "no Retry-After"). Anything else (a negative or
 * fractional number, a date in another form, text) is no Retry-After: undefined, and the caller's own back-off applies.
 */
export function parseRetryAfter(
	value: string | string[] | undefined,
	now = Date.now(),
): number | undefined {
	const v = (Array.isArray(value) ? value[0] : value)?.trim();
	if (!v) return undefined;
	if (/^\d+$/.test(v)) {
		const seconds = Number(v);
		return Number.isSafeInteger(seconds * 1000) ? seconds * 1000 : Number.MAX_SAFE_INTEGER;
	}
	if (!HTTP_DATE.test(v)) return undefined;
	const asctime = /^\w{3} (\w{3}) ([ \d]\d) (\S+) (\d{4})$/.exec(v);
	const date = asctime
		? Date.parse(`${asctime[2].trim()} ${asctime[1]} ${asctime[4]} ${asctime[3]} GMT`)
		: Date.parse(
				v.replace(
					/-(\w{3})-(\d{2}) /,
					(_, m: string, y: string) => ` ${m} ${rfc850Year(Number(y), now)} `,
				),
			);
	if (Number.isNaN(date)) return undefined;
	return Math.max(0, date - now);
}

/**
 * Exponential back-off with full jitter, never below what the server asked for: the wait before the next attempt
 * (on the clock's time scale, see clock.ts; 1 outside tests).
 */
export function backoffDelay(
	attempt: number,
	policy: RetryPolicy,
	retryAfterMs?: number,
	random = Math.random,
): number {
	const exp = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempt - 1));
	const jittered = exp / 2 + random() * (exp / 2);
	return scaled(Math.max(retryAfterMs ?? 0, Math.round(jittered)));
}
