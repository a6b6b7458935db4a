/**
 * What each item's paid request got, kept for the rest of one execution so that n8n's Retry On Fail, which runs the
 * whole node again with all its items in the same process, never sends an accepted (or possibly accepted) request
 * twice: a retry reuses the recorded answer. An item is known by its place in the input (node, run index, item
 * index), never by the request it builds: expressions such as `{{ $now }}` evaluate differently on every try.
 * Keyed by the execution's own cancel signal (one object per execution, the same for every try); it goes when the
 * execution goes. Nothing is kept between executions.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

/** What an item's paid request got: the answer, or an exception after it left (spent, outcome unknown). */
export type LedgerEntry<S> = { sent: S } | { lost: unknown };

const executions = new WeakMap<object, Map<string, Map<number, unknown>>>();

export interface RetryLedger<S> {
	get(index: number): LedgerEntry<S> | undefined;
	record(index: number, entry: LedgerEntry<S>): void;
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
		get: (index) => entries.get(index) as LedgerEntry<S> | undefined,
		record: (index, entry) => entries.set(index, entry),
	};
}
