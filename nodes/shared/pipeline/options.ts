/** Options every paid node shares: how many paid requests may be in flight at once. */
import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { InputRuleError, toNodeError } from '../errors';

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

/** A whole number from 1 to 64; empty means the default. Anything else fails the node before anything is sent. */
export function readConcurrency(ctx: IExecuteFunctions, v: unknown, field = 'Max Concurrent Submissions'): number {
	if (v === undefined || v === null || v === '') return DEFAULT_MAX_CONCURRENCY;
	if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > MAX_CONCURRENCY_CAP) {
		throw toNodeError(ctx.getNode(), new InputRuleError([{ field, rule: `must be a whole number from 1 to ${MAX_CONCURRENCY_CAP} (got ${JSON.stringify(v)})` }]), 0);
	}
	return v;
}
