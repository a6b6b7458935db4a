import { AdaptiveLimit, pollAll, type PollStep } from '../../nodes/shared/poller';

const realSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const instant = async () => undefined;

describe('AdaptiveLimit', () => {
	it('halves on throttle (never below 1) and grows back one by one up to the maximum', () => {
		const l = new AdaptiveLimit(8);
		expect(l.limit).toBe(8);
		const seen: number[] = [];
		for (let i = 0; i < 5; i++) {
			l.throttle(0);
			seen.push(l.limit);
		}
		expect(seen).toEqual([4, 2, 1, 1, 1]);
		const grown: number[] = [];
		for (let i = 0; i < 10; i++) {
			l.succeed();
			grown.push(l.limit);
		}
		expect(grown).toEqual([2, 3, 4, 5, 6, 7, 8, 8, 8, 8]);
	});

	it('an odd window rounds down', () => {
		const l = new AdaptiveLimit(5);
		l.throttle(0);
		expect(l.limit).toBe(2);
	});

	it('after a throttle, only the new window may be acquired', async () => {
		const l = new AdaptiveLimit(4);
		for (let i = 0; i < 4; i++) await l.acquire(instant);
		l.throttle(0);
		for (let i = 0; i < 4; i++) l.release();
		const got: number[] = [];
		const waits = [1, 2, 3].map((n) => l.acquire(instant).then(() => got.push(n)));
		await realSleep(10);
		expect(got).toEqual([1, 2]);
		l.release();
		await Promise.all(waits);
		expect(got).toEqual([1, 2, 3]);
	});

	it('throttle holds everyone back for the pause', async () => {
		const l = new AdaptiveLimit(2);
		l.throttle(500);
		const sleeps: number[] = [];
		await l.acquire(async (ms) => {
			sleeps.push(ms);
		});
		expect(sleeps).toHaveLength(1);
		expect(sleeps[0]).toBeGreaterThan(0);
		expect(sleeps[0]).toBeLessThanOrEqual(500);
	});

	it('a longer pause is never shortened by a later, shorter one', async () => {
		const l = new AdaptiveLimit(4);
		l.throttle(1000);
		l.throttle(10);
		const sleeps: number[] = [];
		await l.acquire(async (ms) => {
			sleeps.push(ms);
		});
		expect(sleeps[0]).toBeGreaterThan(500);
	});
});

describe('pollAll', () => {
	it('the concurrency bound is never exceeded, and every job gets its own result in order', async () => {
		let inFlight = 0;
		let maxInFlight = 0;
		const rounds = new Map<number, number>();
		const results = await pollAll<number, string>({
			jobs: Array.from({ length: 20 }, (_, i) => i),
			maxConcurrency: 3,
			deadlineOf: () => Date.now() + 10_000,
			onDeadline: (j) => `deadline ${j}`,
			sleep: realSleep,
			poll: async (job, round) => {
				inFlight++;
				maxInFlight = Math.max(maxInFlight, inFlight);
				await realSleep(3);
				inFlight--;
				rounds.set(job, round);
				return round >= 3 ? { done: true, result: `done ${job}` } : { done: false, waitMs: 5 };
			},
		});
		expect(results).toEqual(Array.from({ length: 20 }, (_, i) => `done ${i}`));
		expect(maxInFlight).toBeLessThanOrEqual(3);
		expect(maxInFlight).toBeGreaterThan(1);
		expect([...rounds.values()].every((r) => r === 3)).toBe(true);
	});

	it('on 429 the window shrinks and the bound still holds; all jobs finish', async () => {
		let inFlight = 0;
		let maxInFlight = 0;
		let calls = 0;
		const limited = new Set<number>();
		const results = await pollAll<number, number>({
			jobs: Array.from({ length: 12 }, (_, i) => i),
			maxConcurrency: 4,
			deadlineOf: () => Date.now() + 10_000,
			onDeadline: () => -1,
			sleep: realSleep,
			poll: async (job): Promise<PollStep<number>> => {
				calls++;
				inFlight++;
				maxInFlight = Math.max(maxInFlight, inFlight);
				await realSleep(2);
				inFlight--;
				if (!limited.has(job)) {
					limited.add(job);
					return { done: false, waitMs: 20, rateLimited: true };
				}
				return { done: true, result: job };
			},
		});
		expect(results).toEqual(Array.from({ length: 12 }, (_, i) => i));
		expect(maxInFlight).toBeLessThanOrEqual(4);
		expect(calls).toBe(24);
	});

	it('a job still pending at its deadline yields onDeadline(job, rounds)', async () => {
		const results = await pollAll<string, string>({
			jobs: ['slow'],
			deadlineOf: () => Date.now() + 150,
			onDeadline: (job, rounds) => `${job} still running after ${rounds} rounds`,
			sleep: realSleep,
			poll: async () => ({ done: false, waitMs: 40 }),
		});
		expect(results[0]).toMatch(/^slow still running after \d+ rounds$/);
		expect(Number(/after (\d+)/.exec(results[0])?.[1])).toBeGreaterThanOrEqual(2);
	});

	it('a deadline already past with an initial delay: onDeadline with 0 rounds, no poll', async () => {
		let polled = 0;
		const results = await pollAll<string, string>({
			jobs: ['late'],
			deadlineOf: () => Date.now() - 1,
			initialDelayMs: () => 1000,
			onDeadline: (_j, rounds) => `rounds=${rounds}`,
			sleep: instant,
			poll: async () => {
				polled++;
				return { done: true, result: 'x' };
			},
		});
		expect(results).toEqual(['rounds=0']);
		expect(polled).toBe(0);
	});

	it('waits never run past the deadline: the sleep before the last round is cut to what is left', async () => {
		const sleeps: number[] = [];
		const deadline = Date.now() + 1000;
		await pollAll<string, string>({
			jobs: ['a'],
			deadlineOf: () => deadline,
			initialDelayMs: () => 5000,
			onDeadline: () => 'deadline',
			sleep: async (ms) => {
				sleeps.push(ms);
			},
			poll: async () => ({ done: true, result: 'ok' }),
		});
		expect(sleeps).toHaveLength(1);
		expect(sleeps[0]).toBeLessThanOrEqual(1000);
	});

	it('mixed jobs: some finish, some hit their own deadline', async () => {
		const results = await pollAll<{ id: string; doneAt: number; deadlineMs: number }, string>({
			jobs: [
				{ id: 'fast', doneAt: 2, deadlineMs: 5000 },
				{ id: 'never', doneAt: 1e9, deadlineMs: 100 },
			],
			deadlineOf: (j) => Date.now() + j.deadlineMs,
			onDeadline: (j) => `${j.id}: deadline`,
			sleep: realSleep,
			poll: async (j, round) => (round >= j.doneAt ? { done: true, result: `${j.id}: done` } : { done: false, waitMs: 30 }),
		});
		expect(results).toEqual(['fast: done', 'never: deadline']);
	});

	it('a cancelled signal stops polling', async () => {
		const ac = new AbortController();
		let polled = 0;
		const p = pollAll<string, string>({
			jobs: ['a'],
			deadlineOf: () => Date.now() + 10_000,
			onDeadline: () => 'deadline',
			signal: ac.signal,
			sleep: realSleep,
			poll: async () => {
				polled++;
				if (polled === 2) ac.abort();
				return { done: false, waitMs: 5 };
			},
		});
		await expect(p).rejects.toThrow(/cancelled/i);
		expect(polled).toBe(2);
	});
});
