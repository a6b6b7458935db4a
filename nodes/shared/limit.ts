/**
 * Bounded concurrency. `Limit` is a plain semaphore (downloads, Download Result items). `AdaptiveLimit` is an AIMD
 * window for requests to the gateway: it starts at `start`, widens by one per success up to `max` (doubling per round
 * until the first 429, then one per round), and halves on 429. A 429 never pauses the other requests: the request it
 * was given for waits its own Retry-After.
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

export class AdaptiveLimit extends Limit {
	private threshold: number;
	private credit = 0;

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

	/** 429: the window halves (never below 1) and stops growing fast */
	throttle(): void {
		this.limit = Math.max(1, Math.floor(this.limit / 2));
		this.threshold = this.limit;
		this.credit = 0;
	}

	succeed(): void {
		if (this.limit >= this.max) return;
		if (this.limit < this.threshold) this.limit++;
		else if (++this.credit >= this.limit) {
			this.credit = 0;
			this.limit++;
		}
		this.wake();
	}
}
