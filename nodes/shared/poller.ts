/**
 * Polls many tasks at once: each at its own interval, all under one per-item deadline,
 * with a bounded number of requests in flight that shrinks on 429 and grows back on success.
 */
export type PollStep<R> = { done: true; result: R } | { done: false; waitMs: number; rateLimited?: boolean };

export interface PollOptions<J, R> {
	jobs: J[];
	/** one query for one job; must not throw for retryable conditions (return done:false instead) */
	poll: (job: J, round: number) => Promise<PollStep<R>>;
	/** what a job yields when its deadline passes while still pending */
	onDeadline: (job: J, rounds: number) => R;
	deadlineOf: (job: J) => number;
	initialDelayMs?: (job: J) => number;
	maxConcurrency?: number;
	signal?: AbortSignal;
	sleep: (ms: number) => Promise<void>;
}

export class AdaptiveLimit {
	private active = 0;
	private waiters: Array<() => void> = [];
	limit: number;
	private pausedUntil = 0;

	constructor(private readonly max: number) {
		this.limit = max;
	}

	async acquire(sleep: (ms: number) => Promise<void>): Promise<void> {
		for (;;) {
			const pause = this.pausedUntil - Date.now();
			if (pause > 0) await sleep(pause);
			if (this.active < this.limit) {
				this.active++;
				return;
			}
			await new Promise<void>((resolve) => this.waiters.push(resolve));
		}
	}

	release(): void {
		this.active--;
		this.waiters.shift()?.();
	}

	/** 429: halve the window and hold everyone back for a moment */
	throttle(pauseMs: number): void {
		this.limit = Math.max(1, Math.floor(this.limit / 2));
		this.pausedUntil = Math.max(this.pausedUntil, Date.now() + pauseMs);
	}

	succeed(): void {
		if (this.limit < this.max) {
			this.limit++;
			this.waiters.shift()?.();
		}
	}
}

export async function pollAll<J, R>(opts: PollOptions<J, R>): Promise<R[]> {
	const limit = new AdaptiveLimit(opts.maxConcurrency ?? 16);
	let stopped: unknown;
	const runOne = async (job: J): Promise<R> => {
		const deadline = opts.deadlineOf(job);
		let wait = opts.initialDelayMs?.(job) ?? 0;
		for (let round = 1; ; round++) {
			if (wait > 0) {
				const left = deadline - Date.now();
				if (left <= 0) return opts.onDeadline(job, round - 1);
				await opts.sleep(Math.min(wait, left));
			}
			if (opts.signal?.aborted) throw new Error('Execution cancelled');
			if (stopped) throw stopped;
			if (Date.now() >= deadline && round > 1) return opts.onDeadline(job, round - 1);
			await limit.acquire(opts.sleep);
			let step: PollStep<R>;
			try {
				step = await opts.poll(job, round);
			} finally {
				limit.release();
			}
			if (step.done) return step.result;
			if (step.rateLimited) limit.throttle(step.waitMs);
			else limit.succeed();
			wait = Math.max(1, step.waitMs);
			if (Date.now() >= deadline) return opts.onDeadline(job, round);
		}
	};
	// One job failing for good (cancellation, a bug) stops every other job before its next poll.
	return Promise.all(
		opts.jobs.map((job) =>
			runOne(job).catch((err) => {
				stopped ??= err;
				throw err;
			}),
		),
	);
}
