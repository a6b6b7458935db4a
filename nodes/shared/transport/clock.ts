/**
 * The package's waits: back-offs, Retry-After waits and poll intervals all sleep here, through `sleep`.
 *
 * The time scale shortens every such wait (never a timeout or a deadline, which are the user's wall-clock bounds).
 * Only tests set it, by calling `setTimeScaleForTests` from test code: no environment variable, option or credential
 * field reaches it, so a production run always waits in real time (scale 1).
 */
import { GatewayNetworkError } from '../errors';

let scale = 1;

/**
 * Test-only: every wait of the package (back-off, Retry-After, poll interval) lasts `factor` times its length
 * (0 < factor <= 1). Returns the previous factor. Timeouts and deadlines are not scaled.
 */
export function setTimeScaleForTests(factor: number): number {
	if (!(Number.isFinite(factor) && factor > 0 && factor <= 1)) throw new RangeError(`time scale must be in (0, 1], got ${factor}`);
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

/** Sleeps `ms` (already scaled by the caller), or rejects with a cancellation as soon as `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
	return new Promise((resolve, reject) => {
		if (signal?.aborted) return reject(cancelledError());
		const t = setTimeout(() => {
			signal?.removeEventListener('abort', onAbort);
			resolve();
		}, Math.min(Math.max(0, ms), MAX_TIMER_MS));
		const onAbort = () => {
			clearTimeout(t);
			reject(cancelledError());
		};
		signal?.addEventListener('abort', onAbort, { once: true });
	});
}
