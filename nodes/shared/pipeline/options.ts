/** Options every paid node shares: how many paid requests may be in flight at once. */
import type { INodeProperties } from 'n8n-workflow';

export const DEFAULT_MAX_CONCURRENCY = 16;
export const MAX_CONCURRENCY_CAP = 64;

export function concurrencyOption(): INodeProperties {
	return {
		displayName: 'Max Concurrent Submissions',
		name: 'maxConcurrency',
		type: 'number',
		default: DEFAULT_MAX_CONCURRENCY,
		typeOptions: { minValue: 1, maxValue: MAX_CONCURRENCY_CAP },
		description:
			'Upper bound of paid requests in flight at once. The node starts with a few, widens while the gateway accepts, and halves on 429 (a refused request is sent again after its Retry-After). 1 sends the items one after another, in order.',
	};
}

/** A whole number from 1 to 64, or empty (the default); anything else is a rule violation of the item. */
export function concurrencyProblem(v: unknown, field = 'Max Concurrent Submissions'): { field: string; rule: string } | undefined {
	if (v === undefined || v === null || v === '') return undefined;
	if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > MAX_CONCURRENCY_CAP) return { field, rule: `must be a whole number from 1 to ${MAX_CONCURRENCY_CAP} (got ${JSON.stringify(v)})` };
	return undefined;
}

/** The window's bound for the batch: item 0's value when it is valid (every item's own is checked with its item). */
export function readConcurrency(v: unknown): number {
	return v === undefined || v === null || v === '' || concurrencyProblem(v) ? DEFAULT_MAX_CONCURRENCY : (v as number);
}

/** An optional positive, finite number (a timeout, a deadline): empty means the default; anything else is a rule violation. */
export function positiveOption(v: unknown, field: string, problems: Array<{ field: string; rule: string }>): number | undefined {
	if (v === undefined || v === null || v === '') return undefined;
	if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) problems.push({ field, rule: `must be a positive number (got ${JSON.stringify(v)})` });
	else return v;
	return undefined;
}

/** For the transport, built once per execution: item 0's value when it is usable (each item's own is checked per item). */
export function usable(v: unknown): number | undefined {
	return typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : undefined;
}
