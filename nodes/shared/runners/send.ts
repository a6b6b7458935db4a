/**
 * One paid call, sent once: the one place where a paid request leaves, for every door that pays (an action node's
 * item, a Chat Model turn). It runs inside the transport's spend scope (../transport/spend.ts): anything thrown after
 * the request left is a spent call with an unknown outcome (SpentError), never resent. The one 429 rule: a request
 * the gateway refused with 429 created nothing, so it may go again after its own wait — the gateway's Retry-After as
 * given (an HTTP-date or whole seconds, RFC 9110; anything else is none) with a little jitter, and without one a growing
 * back-off — never sooner than 1 s after the refusal, whatever Retry-After says (0, a date in the past), at most
 * MAX_SENDS times in all, and only while the caller's refusal window (counted from the first attempt) allows. Then the
 * refusal is the call's answer, with its reason.
 */
import { GatewayHttpError, GatewayNetworkError } from '../errors';
import type { AdaptiveLimit } from '../limit';
import { scaled, timeScale } from '../transport/clock';
import { backoffDelay, DEFAULT_RETRY } from '../transport/retry';
import { nothingCreated, withinSpendScope } from '../transport/spend';

/** a refused (429) paid request is sent again no sooner than this after the refusal, whatever its Retry-After says */
export const MIN_REFUSAL_WAIT_MS = 1000;

/** the most times one paid request is sent when the gateway keeps refusing it with 429 (the first send included) */
export const MAX_SENDS = 5;

/** The request left and something failed after it: the call is spent, its outcome unknown. */
export class SpentError extends Error {
	constructor(readonly cause: unknown) {
		super(cause instanceof Error ? cause.message : String(cause));
		this.name = 'SpentError';
	}
}

/** How long the rule waits before a 429-refused paid request may go again (real time; tests sleep it scaled). */
export function refusalWait(err: GatewayHttpError, attempt: number, random = Math.random): number {
	if (err.retryAfterMs !== undefined)
		return Math.max(MIN_REFUSAL_WAIT_MS, err.retryAfterMs) + Math.round(random() * 250);
	// backoffDelay is on the clock's scale already: the rule's own length is that over the scale
	return Math.max(
		MIN_REFUSAL_WAIT_MS,
		Math.round(
			backoffDelay(attempt, DEFAULT_RETRY, undefined, random) / Math.max(timeScale(), 1e-9),
		),
	);
}

export const isRefusal = (err: unknown): err is GatewayHttpError =>
	err instanceof GatewayHttpError && err.status === 429;

export interface SendPaidOptions {
	/** how long after its first attempt a refused request may still be sent again */
	refusalWindowMs: number;
	sleep(ms: number): Promise<void>;
	/** the batch's adaptive window: acquired for each attempt, narrowed on a refusal (action nodes) */
	window?: AdaptiveLimit;
	/** why a refused request was not sent again (for the caller's message) */
	onGiveUp?(err: GatewayHttpError, why: string): void;
}

/**
 * Sends one paid request (`send` issues it through the transport). Resolves with its answer; throws SpentError when
 * it may have spent, or the definite refusal (nothing created: a 4xx, a 429 past the window, a request that never left).
 */
export async function sendPaid<S>(send: () => Promise<S>, o: SendPaidOptions): Promise<S> {
	let first: number | undefined;
	// the refusal window is judged on the rule's own waits (a test's shorter clock sleeps them scaled, nothing else changes)
	let ruleMinusSlept = 0;
	for (let attempt = 1; ; attempt++) {
		// a refused request goes again before the batch's unsent ones, so a long batch cannot starve it past its window
		await o.window?.acquire(attempt > 1);
		// the refusal window counts from the first send, not from the wait for a place in the window
		const sentAt = Date.now();
		first ??= sentAt;
		const scope = withinSpendScope(send);
		try {
			const answer = await scope.result;
			o.window?.release();
			// the window reads how fast the gateway answered (it narrows when answers slow down clearly)
			o.window?.succeed(Date.now() - sentAt, sentAt);
			return answer;
		} catch (err) {
			o.window?.release();
			if (!nothingCreated(scope.record, err)) throw new SpentError(err);
			if (!isRefusal(err)) throw err;
			o.window?.throttle(sentAt);
			const wait = refusalWait(err, attempt);
			const why =
				attempt >= MAX_SENDS
					? `It was refused ${attempt} times (429), the most a request is sent.`
					: Date.now() + ruleMinusSlept + wait > first + o.refusalWindowMs
						? `It was not sent again: its wait (${Math.ceil(wait / 1000)} s) does not fit in the ${Math.round(o.refusalWindowMs / 1000)} s the request may take.`
						: undefined;
			if (why) {
				o.onGiveUp?.(err, why);
				throw err;
			}
			const sleep = scaled(wait);
			ruleMinusSlept += wait - sleep;
			await o.sleep(sleep);
		}
	}
}

/** A cancellation of the execution (never an item's own failure). */
export function isCancellation(err: unknown, signal?: AbortSignal): boolean {
	return !!signal?.aborted || (err instanceof GatewayNetworkError && err.cancelled);
}
