/**
 * What each item's paid request got, kept for the rest of one execution so that n8n's Retry On Fail, which runs the
 * whole node again with all its items in the same process, never sends an accepted (or possibly accepted) request
 * twice: a retry reuses the recorded answer. Keyed by the execution's own cancel signal (one object per execution,
 * the same for every try), the node and its run index; it goes when the execution goes. Nothing is kept between
 * executions.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

interface Entry {
	fingerprint: string;
	sent: unknown;
}

const executions = new WeakMap<object, Map<string, Map<number, Entry>>>();

export interface RetryLedger<S> {
	get(index: number, fingerprint: string): S | undefined;
	record(index: number, fingerprint: string, sent: S): void;
}

/** The ledger of this node run, or undefined when the node cannot be retried (Retry On Fail off). */
export function retryLedger<S>(ctx: IExecuteFunctions): RetryLedger<S> | undefined {
	const node = ctx.getNode();
	if (node.retryOnFail !== true) return undefined;
	const signal = typeof ctx.getExecutionCancelSignal === 'function' ? ctx.getExecutionCancelSignal() : undefined;
	if (!signal) return undefined;
	let nodes = executions.get(signal);
	if (!nodes) executions.set(signal, (nodes = new Map()));
	const key = `${node.name}\u0000${(ctx as unknown as { runIndex?: number }).runIndex ?? 0}`;
	let items = nodes.get(key);
	if (!items) nodes.set(key, (items = new Map()));
	const entries = items;
	return {
		get: (index, fingerprint) => {
			const e = entries.get(index);
			return e && e.fingerprint === fingerprint ? (e.sent as S) : undefined;
		},
		record: (index, fingerprint, sent) => entries.set(index, { fingerprint, sent }),
	};
}
