/**
 * The execution's one money record. Every paid call of the package — an action node's item, a Chat Model turn — and
 * every settled task fee is one entry of the execution's book (../runners/ledger.ts), known by its place (or, for a
 * task's fee, by its task ID): a re-run of the same place replaces its entry, a task's fee counts once per execution
 * whatever the number of items or nodes naming it. An entry holds the exact charge when it is known, else an upper
 * bound of it (the highest group ratio the price list publishes, a per-token bound, a video's estimate), so the total
 * is what was charged when every multiplier is known and never below it when one is not.
 *
 * The total is kept in n8n's execution custom data (`$execution.customData`: shown in the executions list, readable in
 * expressions, saved with the execution, so an execution resumed after a Wait node on another queue-mode worker starts
 * from it). n8n keeps at most 10 keys per execution (a new key past that is dropped silently), keys of letters, digits
 * and `_`, values as text of at most 255 characters; the package uses two keys:
 *
 * - `gengateway_spent`: whole ¤ spent so far by this execution's GenGateway nodes (exact charges and upper bounds;
 *   calls with no figure at all are counted in the text), e.g. `{{ Number($execution.customData.get("gengateway_spent")) }}`;
 * - `gengateway_spent_text`: the same in the display currency, whether it holds bounds, and the calls with no figure.
 */
import type { IWorkflowExecutionCustomData } from 'n8n-workflow';
import { formatDisplay, quotaToDisplay, type DisplaySettings } from './prices';
import { bookOf, executionSignal, type ExecutionBook, type SpendEntry } from '../runners/ledger';

export const SPENT_KEY = 'gengateway_spent';
export const SPENT_TEXT_KEY = 'gengateway_spent_text';
const MAX_VALUE = 255;
/** n8n-core's KV_LIMIT: a new key past this many is dropped without a word */
export const MAX_CUSTOM_DATA_KEYS = 10;

export type { SpendEntry };

interface ProxyReader {
	getWorkflowDataProxy?(itemIndex: number): unknown;
}

function customData(ctx: ProxyReader | undefined): IWorkflowExecutionCustomData | undefined {
	try {
		const proxy = ctx?.getWorkflowDataProxy?.(0) as
			{ $execution?: { customData?: IWorkflowExecutionCustomData } } | undefined;
		return proxy?.$execution?.customData;
	} catch {
		return undefined;
	}
}

const wholeOrZero = (v: unknown) => {
	const n = Number(v);
	return Number.isFinite(n) && n >= 0 ? Math.ceil(n) : 0;
};

export interface SpentSoFar {
	/** whole ¤ the execution's GenGateway calls have spent (exact charges and upper bounds) */
	quota: number;
	/** calls with no figure */
	unpriced: number;
	/** some of `quota` is an upper bound, not a known charge */
	bounded: boolean;
	/** some of `quota` is an estimate, not a bound (a delta video's) */
	estimated: boolean;
	/** the execution's custom data is full without our keys: what GenGateway nodes spent before cannot be known */
	full: boolean;
}

export interface RecordResult {
	/** the execution's total after the change */
	total: number;
	/** false: n8n did not keep the record (its custom data already holds 10 other keys, or none is available) */
	kept: boolean;
}

/** Spend keys: a paid call by its place, a task's fee by its task. */
export const callSpendKey = (placeKey: string) => `call:${placeKey}`;
export const taskSpendKey = (origin: string, taskId: string) => `task:${origin}:${taskId}`;

/** The execution's money record, seen from one node run (or one Chat Model supply). */
export class ExecutionSpend {
	private readonly book: ExecutionBook;

	constructor(private readonly ctx: ProxyReader | undefined) {
		// without an execution signal (never in n8n) the record lives as long as this context
		this.book = bookOf(executionSignal(ctx)) ?? bookOf(new AbortController().signal)!;
		if (!this.book.baseline) {
			const data = customData(ctx);
			this.book.baseline = { quota: wholeOrZero(data?.get(SPENT_KEY)), unpriced: 0 };
		}
	}

	/** What the execution has spent so far (every entry, and what an earlier process of it recorded). */
	spent(): SpentSoFar {
		const data = customData(this.ctx);
		const all = data?.getAll() ?? {};
		const full = !!data && !(SPENT_KEY in all) && Object.keys(all).length >= MAX_CUSTOM_DATA_KEYS;
		let quota = this.book.baseline!.quota;
		let unpriced = this.book.baseline!.unpriced;
		let bounded = false;
		let estimated = false;
		for (const e of this.book.spend.values()) {
			quota += e.quota;
			if (e.unpriced) unpriced++;
			if (e.estimate) estimated = true;
			else if (!e.exact) bounded = true;
		}
		return { quota, unpriced, bounded, estimated, full };
	}

	/** The execution's book (for the gate of capped calls without a bound). */
	get executionBook(): ExecutionBook {
		return this.book;
	}

	has(key: string): boolean {
		return this.book.spend.has(key);
	}

	get(key: string): SpendEntry | undefined {
		return this.book.spend.get(key);
	}

	/** Sets (or replaces) entries and writes the execution's total to its custom data. */
	record(
		entries: Array<[string, SpendEntry]>,
		display?: DisplaySettings,
		drop: string[] = [],
	): RecordResult {
		for (const k of drop) this.book.spend.delete(k);
		for (const [k, e] of entries)
			this.book.spend.set(k, { ...e, quota: Math.max(0, Math.ceil(e.quota)) });
		const s = this.spent();
		const data = customData(this.ctx);
		if (!data) return { total: s.quota, kept: false };
		const shown = display
			? `${formatDisplay(quotaToDisplay(s.quota, display))} (¤${s.quota})`
			: `¤${s.quota}`;
		const words = s.estimated
			? ` — an estimate, not a bound (it holds delta video estimates${s.bounded ? ' and bounds' : ''}: Task Wait settles them)`
			: s.bounded
				? ' at most (some charges are bounds: multiplier or usage not known)'
				: '';
		const text = `${shown}${words}${s.unpriced ? `; ${s.unpriced} call(s) with no price not included` : ''}`;
		try {
			data.setAll({ [SPENT_KEY]: String(s.quota), [SPENT_TEXT_KEY]: text.slice(0, MAX_VALUE) });
		} catch {
			return { total: s.quota, kept: false };
		}
		return { total: s.quota, kept: data.get(SPENT_KEY) === String(s.quota) };
	}
}
