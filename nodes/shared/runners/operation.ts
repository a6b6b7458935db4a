/**
 * What a paid node hands the paid runner (./paid.ts), and what the runner's phases share: the node's operation (how
 * an item is checked, priced, sent and finished), how the batch is sent, and the run the phases work on.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import type { PricedAs } from '../money/cost';
import type { TokenCount } from '../money/tokens';
import type { MoneyOptions } from '../money/options';
import type { GatewayTransport } from '../transport';
import type { ErrorMode, PaidFailure } from './failures';
import type { LedgerEntry, Place, RetryLedger } from './ledger';

export interface PaidOperation<P, S> {
	/** reads and checks item `i` (parameters, expressions, binaries, rules); sends nothing; throws what is wrong */
	prepare(i: number): Promise<P>;
	/** after every item was checked, before the first paid request (e.g. hints about the items) */
	beforeSend?(prepared: Array<P | undefined>): Promise<void>;
	/**
	 * Sends the paid request once and returns what came back, interpreting as little as it can: interpretation
	 * belongs in `finish`, after the spend is recorded. What it throws after the request left counts as spent.
	 */
	send(p: P, i: number): Promise<S>;
	/** turns the answer into the item, waiting or downloading as needed; a failure is returned, never thrown */
	finish(p: P, sent: S, i: number): Promise<INodeExecutionData | PaidFailure>;
	/**
	 * A second paid request the answer calls for (a JSON Schema answer that did not validate: the one repair request).
	 * It is its own send — its own spend scope, 429 rule and ledger place —, so its refusal never touches the first
	 * request, which was answered and paid; `join` makes the item's answer of both.
	 */
	followUp?(p: P, first: S, i: number): FollowUp<S> | undefined;
	/** the task ID in an answer, for a failure nobody expected after it */
	taskIdOf?(sent: S): string | undefined;
	/** what the item is priced by: its model and the calls billed per call */
	pricedAs(p: P): PricedAs;
	/**
	 * the token usage of each paid request an answer came from (per-token models), in the order they were sent: the
	 * first request, then its follow-up; undefined for a request whose usage is not known (its answer lost)
	 */
	usagesOf?(sent: S): Array<TokenCount | undefined>;
	/** where the item's spend is recorded when not by its place (a delta video: by its task, so its settled fee replaces it) */
	spendKeyOf?(sent: S): string | undefined;
	/** the fields a Quote Only item carries besides its cost (model, prompt …) */
	quoteFields?(p: P): IDataObject;
}

/** A paid request sent after the item's first one, and how the two answers make the item's. */
export interface FollowUp<S> {
	send(): Promise<S>;
	/** the item's answer: the first, with what the second got (its answer, a spent call, or a refusal that created nothing) */
	join(second: LedgerEntry<S> | { refused: unknown }): S;
}

/** How runPaidItems sends: its window and the 429 rule's time. */
export interface PaidRunOptions {
	/** the window's upper bound (1 = one request at a time, in item order) */
	maxConcurrency: number;
	/** where the window starts (default min(8, max)) */
	startConcurrency?: number;
	/** how long after its first attempt a request refused with 429 may be sent again */
	refusalWindowMs: number;
	/** check and price every item, send nothing */
	quoteOnly?: boolean;
}

/** An item's outcome: its output item, or its failure. */
export type Result = INodeExecutionData | PaidFailure;

/** What the check phase hands the others: each item's prepared request and money options (undefined: refused). */
export interface Checked<P> {
	prepared: Array<P | undefined>;
	money: Array<MoneyOptions | undefined>;
}

/** One run of a paid node through the runner: what every phase reads, and the outcomes they write. */
export interface PaidRun<P, S> {
	ctx: IExecuteFunctions;
	transport: GatewayTransport;
	op: PaidOperation<P, S>;
	mode: ErrorMode;
	/** each item's outcome so far, by its index */
	results: Result[];
	/** where item `i`'s paid call stands in the execution */
	place(i: number): Place;
	/** under Retry On Fail: what each place got in an earlier try */
	ledger?: RetryLedger<S>;
}

/** Whether any item passed the check and is still to be sent. */
export const anyToSend = <P>(prepared: Array<P | undefined>) =>
	prepared.some((p) => p !== undefined);
