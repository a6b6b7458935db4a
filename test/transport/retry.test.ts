import {
	DEFAULT_RETRY,
	backoffDelay,
	isRetryableStatus,
	parseRetryAfter,
	shouldWait,
	type RetryPolicy,
} from '../../nodes/shared/transport/retry';
import fc from 'fast-check';
import { checkSync } from '../property/check';
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
	it.each(['-1', '1.5', '+3', '3s', '0x10', 'soon', '2026-11-26T08:00:09Z'])(
		'%j is no Retry-After (undefined: the caller backs off on its own)',
		(v) => {
			expect(parseRetryAfter(v, NOW)).toBeUndefined();
		},
	);

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

	it('RFC 850 two-digit years per RFC 9110 §5.6.7: more than 50 years ahead is the most recent past year', () => {
		// read in 2026: 70 is 2070 (44 years ahead), 76 is 2076 (50 ahead, not more), 77 is 1977 (2077 would be 51 ahead)
		expect(parseRetryAfter('Wednesday, 01-Jan-70 00:00:00 GMT', NOW)).toBe(
			Date.UTC(2070, 0, 1) - NOW,
		);
		expect(parseRetryAfter('Sunday, 01-Jan-76 00:00:00 GMT', NOW)).toBe(Date.UTC(2076, 0, 1) - NOW);
		expect(parseRetryAfter('Saturday, 01-Jan-77 00:00:00 GMT', NOW)).toBe(0);
		expect(parseRetryAfter('Sunday, 22-Nov-26 15:00:09 GMT', NOW)).toBe(9000);
	});

	it('delay-seconds of any size is a wait (the longest one past what a number holds), never "no Retry-After"', () => {
		expect(parseRetryAfter('99999999999999999999', NOW)).toBe(Number.MAX_SAFE_INTEGER);
		expect(parseRetryAfter('9'.repeat(400), NOW)).toBe(Number.MAX_SAFE_INTEGER);
		expect(parseRetryAfter('86400', NOW)).toBe(86_400_000);
		// a wait longer than the window: the GET retries stop (the error keeps it), the 429 rule gives up saying why
		expect(
			shouldWait(1000, DEFAULT_RETRY, parseRetryAfter('99999999999999999999', NOW), undefined),
		).toBe(false);
	});

	it('property: the three date forms of one instant read the same; any run of digits is a wait (seed printed)', () => {
		const LONG = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
		checkSync(
			'../transport/retry.test.ts',
			fc.record({
				// whole seconds from 49 years back to 50 years ahead of NOW: the RFC 850 window
				at: fc.integer({ min: -49 * 365 * 86_400, max: 49 * 365 * 86_400 }),
				digits: fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: 1, maxLength: 40 }),
			}),
			({ at, digits }) => {
				const d = new Date(NOW + at * 1000);
				const imf = d.toUTCString();
				const [, dd, mon, yyyy, time] = imf.split(' ');
				const rfc850 = `${LONG[d.getUTCDay()]}, ${dd}-${mon}-${yyyy.slice(2)} ${time} GMT`;
				const asctime = `${imf.slice(0, 3)} ${mon} ${String(d.getUTCDate()).padStart(2, ' ')} ${time} ${yyyy}`;
				const want = Math.max(0, d.getTime() - NOW);
				for (const form of [imf, rfc850, asctime])
					if (parseRetryAfter(form, NOW) !== want)
						throw new Error(`${form} read as ${parseRetryAfter(form, NOW)}, not ${want}`);
				const wait = parseRetryAfter(digits, NOW);
				if (wait === undefined || wait < Math.min(Number(digits) * 1000, Number.MAX_SAFE_INTEGER))
					throw new Error(`${digits} read as ${wait}`);
			},
			{ runs: 300, timeMs: 10_000 },
		);
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
