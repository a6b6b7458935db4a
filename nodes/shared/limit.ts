/**
 * Bounded concurrency. `Limit` is a plain semaphore (downloads, Download Result items). `AdaptiveLimit` is the AIMD
 * window for requests to the gateway, described at the class.
 */
export class Limit {
	protected active = 0;
	private waiters: Array<() => void> = [];

	constructor(protected limit: number) {}

	/** `first`: wait at the head of the queue (a request refused with 429 goes before requests not yet sent) */
	async acquire(first = false): Promise<void> {
		while (this.active >= this.limit)
			await new Promise<void>((resolve) =>
				first ? this.waiters.unshift(resolve) : this.waiters.push(resolve),
			);
		this.active++;
	}

	release(): void {
		this.active--;
		this.wake();
	}

	protected wake(): void {
		for (let free = this.limit - this.active; free > 0 && this.waiters.length; free--)
			this.waiters.shift()!();
	}

	async run<T>(fn: () => Promise<T>): Promise<T> {
		await this.acquire();
		try {
			return await fn();
		} finally {
			this.release();
		}
	}

	get inFlight(): number {
		return this.active;
	}
}

/**
 * The AIMD window of a batch's requests to the gateway (the paid submit window of runPaidItems, the Task Wait query
 * window). Additive increase, multiplicative decrease:
 *
 * - grows while the gateway accepts and answers quickly: one place per answer until the first decrease (slow start,
 *   doubling per round of answers), then one place per round (a window's worth of answers);
 * - halves on a 429, and on an answer whose latency rose clearly above the best seen (more than twice the best plus
 *   100 ms: the gateway is queueing what it was given), at most once per round: an answer to a request sent before
 *   the last decrease says nothing new about the narrower window;
 * - holds (neither grows nor narrows) on an answer that is slower than quick but not clearly slow;
 * - after a 429 at a window the gateway refused before (a fixed limit), climbs back to just below it at once and
 *   tries the refused size again only every few rounds;
 * - never exceeds `max` (the user's bound) nor goes below 1.
 *
 * A 429 never pauses the other requests: the request it was given for waits its own Retry-After (runners/send.ts).
 */
export class AdaptiveLimit extends Limit {
	private threshold: number;
	private credit = 0;
	/** the quickest answer seen, ms */
	private best = Infinity;
	/** when the window last narrowed (requests sent before it do not narrow it again) */
	private lastCut = -Infinity;
	/** the window at the last 429 */
	private refusedAt?: number;
	/** a window the gateway refused twice (a fixed limit below it): tried again only after PLATEAU_ROUNDS quiet rounds */
	private probeAt?: number;

	constructor(
		private readonly max: number,
		start = max,
	) {
		super(Math.max(1, Math.min(start, max)));
		this.threshold = max;
	}

	get window(): number {
		return this.limit;
	}

	/**
	 * 429 for a request sent at `sentAt` (ms, Date.now()): the window halves, once per round. A gateway that refuses at
	 * the same window twice has a fixed limit just below it: after halving, the window climbs back to one below the
	 * refused size at once (one place per answer) and stays there PLATEAU_ROUNDS rounds before it tries that size again.
	 */
	throttle(sentAt = Infinity): void {
		if (sentAt < this.lastCut) return;
		const at = this.limit;
		const fixed = this.refusedAt !== undefined && Math.abs(at - this.refusedAt) <= 1;
		this.refusedAt = at;
		this.cut(sentAt);
		if (fixed) {
			this.threshold = Math.max(this.limit, at - 1);
			this.probeAt = at;
		}
	}

	/**
	 * An answer came back `latencyMs` after its request was sent at `sentAt`. Without a latency (queries), it counts as
	 * quick.
	 */
	succeed(latencyMs?: number, sentAt = Infinity): void {
		if (latencyMs !== undefined && Number.isFinite(latencyMs) && latencyMs >= 0) {
			this.best = Math.min(this.best, latencyMs);
			// the queue that slowed this answer drains in about its latency: answers to requests sent before then do not
			// narrow the window again
			if (latencyMs > 2 * this.best + 100) return this.cut(sentAt, latencyMs);
			if (latencyMs > 1.5 * this.best + 50) return; // slower than quick: hold
		}
		this.grow();
	}

	private cut(sentAt: number, quietMs = 0): void {
		if (sentAt < this.lastCut) return;
		this.lastCut = Date.now() + quietMs;
		this.limit = Math.max(1, Math.floor(this.limit / 2));
		this.threshold = this.limit;
		this.credit = 0;
	}

	private grow(): void {
		if (this.limit >= this.max) return;
		const rounds =
			this.probeAt !== undefined && this.limit + 1 >= this.probeAt ? PLATEAU_ROUNDS : 1;
		if (this.limit < this.threshold) this.limit++;
		else if (++this.credit >= rounds * this.limit) {
			this.credit = 0;
			this.limit++;
		}
		this.wake();
	}
}

/** rounds a window stays one below a size the gateway refused twice before trying that size again */
const PLATEAU_ROUNDS = 4;
