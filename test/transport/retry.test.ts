import {
	DEFAULT_RETRY,
	backoffDelay,
	isRetryableStatus,
	parseRetryAfter,
	shouldWait,
	type RetryPolicy,
} from '../../nodes/shared/transport/retry';
import { useRealTime } from '../time-scale';

const NOW = Date.UTC(2026, 10, 22, 15, 0, 0);

describe('parseRetryAfter', () => {
	it.each([
		['0', 0],
		['1', 1000],
		['5', 5000],
		[' 3 ', 3000],
		['120', 120_000],
	])('delta-seconds %j → %i ms', (v, ms) => {
		expect(parseRetryAfter(v, NOW)).toBe(ms);
	});

	// RFC 9110 §10.2.3: an HTTP-date or a non-negative whole number of seconds; anything else is no Retry-After
	it.each([
		'-1',
		'1.5',
		'+3',
		'3s',
		'0x10',
		'soon',
		'2026-11-26T08:00:09Z',
		'99999999999999999999',
	])('%j is no Retry-After (undefined: the caller backs off on its own)', (v) => {
		expect(parseRetryAfter(v, NOW)).toBeUndefined();
	});

	it('the obsolete HTTP-date forms a recipient must accept: RFC 850 and asctime', () => {
		const at = new Date(NOW + 7000);
		const day = at.toUTCString().slice(0, 3);
		const long = {
			Sun: 'Sunday',
			Mon: 'Monday',
			Tue: 'Tuesday',
			Wed: 'Wednesday',
			Thu: 'Thursday',
			Fri: 'Friday',
			Sat: 'Saturday',
		}[day]!;
		const [, dd, mon, yyyy, time] = at.toUTCString().split(' ');
		expect(parseRetryAfter(`${long}, ${dd}-${mon}-${yyyy.slice(2)} ${time} GMT`, NOW)).toBe(7000);
		expect(
			parseRetryAfter(`${day} ${mon} ${String(Number(dd)).padStart(2, ' ')} ${time} ${yyyy}`, NOW),
		).toBe(7000);
	});

	it('an HTTP date in the future → the time until then', () => {
		expect(parseRetryAfter(new Date(NOW + 10_000).toUTCString(), NOW)).toBe(10_000);
		expect(parseRetryAfter('Sun, 22 Nov 2026 15:00:07 GMT', NOW)).toBe(7000);
	});

	it('an HTTP date in the past → 0', () => {
		expect(parseRetryAfter('Sun, 22 Nov 2026 14:59:00 GMT', NOW)).toBe(0);
	});

	it('uses the first of repeated headers', () => {
		expect(parseRetryAfter(['2', '9'], NOW)).toBe(2000);
	});

	it.each([undefined, '', '   ', 'soon', 'later please'])(
		'absent or unparsable %j → undefined',
		(v) => {
			expect(parseRetryAfter(v as string | undefined, NOW)).toBeUndefined();
		},
	);

	it('a negative number is never a negative wait', () => {
		const v = parseRetryAfter('-5', NOW);
		expect(v === undefined || v >= 0).toBe(true);
	});
});

describe('backoffDelay', () => {
	// the back-off's numbers themselves, at real scale (nothing is slept here)
	useRealTime();
	const policy: RetryPolicy = { maxAttempts: 10, baseDelayMs: 500, maxDelayMs: 20_000 };

	it.each([
		[1, 250, 500],
		[2, 500, 1000],
		[3, 1000, 2000],
		[4, 2000, 4000],
		[6, 8000, 16_000],
		[7, 10_000, 20_000],
		[12, 10_000, 20_000],
	])('attempt %i: full jitter within [%i, %i]', (attempt, lo, hi) => {
		expect(backoffDelay(attempt, policy, undefined, () => 0)).toBe(lo);
		expect(backoffDelay(attempt, policy, undefined, () => 0.999999)).toBe(hi);
		for (let i = 0; i < 200; i++) {
			const d = backoffDelay(attempt, policy);
			expect(d).toBeGreaterThanOrEqual(lo);
			expect(d).toBeLessThanOrEqual(hi);
		}
	});

	it('never exceeds maxDelayMs on its own', () => {
		for (let a = 1; a <= 40; a++)
			expect(backoffDelay(a, policy, undefined, () => 1)).toBeLessThanOrEqual(policy.maxDelayMs);
	});

	it('never waits less than the server asked for, even beyond maxDelayMs', () => {
		expect(backoffDelay(1, policy, 3000, () => 0)).toBe(3000);
		expect(backoffDelay(1, policy, 45_000, () => 1)).toBe(45_000);
		expect(backoffDelay(5, policy, 10, () => 0)).toBe(4000);
	});

	it('a Retry-After of 0 still leaves the jittered back-off', () => {
		expect(backoffDelay(1, policy, 0, () => 0)).toBe(250);
	});
});

describe('shouldWait', () => {
	it('with a deadline: only when the wait ends before it', () => {
		expect(shouldWait(1000, DEFAULT_RETRY, undefined, NOW + 1001, NOW)).toBe(true);
		expect(shouldWait(1000, DEFAULT_RETRY, undefined, NOW + 1000, NOW)).toBe(false);
		expect(shouldWait(300_000, DEFAULT_RETRY, 300_000, NOW + 600_000, NOW)).toBe(true);
	});

	it('without a deadline: any back-off, but not a server-requested wait above maxRetryAfterMs', () => {
		expect(shouldWait(20_000, DEFAULT_RETRY, undefined, undefined)).toBe(true);
		expect(shouldWait(60_000, DEFAULT_RETRY, 60_000, undefined)).toBe(true);
		expect(shouldWait(60_001, DEFAULT_RETRY, 60_001, undefined)).toBe(false);
		expect(shouldWait(2000, { ...DEFAULT_RETRY, maxRetryAfterMs: 1000 }, 2000, undefined)).toBe(
			false,
		);
		expect(
			shouldWait(2000, { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 2 }, 2000, undefined),
		).toBe(true);
	});
});

describe('isRetryableStatus', () => {
	it.each([429, 500, 501, 502, 503, 504, 599])('%i is retried', (s) =>
		expect(isRetryableStatus(s)).toBe(true),
	);
	it.each([200, 204, 301, 302, 400, 401, 403, 404, 408, 409, 413, 422, 600])('%i is not', (s) =>
		expect(isRetryableStatus(s)).toBe(false),
	);
});

it('default policy matches the spec: bounded attempts and back-off', () => {
	expect(DEFAULT_RETRY.maxAttempts).toBeGreaterThan(1);
	expect(DEFAULT_RETRY.maxAttempts).toBeLessThanOrEqual(10);
	expect(DEFAULT_RETRY.maxDelayMs).toBeGreaterThan(DEFAULT_RETRY.baseDelayMs);
});
