/** Options every paid node shares: how many paid requests may be in flight at once, and their timeouts. */
import type { INodeProperties } from 'n8n-workflow';
import { MAX_CONCURRENCY_CAP, OPTION_RULES, readOption } from '../rules/options';

/** the window's default upper bound (16 before issue 46: the window now finds the gateway's pace below it) */
export const DEFAULT_MAX_CONCURRENCY = 64;

export function concurrencyOption(): INodeProperties {
	return {
		displayName: 'Max Concurrent Submissions',
		name: 'maxConcurrency',
		type: 'number',
		default: DEFAULT_MAX_CONCURRENCY,
		typeOptions: { minValue: 1, maxValue: MAX_CONCURRENCY_CAP },
		description:
			"Upper bound of paid requests in flight at once. The node finds the gateway's pace below it: it starts with 8 (or this bound when lower), widens while the gateway accepts and answers quickly, and halves on a 429 or when answers become clearly slower than the quickest seen (a refused request is sent again after its Retry-After, never sooner than 1 s, at most 5 sends in all). 1 sends the items one after another, in order.",
	};
}

/** The options of the paid submit nodes that every item checks before anything is sent. */
export const SUBMIT_OPTION_FIELDS = {
	submitTimeoutMs: { label: 'Submit Timeout (Ms)', rule: OPTION_RULES.milliseconds },
	maxConcurrency: { label: 'Max Concurrent Submissions', rule: OPTION_RULES.concurrency },
};

/** The window's bound for the batch: item 0's value when it is valid (every item's own is checked with its item). */
export function readConcurrency(v: unknown): number {
	return readOption(OPTION_RULES.concurrency, v) ?? DEFAULT_MAX_CONCURRENCY;
}

/** For the transport, built once per execution: item 0's value when it is usable (each item's own is checked per item). */
export function usable(v: unknown): number | undefined {
	return readOption(OPTION_RULES.milliseconds, v);
}
