import { AdaptiveLimit, Limit } from '../../nodes/shared/limit';
import {
	minPollIntervalMs,
	Poller,
	type PollerOptions,
	type PollStep,
} from '../../nodes/shared/tasks/poller';
import { GenGatewayImageSubmit } from '../../nodes/GenGatewayImageSubmit/GenGatewayImageSubmit.node';
import { GenGatewayTaskWait } from '../../nodes/GenGatewayTaskWait/GenGatewayTaskWait.node';
import { model } from '../harness/inputs';
import { useSimulator } from '../harness/simulator';
import { cleanupBinaryData, runWorkflow } from '../harness/workflow';
import { atRealTime } from '../time-scale';

/** The spec's poll floor, written here as the spec says it ("no task is queried more often than once a second"), not
 * taken from the code it guards. */
const SPEC_POLL_FLOOR_MS = 1000;

const realSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const instant = async () => undefined;
/** What TaskWaiter does for an execution's tasks: one Poller, each job through its own run(). */
const runJobs = <J, R>(jobs: J[], opts: PollerOptions<J, R>): Promise<R[]> => {
	const poller = new Poller<J, R>(opts);
	return Promise.all(jobs.map((job) => poller.run(job)));
};

describe('Limit and AdaptiveLimit', () => {
	it('a Limit never lets more than its bound run', async () => {
		const l = new Limit(3);
		let inFlight = 0;
		let max = 0;
		await Promise.all(
			Array.from({ length: 12 }, () =>
				l.run(async () => {
					max = Math.max(max, ++inFlight);
					await realSleep(2);
					inFlight--;
				}),
			),
		);
		expect(max).toBe(3);
	});

	it('starts at its start value, doubles per round (one per success) up to the maximum, halves on throttle', () => {
		const l = new AdaptiveLimit(16, 4);
		expect(l.window).toBe(4);
		const grown: number[] = [];
		for (let i = 0; i < 14; i++) {
			l.succeed();
			grown.push(l.window);
		}
		expect(grown).toEqual([5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 16, 16]);
		const seen: number[] = [];
		for (let i = 0; i < 6; i++) {
			l.throttle();
			seen.push(l.window);
		}
		expect(seen).toEqual([8, 4, 2, 1, 1, 1]);
	});

	it('after a 429 it grows by one per window of successes (additive increase)', () => {
		const l = new AdaptiveLimit(16, 8);
		l.throttle();
		expect(l.window).toBe(4);
		const grown: number[] = [];
		for (let i = 0; i < 9; i++) {
			l.succeed();
			grown.push(l.window);
		}
		expect(grown).toEqual([4, 4, 4, 5, 5, 5, 5, 5, 6]);
	});

	it('after a throttle, only the new window may be acquired', async () => {
		const l = new AdaptiveLimit(4);
		for (let i = 0; i < 4; i++) await l.acquire();
		l.throttle();
		for (let i = 0; i < 4; i++) l.release();
		const got: number[] = [];
		const waits = [1, 2, 3].map((n) => l.acquire().then(() => got.push(n)));
		await realSleep(10);
		expect(got).toEqual([1, 2]);
		l.release();
		await Promise.all(waits);
		expect(got).toEqual([1, 2, 3]);
	});

	it('a throttle never pauses requests already allowed by the window', async () => {
		const l = new AdaptiveLimit(4);
		l.throttle();
		// the window is now 2: two acquires are granted at once (no timer runs before them), the third waits
		const granted: number[] = [];
		const waits = [1, 2, 3].map((n) => l.acquire().then(() => granted.push(n)));
		await Promise.resolve();
		await Promise.resolve();
		expect(granted).toEqual([1, 2]);
		l.release();
		await Promise.all(waits);
		expect(granted).toEqual([1, 2, 3]);
	});
});

describe('Poller', () => {
	it('the concurrency bound is never exceeded, and every job gets its own result in order', async () => {
		let inFlight = 0;
		let maxInFlight = 0;
		const results = await runJobs<number, string>(
			Array.from({ length: 20 }, (_, i) => i),
			{
				maxConcurrency: 3,
				deadlineOf: () => Date.now() + 10_000,
				onDeadline: (j) => `deadline ${j}`,
				sleep: instant,
				poll: async (job, round) => {
					maxInFlight = Math.max(maxInFlight, ++inFlight);
					await realSleep(3);
					inFlight--;
					return round >= 3 ? { done: true, result: `done ${job}` } : { done: false, waitMs: 5 };
				},
			},
		);
		expect(results).toEqual(Array.from({ length: 20 }, (_, i) => `done ${i}`));
		expect(maxInFlight).toBe(3);
	});

	// the poll floor against every step a gateway's answer can yield: the sleeps the poller asks for, never under the
	// spec's 1 s (real time, nothing is slept here); the gateway's own view of the floor is the test below
	it.each([[5], [0], [-20], [Number.NaN], [Number.POSITIVE_INFINITY]])(
		'no job is queried more often than once a second (step waitMs %p, real time)',
		(waitMs) =>
			atRealTime(async () => {
				const sleeps: number[] = [];
				await runJobs<string, string>(['a'], {
					deadlineOf: () => Date.now() + 10_000,
					onDeadline: () => 'deadline',
					sleep: async (ms) => void sleeps.push(ms),
					poll: async (_j, round) =>
						round >= 3 ? { done: true, result: 'ok' } : { done: false, waitMs },
				});
				expect(sleeps).toHaveLength(2);
				for (const s of sleeps) expect(s).toBeGreaterThanOrEqual(SPEC_POLL_FLOOR_MS);
			})(),
	);

	it('on 429 the window shrinks and the bound still holds; all jobs finish', async () => {
		let inFlight = 0;
		let maxInFlight = 0;
		let calls = 0;
		const limited = new Set<number>();
		const poller = new Poller<number, number>({
			maxConcurrency: 4,
			deadlineOf: () => Date.now() + 10_000,
			onDeadline: () => -1,
			sleep: instant,
			poll: async (job): Promise<PollStep<number>> => {
				calls++;
				maxInFlight = Math.max(maxInFlight, ++inFlight);
				await realSleep(2);
				inFlight--;
				if (!limited.has(job)) {
					limited.add(job);
					return { done: false, waitMs: 20, rateLimited: true };
				}
				return { done: true, result: job };
			},
		});
		const results = await Promise.all(Array.from({ length: 12 }, (_, i) => poller.run(i)));
		expect(results).toEqual(Array.from({ length: 12 }, (_, i) => i));
		expect(maxInFlight).toBeLessThanOrEqual(4);
		expect(poller.window).toBeLessThan(4);
		expect(calls).toBe(24);
	});

	it('a Retry-After delays only the task it was given for: the others keep their own pace', async () => {
		const t0 = Date.now();
		const events: string[] = [];
		const slept: number[] = [];
		const poller = new Poller<string, string>({
			maxConcurrency: 4,
			deadlineOf: () => t0 + 3000,
			onDeadline: (job) => {
				events.push(`${job} deadline`);
				return `${job}: deadline`;
			},
			sleep: (ms) => {
				slept.push(ms);
				return realSleep(ms);
			},
			poll: async (job, round): Promise<PollStep<string>> => {
				events.push(`${job} ${round}`);
				if (job === 'limited' && round === 1)
					return { done: false, waitMs: 8000, rateLimited: true };
				if (round >= 2) return { done: true, result: job };
				return { done: false, waitMs: 1000 };
			},
		});
		const results = await Promise.all(['limited', 'a', 'b'].map((j) => poller.run(j)));
		expect(results).toEqual(['limited: deadline', 'a', 'b']);
		// the others were queried again at their own pace while the limited task waited its Retry-After, which no
		// query of it interrupted; and its 8 s wait was cut at its deadline (3 s), not waited out in full
		expect(events.filter((e) => e.startsWith('limited'))).toEqual([
			'limited 1',
			'limited deadline',
		]);
		expect(events.indexOf('a 2')).toBeLessThan(events.indexOf('limited deadline'));
		expect(events.indexOf('b 2')).toBeLessThan(events.indexOf('limited deadline'));
		expect(Math.max(...slept)).toBeLessThanOrEqual(3000);
		expect(slept).toContain(1000);
	}, 15_000);

	it('a job still pending at its deadline yields onDeadline(job, rounds)', async () => {
		// two and a half poll floors (on the test clock)
		const results = await runJobs<string, string>(['slow'], {
			deadlineOf: () => Date.now() + 2.5 * minPollIntervalMs(),
			onDeadline: (job, rounds) => `${job} still running after ${rounds} rounds`,
			sleep: realSleep,
			poll: async () => ({ done: false, waitMs: 40 }),
		});
		expect(results[0]).toMatch(/^slow still running after [23] rounds$/);
	});

	it('a deadline already past with an initial delay: onDeadline with 0 rounds, no poll', async () => {
		let polled = 0;
		const results = await runJobs<string, string>(['late'], {
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
		await runJobs<string, string>(['a'], {
			deadlineOf: () => deadline,
			initialDelayMs: () => 5000,
			onDeadline: () => 'deadline',
			sleep: async (ms) => void sleeps.push(ms),
			poll: async () => ({ done: true, result: 'ok' }),
		});
		expect(sleeps).toHaveLength(1);
		expect(sleeps[0]).toBeLessThanOrEqual(1000);
	});

	it('a cancelled signal stops polling, and every other job with it', async () => {
		const ac = new AbortController();
		let polled = 0;
		const p = runJobs<string, string>(['a', 'b'], {
			deadlineOf: () => Date.now() + 10_000,
			onDeadline: () => 'deadline',
			signal: ac.signal,
			sleep: instant,
			poll: async () => {
				polled++;
				if (polled === 3) ac.abort();
				await realSleep(1);
				return { done: false, waitMs: 5 };
			},
		});
		await expect(p).rejects.toThrow(/cancelled/i);
		expect(polled).toBeLessThanOrEqual(4);
	});
});

describe('the poll floor, seen by the gateway', () => {
	// the gateway asks for a poll after 5 ms and the task takes 3.5 s: only the floor keeps the queries apart
	const sim = useSimulator({ quiet: true, taskLatencyMs: 3500, pollAfterMs: 5 });
	afterAll(() => cleanupBinaryData());

	// the one real-time test of the poll floor: the gaps between the task queries the simulator received
	it(
		"Task Wait queries a task no more often than once a second (the simulator's request log, real time)",
		atRealTime(async () => {
			const r = await runWorkflow({
				nodes: [
					{
						name: 'Submit',
						type: new GenGatewayImageSubmit(),
						parameters: {
							operation: 'generate',
							mode: 'async',
							model: model('alpha-image-2.5'),
							prompt: 'a red fox',
						},
					},
					{
						name: 'Wait',
						type: new GenGatewayTaskWait(),
						parameters: { taskId: '={{ $json.task_id }}', taskKind: 'auto', options: {} },
					},
				],
				credentials: { apiKey: sim.keys.demo, baseUrl: sim.baseUrl },
			});
			expect(r.output('Wait', 0)[0].json).toMatchObject({ status: 'completed' });
			const taskId = r.output('Submit')[0].json.task_id as string;
			const queries = sim.log.filter(
				(l) => l.method === 'GET' && l.path.startsWith(`/v1/images/tasks/${taskId}`),
			);
			// queried until done: the task's 3.5 s hold three or four queries at 1 s apart (at least two on a loaded machine)
			expect(queries.length).toBeGreaterThanOrEqual(2);
			const gaps = queries.slice(1).map((q, i) => q.time - queries[i].time);
			for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(SPEC_POLL_FLOOR_MS);
		}),
		20_000,
	);
});

describe('Poller: one job, one outcome', () => {
	it("an exception in one job's query ends that job through onError; every other job finishes with its own result", async () => {
		const polls = new Map<string, number>();
		const results = await runJobs<string, string>(['a', 'odd', 'b', 'c'], {
			deadlineOf: () => Date.now() + 10_000,
			onDeadline: (job) => `${job}: deadline`,
			onError: (job, err) => `${job}: failed (${(err as Error).message})`,
			sleep: instant,
			poll: async (job) => {
				const n = (polls.get(job) ?? 0) + 1;
				polls.set(job, n);
				if (job === 'odd' && n === 2)
					throw new TypeError("Cannot read properties of null (reading 'status')");
				return n < 3 ? { done: false, waitMs: 1 } : { done: true, result: `${job}: completed` };
			},
		});
		expect(results).toEqual([
			'a: completed',
			"odd: failed (Cannot read properties of null (reading 'status'))",
			'b: completed',
			'c: completed',
		]);
		expect(polls.get('a')).toBe(3);
	});

	it('a cancellation still stops every job', async () => {
		const controller = new AbortController();
		let polls = 0;
		const run = runJobs<string, string>(['x', 'y'], {
			signal: controller.signal,
			deadlineOf: () => Date.now() + 10_000,
			onDeadline: () => 'deadline',
			onError: () => 'isolated',
			sleep: realSleep,
			// cancelled while the jobs are being polled: after a few rounds of both
			poll: async () => {
				if (++polls === 6) controller.abort();
				return { done: false, waitMs: 1 };
			},
		});
		await expect(run).rejects.toThrow(/cancel/i);
	});
});
