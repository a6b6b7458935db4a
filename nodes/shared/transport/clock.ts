/**
 * The package's waits: back-offs, Retry-After waits and poll intervals all sleep here, through `sleep`; deadlines and
 * idle timeouts ring here, through `alarm`. Both run on n8n's own sleep from n8n-workflow with an abort signal (what
 * n8n asks of community nodes instead of setTimeout/clearTimeout; docs/lint-exceptions.md).
 *
 * The time scale shortens every such wait (never a timeout or a deadline, which are the user's wall-clock bounds).
 * Only tests set it, by calling `setTimeScaleForTests` from test code: no environment variable, option or credential
 * field reaches it, so a production run always waits in real time (scale 1).
 */
import * as workflow from 'n8n-workflow';
import { GatewayNetworkError } from '../errors';

let scale = 1;

/**
 * Test-only: every wait of the package (back-off, Retry-After, poll interval) lasts `factor` times its length
 * (0 < factor <= 1). Returns the previous factor. Timeouts and deadlines are not scaled.
 */
export function setTimeScaleForTests(factor: number): number {
	if (!(Number.isFinite(factor) && factor > 0 && factor <= 1))
		throw new RangeError(`time scale must be in (0, 1], got ${factor}`);
	const previous = scale;
	scale = factor;
	return previous;
}

/** The current time scale (1 unless a test set another). */
export function timeScale(): number {
	return scale;
}

/** How long a wait the rules ask for lasts on this clock. */
export function scaled(ms: number): number {
	return scale === 1 ? ms : Math.round(ms * scale);
}

/** setTimeout fires at once for delays above 2^31-1 ms; longer sleeps are clamped to that (~24.8 days). */
const MAX_TIMER_MS = 2_147_483_647;

export function cancelledError(sent = false): GatewayNetworkError {
	return new GatewayNetworkError('Execution cancelled', 'CANCELLED', sent, true);
}

/** A sleep of n8n's: resolves after `ms`, or rejects once `signal` aborts. */
export type HostSleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/**
 * n8n's abortable sleep in the host's n8n-workflow (a peer dependency, so the host's copy): n8n-workflow 1.x (n8n
 * 1.123) has `sleepWithAbort(ms, signal)` beside a `sleep(ms)` that takes no signal; 2.x (n8n 2.41) has `sleep(ms,
 * signal)` only.
 */
export function hostSleep(lib: { sleep: HostSleep; sleepWithAbort?: HostSleep }): HostSleep {
	return typeof lib.sleepWithAbort === 'function' ? lib.sleepWithAbort : lib.sleep;
}

const n8nSleep = hostSleep(workflow as unknown as { sleep: HostSleep; sleepWithAbort?: HostSleep });

/** Sleeps `ms` (already scaled by the caller) on n8n's sleep, or rejects with a cancellation as soon as `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal, on: HostSleep = n8nSleep): Promise<void> {
	if (signal?.aborted) return Promise.reject(cancelledError());
	return new Promise((resolve, reject) => {
		// n8n's sleep gets a signal of its own: n8n-workflow 1.x leaves its abort listener on the signal it is given, which
		// would pile up on the execution's signal over a long wait; and the cancel rejects here even if a host ignored it
		const own = new AbortController();
		const onAbort = () => {
			own.abort();
			reject(cancelledError());
		};
		signal?.addEventListener('abort', onAbort, { once: true });
		on(Math.min(Math.max(0, ms), MAX_TIMER_MS), own.signal).then(
			() => {
				signal?.removeEventListener('abort', onAbort);
				resolve();
			},
			(err: unknown) => {
				signal?.removeEventListener('abort', onAbort);
				reject(own.signal.aborted ? cancelledError() : err);
			},
		);
	});
}

/** A deadline or idle timeout: see `alarm`. */
export interface Alarm {
	/** starts the `ms` again from now (a chunk arrived) */
	reset(): void;
	/** disarms it for good */
	stop(): void;
}

/**
 * Calls `onRing` once, when `ms` (not scaled: a bound of the user's) have passed since the alarm was set or last
 * reset, unless it was stopped first. It sleeps on n8n's sleep: a reset only notes the time, and when a sleep ends
 * early of the bound the alarm sleeps the rest, so a body read in thousands of chunks re-arms no timer per chunk.
 * `on` and `now` are n8n's sleep and the monotonic clock; tests hand in their own.
 */
export function alarm(
	ms: number,
	onRing: () => void,
	on: HostSleep = n8nSleep,
	now: () => number = () => performance.now(),
): Alarm {
	const stopped = new AbortController();
	let from = now();
	const wait = async () => {
		for (;;) {
			const left = from + ms - now();
			if (!(left > 0)) return;
			await sleep(left, stopped.signal, on);
		}
	};
	wait().then(
		() => {
			if (!stopped.signal.aborted) onRing();
		},
		() => undefined, // stopped
	);
	return {
		reset: () => {
			from = now();
		},
		stop: () => stopped.abort(),
	};
}
