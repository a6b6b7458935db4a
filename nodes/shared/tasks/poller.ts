/**
 * Polls many tasks at once: each at its own interval, each under its own deadline, with a bounded number of
 * queries in flight that halves on 429 and grows back on success. A Retry-After or back-off delays only the task it
 * was given for. Jobs can join at any time (a task is waited for as soon as it was accepted).
 */
import { AdaptiveLimit } from '../limit';
import { scaled } from '../transport/clock';

export type PollStep<R> =
	{ done: true; result: R } | { done: false; waitMs: number; rateLimited?: boolean };

/** No task is queried more often than once a second, whatever the gateway or an expression says. */
export const MIN_POLL_INTERVAL_MS = 1000;

/** The poll floor on the clock's time scale (clock.ts): MIN_POLL_INTERVAL_MS outside tests. */
export function minPollIntervalMs(): number {
	return scaled(MIN_POLL_INTERVAL_MS);
}

export interface PollerOptions<J, R> {
	/** one query for one job; must not throw for retryable conditions (return done:false instead) */
	poll: (job: J, round: number) => Promise<PollStep<R>>;
	/** what a job yields when its deadline passes while still pending */
	onDeadline: (job: J, rounds: number) => R;
	/** what a job yields when its query threw something unexpected (an answer nobody foresaw, a bug): that job's end, no other's */
	onError?: (job: J, err: unknown) => R;
	deadlineOf: (job: J) => number;
	initialDelayMs?: (job: J) => number;
	/** queries in flight at most (default 16) */
	maxConcurrency?: number;
	signal?: AbortSignal;
	sleep: (ms: number) => Promise<void>;
}

export class Poller<J, R> {
	private readonly limit: AdaptiveLimit;
	private stopped: unknown;

	constructor(private readonly opts: PollerOptions<J, R>) {
		this.limit = new AdaptiveLimit(opts.maxConcurrency ?? 16);
	}

	get window(): number {
		return this.limit.window;
	}

	/**
	 * Waits for one job. A cancellation stops every other job before its next query; anything else one job's query
	 * throws ends that job alone, through `onError`.
	 */
	async run(job: J): Promise<R> {
		try {
			return await this.runOne(job);
		} catch (err) {
			if (this.opts.signal?.aborted || this.stopped) {
				this.stopped ??= err;
				throw err;
			}
			if (!this.opts.onError) throw err;
			return this.opts.onError(job, err);
		}
	}

	private async runOne(job: J): Promise<R> {
		const { opts } = this;
		const deadline = opts.deadlineOf(job);
		let wait = opts.initialDelayMs?.(job) ?? 0;
		for (let round = 1; ; round++) {
			if (wait > 0) {
				const left = deadline - Date.now();
				if (left <= 0) return opts.onDeadline(job, round - 1);
				await opts.sleep(Math.min(wait, left));
				// slept to the deadline (a timer may fire a millisecond early): no query past it
				if (wait >= left && round > 1) return opts.onDeadline(job, round - 1);
			}
			if (opts.signal?.aborted) throw new Error('Execution cancelled');
			if (this.stopped) throw this.stopped;
			if (Date.now() >= deadline && round > 1) return opts.onDeadline(job, round - 1);
			await this.limit.acquire();
			let step: PollStep<R>;
			try {
				step = await opts.poll(job, round);
			} finally {
				this.limit.release();
			}
			if (step.done) return step.result;
			if (step.rateLimited) this.limit.throttle();
			else this.limit.succeed();
			wait = Math.max(
				minPollIntervalMs(),
				Number.isFinite(step.waitMs) ? step.waitMs : MIN_POLL_INTERVAL_MS,
			);
			if (Date.now() >= deadline) return opts.onDeadline(job, round);
		}
	}
}
