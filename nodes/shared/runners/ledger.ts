/**
 * The one ledger of paid calls. A paid call is known by its place in the execution — never by the request it builds
 * (expressions such as `{{ $now }}` evaluate differently on every try), never by a node's name:
 *
 * - an action node's item: the node's ID, its run index, the item's index in its input;
 * - a Chat Model turn: the Chat Model's ID, the root node that asked (the AI Agent, a chain) and its run index, the
 *   call's question (its conversation without system messages) and how often that question was asked before in the
 *   same try of the root (../../LmChatGenGateway/model/model.ts: TurnSupply).
 *
 * n8n's Retry On Fail runs a node again in the same process with the same run index; a re-run AI Agent asks its model
 * again. What a place got the first time (the answer, or an exception after the request left: spent, outcome unknown)
 * is kept for the rest of the execution, so a re-run reuses the answer and never sends again a call whose outcome is
 * unknown. The book of an execution is keyed by its own cancel signal (one object per execution, the same for every
 * try) and goes when the execution goes; nothing is kept between executions. The same book holds the execution's
 * spend entries (../money/record.ts), so both know a call the same way.
 */

/** What a paid call got: the answer, or an exception after it left (spent, outcome unknown). */
export type LedgerEntry<S> = { sent: S } | { lost: unknown };

/** Where a paid call stands in its execution. */
export interface Place {
	/** the paid node's ID (n8n's node ID, never its name) */
	node: string;
	/** the run index of the node (for a Chat Model: of its root node) */
	run: number;
	/** the item's index in the node's input; for a Chat Model: the ordinal of the call within the root's run */
	item: number;
	/** Chat Model: the root node (AI Agent, chain) whose run asked */
	root?: string;
	/** an item's follow-up request (a JSON Schema repair): 1; the first request has none */
	step?: number;
	/** Chat Model: the call's question (a digest of its conversation without system messages); item counts its calls */
	question?: string;
}

export function placeKey(p: Place): string {
	return JSON.stringify([
		p.node,
		p.root ?? null,
		p.run,
		p.item,
		...(p.question ? [p.question] : []),
		...(p.step ? [`step ${p.step}`] : []),
	]);
}

/** One spend of the execution's money record (whole ¤). */
export interface SpendEntry {
	/** what the record counts: the exact charge when it is known, else an upper bound of it */
	quota: number;
	/** the charge is known exactly (a known multiplier, a figure for the whole call) */
	exact: boolean;
	/**
	 * an estimate, neither the charge nor a bound of it (a delta video before Task Wait settles it, or one settled
	 * without usage): the record's words say "estimate", never "at most"
	 */
	estimate?: boolean;
	/** no figure and no bound could be given (counted in the record's text, not in its sum) */
	unpriced: boolean;
	/** the place or task it belongs to, for the hint */
	label: string;
}

export interface ExecutionBook {
	/** what each paid call got, by place */
	calls: Map<string, LedgerEntry<unknown>>;
	/** Chat Model: how often each question was asked at its place in each try of the root node (by the try) */
	claims: WeakMap<object, Map<string, number>>;
	/** optional request fields a gateway refused with a 400 in this execution (left out of later calls) */
	refusedFields?: Set<string>;
	/** the execution's spends: by place (`call:`) or, once a task's fee is settled or bound, by task (`task:`) */
	spend: Map<string, SpendEntry>;
	/** what the execution's record said when this process first touched it (an execution resumed after a Wait) */
	baseline?: { quota: number; unpriced: number };
	/** capped calls with no bound go one at a time: the tail of their queue */
	gate?: Promise<void>;
}

/** Waits for the execution's capped, unbounded calls before this one; the returned function lets the next one go. */
export async function takeGate(book: ExecutionBook): Promise<() => void> {
	const before = book.gate ?? Promise.resolve();
	let release!: () => void;
	const mine = new Promise<void>((resolve) => (release = resolve));
	book.gate = before.then(() => mine);
	await before;
	return release;
}

const books = new WeakMap<object, ExecutionBook>();

/** The book of the execution whose cancel signal this is (undefined without one: nothing can be kept). */
export function bookOf(signal: AbortSignal | undefined): ExecutionBook | undefined {
	if (!signal) return undefined;
	let b = books.get(signal);
	if (!b) books.set(signal, (b = { calls: new Map(), claims: new WeakMap(), spend: new Map() }));
	return b;
}

/** n8n's execution cancel signal of a node context, where it has one. */
export function executionSignal(ctx: unknown): AbortSignal | undefined {
	const c = ctx as { getExecutionCancelSignal?: () => AbortSignal | undefined } | undefined;
	return typeof c?.getExecutionCancelSignal === 'function'
		? c.getExecutionCancelSignal()
		: undefined;
}

/** The run index of a node context (n8n keeps it on the context; for a sub-node it is its root's). */
export function runIndexOf(ctx: unknown): number {
	const r = (ctx as { runIndex?: unknown }).runIndex;
	return typeof r === 'number' && Number.isInteger(r) && r >= 0 ? r : 0;
}

export interface RetryLedger<S> {
	get(place: Place): LedgerEntry<S> | undefined;
	record(place: Place, entry: LedgerEntry<S>): void;
}

/** The ledger of paid calls of this execution (undefined without an execution signal). */
export function callLedger<S>(signal: AbortSignal | undefined): RetryLedger<S> | undefined {
	const book = bookOf(signal);
	if (!book) return undefined;
	return {
		get: (place) => book.calls.get(placeKey(place)) as LedgerEntry<S> | undefined,
		record: (place, entry) => void book.calls.set(placeKey(place), entry),
	};
}
