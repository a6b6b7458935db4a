/**
 * The one runner of the paid nodes (Image Submit, Video Create, Chat, Responses), in named phases:
 *
 *   check      every item read and checked (parameters, expressions, binaries, rules, money options): nothing is sent
 *              when an item is invalid and the node stops on errors;
 *   price/cap  every item priced (the price list read beside the paid calls, within its own bound); Max Expected
 *              Spend — the strictest any item names — may refuse the whole batch here, before the first paid request;
 *              with Quote Only, the batch ends here: one `quoted` item per input, nothing sent;
 *   send       each item's paid request sent once (./send.ts: spend scope, the one 429 rule), in an adaptive window;
 *              the ledger (./ledger.ts) knows an item by its place, so a Retry On Fail re-run reuses what it got;
 *   finish     each answer turned into its item as soon as it came back (wait, download, read the answer);
 *   record     every item that reached the gateway gets its `cost` and its entry in the execution's money record;
 *   emit       one item per input, paired, on the output its outcome chose (./failures.ts: once money was spent the
 *              node never throws).
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { exitOf } from '../exit';
import { quotedItem, uncertainItem } from '../items/shapes';
import { AdaptiveLimit } from '../limit';
import {
	BudgetError,
	capRefusal,
	costEntry,
	costJsonOf,
	pricesOf,
	quotesFor,
	spendHint,
	strictest,
	type Prices,
} from '../money/cap';
import {
	asSent,
	estimateOnly,
	type CostFigure,
	type PricedAs,
	type Quote,
	type TokenCount,
} from '../money/cost';
import { readMoneyOptions, resolveCap, type MoneyOptions } from '../money/options';
import { callSpendKey, ExecutionSpend, type SpendEntry } from '../money/record';
import type { GatewayTransport } from '../transport';
import {
	errorMode,
	failure,
	failureHint,
	failureItem,
	isFailure,
	type ErrorMode,
	type PaidFailure,
} from './failures';
import {
	callLedger,
	executionSignal,
	placeKey,
	runIndexOf,
	type LedgerEntry,
	type Place,
	type RetryLedger,
} from './ledger';
import { isCancellation, sendPaid, SpentError } from './send';

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
	/** the token usage of an answer (per-token models) */
	usageOf?(sent: S): TokenCount | undefined;
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

export const DEFAULT_START_WINDOW = 8;
export { MIN_REFUSAL_WAIT_MS } from './send';

type Result = INodeExecutionData | PaidFailure;

interface Checked<P> {
	prepared: Array<P | undefined>;
	money: Array<MoneyOptions | undefined>;
}

/** check: every item and its money options; a bad money option refuses the whole batch, naming the item. */
async function check<P, S>(
	ctx: IExecuteFunctions,
	op: PaidOperation<P, S>,
	mode: ErrorMode,
	results: Result[],
): Promise<Checked<P>> {
	const n = ctx.getInputData().length;
	// dense arrays: a refused item is an `undefined` entry, never a hole that `map` would skip (Quote Only maps them)
	const prepared: Array<P | undefined> = Array.from({ length: n }, () => undefined);
	const money: Array<MoneyOptions | undefined> = Array.from({ length: n }, () => undefined);
	let moneyError: { err: unknown; i: number } | undefined;
	for (let i = 0; i < n; i++) {
		try {
			money[i] = readMoneyOptions(
				ctx.getNodeParameter('options', i, {}) as Record<string, unknown>,
			);
		} catch (err) {
			moneyError ??= { err, i };
		}
	}
	for (let i = 0; i < n; i++) {
		try {
			if (moneyError) throw withItem(moneyError.err, moneyError.i, i);
			prepared[i] = await op.prepare(i);
		} catch (err) {
			if (mode === 'stop') throw exitOf(ctx).error(err, i);
			results[i] = failure(err, 'validation', false);
		}
	}
	return { prepared, money };
}

/** The money options of item `at` refuse the batch: every item says which item and field. */
function withItem(err: unknown, at: number, i: number): Error {
	const message = err instanceof Error ? err.message : String(err);
	const e = new Error(
		at === i
			? message
			: `item ${at}: ${message} (the batch is refused: the spend options of every item are checked before any request)`,
	);
	(e as Error & { description?: string }).description =
		`Nothing was sent to the gateway. Item ${at}'s spend options break a rule: ${message}`;
	return e;
}

/** Runs a node's input items through a paid operation, in the phases above (the twin of ./free.ts's runFreeItems). */
export async function runPaidItems<P, S>(
	ctx: IExecuteFunctions,
	transport: GatewayTransport,
	op: PaidOperation<P, S>,
	opts: PaidRunOptions,
): Promise<INodeExecutionData[][]> {
	const items = ctx.getInputData();
	const mode = errorMode(ctx);
	const exit = exitOf(ctx);
	const results: Result[] = new Array(items.length);
	const node = ctx.getNode();
	const place = (i: number): Place => ({
		node: node.id ?? node.name,
		run: runIndexOf(ctx),
		item: i,
	});

	// check
	const { prepared, money } = await check(ctx, op, mode, results);
	const quoteOnly = opts.quoteOnly ?? money.some((m) => m?.quoteOnly === true);
	const ledger = node.retryOnFail === true ? callLedger<S>(executionSignal(ctx)) : undefined;
	const spend = new ExecutionSpend(ctx);
	const anyToSend = () => prepared.some((p) => p !== undefined);

	// price and cap: the look-up starts now, beside the paid calls; the cap (or a quote) waits for it, within its bound
	const pricing = anyToSend() ? pricesOf(transport) : Promise.resolve<Prices>({});
	let quotes: Array<Quote | undefined> = [];
	const priceAll = (prices: Prices) =>
		(quotes = quotesFor(
			prepared.map((p, i) =>
				p === undefined ? undefined : { priced: op.pricedAs(p), group: money[i]?.group ?? {} },
			),
			prices,
		));
	const limits = strictest(
		prepared
			.map((p, i) => (p === undefined ? undefined : money[i]))
			.filter((m): m is MoneyOptions => !!m),
	);
	const capNeeded =
		limits.cap !== undefined ||
		prepared.some((p, i) => p !== undefined && money[i]?.spend !== undefined);
	if (anyToSend() && (capNeeded || quoteOnly)) {
		const prices = await pricing;
		priceAll(prices);
		const refused = capNeeded
			? budgetRefusal(
					spend,
					prepared,
					money,
					quotes,
					prices,
					(i) => ledger?.get(place(i)) !== undefined,
				)
			: undefined;
		if (refused) {
			if (mode === 'stop') throw exit.error(refused, 0);
			prepared.forEach((p, i) => {
				if (p !== undefined)
					results[i] = failure(refused, 'budget', false, { fields: op.quoteFields?.(p) });
			});
			prepared.fill(undefined);
		} else if (quoteOnly) {
			return [quoteItems(ctx, mode, prepared, quotes, results, prices, op)];
		}
	}
	if (anyToSend()) await op.beforeSend?.(prepared);

	// send and finish
	const window = new AdaptiveLimit(
		Math.max(1, opts.maxConcurrency),
		opts.startConcurrency ?? DEFAULT_START_WINDOW,
	);
	const answers: Array<LedgerEntry<S> | undefined> = [];
	/** the paid requests each item sent (this run or, under Retry On Fail, an earlier one): what its record counts */
	const requests: number[] = [];
	let spent = false;
	// every paid POST of an item — the first, a follow-up — goes through the one send, in its own spend scope
	const send = (post: () => Promise<S>) =>
		sendPaid(post, {
			refusalWindowMs: opts.refusalWindowMs,
			sleep: (ms) => transport.sleep(ms),
			window,
		});
	const runItem = async (i: number): Promise<void> => {
		const p = prepared[i];
		if (p === undefined) return;
		let entry = ledger?.get(place(i));
		if (entry === undefined) {
			try {
				entry = { sent: await send(() => op.send(p, i)) };
			} catch (err) {
				if (!(err instanceof SpentError)) {
					if (isCancellation(err, transport.signal)) throw err;
					results[i] = failure(err, 'submit', false, { fields: op.quoteFields?.(p) });
					return;
				}
				entry = { lost: err.cause };
			}
			ledger?.record(place(i), entry);
		}
		requests[i] = 1;
		if ('sent' in entry) {
			const next = await followUp(
				op,
				p,
				entry,
				i,
				ledger,
				{ ...place(i), step: 1 },
				send,
				transport,
			);
			entry = next.entry;
			requests[i] += next.sent ? 1 : 0;
		}
		answers[i] = entry;
		spent = true;
		results[i] = await finishItem(op, p, entry, i, transport);
	};
	// every item's send settles (and is in the ledger) before the node ends, even when one item throws: a Retry On Fail
	// try starting while another item's POST is still on its way would not find it and would pay it again
	const ran = await Promise.allSettled(items.map((_, i) => runItem(i)));
	const thrown = ran.find((r): r is PromiseRejectedResult => r.status === 'rejected');
	if (thrown) throw thrown.reason;

	// record
	if (spent) {
		const prices = await pricing;
		if (!quotes.length) priceAll(prices);
		recordCosts(ctx, spend, results, answers, requests, quotes, prices, op, place);
	}

	// emit
	return emit(ctx, results, { mode, spent });
}

/** The cap for the items about to be sent (one that a re-run already sent is spent, not expected). */
function budgetRefusal<P>(
	spend: ExecutionSpend,
	prepared: Array<P | undefined>,
	money: Array<MoneyOptions | undefined>,
	quotes: Array<Quote | undefined>,
	prices: Prices,
	alreadySent: (i: number) => boolean,
): BudgetError | undefined {
	const resolved: MoneyOptions[] = [];
	for (const [i, p] of prepared.entries()) {
		const m = money[i];
		if (!m) continue;
		const r = resolveCap(m, prices.display);
		// a cap in another currency refuses the batch, also on an item refused for another field (what it says of the
		// money is checked for every item, as the other spend options are)
		if (r.refusal)
			return new BudgetError(
				prepared[i] === undefined ? `item ${i}: ${r.refusal}` : r.refusal,
				'Nothing was sent to the gateway.',
			);
		if (p === undefined) continue;
		if (r.unreadable) {
			return new BudgetError(
				`Max Expected Spend ${m.spend!.amount} (display currency) cannot be checked: the site's display settings (/api/status) could not be read${prices.error ? ` (${prices.error})` : ''}`,
				'Nothing was sent to the gateway. Write the cap in ¤ quota units (e.g. ¤500000) to check it without the display settings, or try again.',
			);
		}
		resolved.push({ ...m, cap: r.cap });
	}
	const toSend = quotes.filter(
		(q, i): q is Quote => !!q && prepared[i] !== undefined && !alreadySent(i),
	);
	return capRefusal(spend, strictest(resolved), toSend, prices.display, 'the batch');
}

/** Quote Only: each checked item's expected cost, nothing sent. */
function quoteItems<P, S>(
	ctx: IExecuteFunctions,
	mode: ErrorMode,
	prepared: Array<P | undefined>,
	quotes: Array<Quote | undefined>,
	results: Result[],
	prices: Prices,
	op: PaidOperation<P, S>,
): INodeExecutionData[] {
	const exit = exitOf(ctx);
	const figures = prepared.map((p, i) =>
		p === undefined ? undefined : costEntry(quotes[i]!, undefined, `quote ${i}`).figure,
	);
	const total = figures.reduce((n, f) => n + (f?.quota ?? 0), 0);
	const priced = figures.filter((f) => f && f.quota !== undefined) as CostFigure[];
	const unpriced = figures.filter((f) => f && f.quota === undefined).length;
	const word = priced.every((f) => f.status === 'expected' || f.status === 'settled')
		? ''
		: priced.some(estimateOnly)
			? ' (an estimate, not a bound: see each cost)'
			: ' at most';
	const totalJson = costJsonOf(
		{
			status: 'estimate',
			basis: null,
			quota: total,
			multiplier: { source: null, group: null },
			quantity: {},
			note: '',
		},
		prices.display,
	);
	const amount = (totalJson.text as string | null) ?? `¤${total}`;
	const count = figures.filter(Boolean).length;
	// every quoted item carries the batch's total, so an approval step shows it whatever item it reads
	const quoteTotal: IDataObject = {
		items: count,
		quota: total,
		amount: totalJson.amount ?? null,
		currency: totalJson.currency ?? null,
		symbol: totalJson.symbol ?? null,
		kind: !word ? 'exact' : word === ' at most' ? 'at most' : 'estimate',
		items_without_price: unpriced,
		text: `${amount}${word}${unpriced ? `, plus ${unpriced} item(s) with no price before the call` : ''}`,
	};
	exit.hint(
		`Quote Only: nothing was sent. ${
			priced.length
				? `${count} item(s) can cost ${amount}${word}${unpriced ? `, plus ${unpriced} with no price before the call` : ''}`
				: `${count} item(s) have no price before the call (see each cost)`
		}.`,
	);
	return prepared.map((p, i) => {
		const r = results[i];
		if (p === undefined)
			return isFailure(r) ? failureItem(ctx, r, i, mode, false) : { ...r, pairedItem: { item: i } };
		return {
			json: quotedItem({
				...(op.quoteFields?.(p) ?? {}),
				cost: costJsonOf(figures[i]!, prices.display),
				quote_total: quoteTotal,
			}),
			pairedItem: { item: i },
		};
	});
}

/**
 * The item's follow-up request, sent once at its own place (a re-run reuses what it got), joined to the first answer;
 * `sent`: a follow-up request left (a refused one created nothing).
 */
async function followUp<P, S>(
	op: PaidOperation<P, S>,
	p: P,
	first: { sent: S },
	i: number,
	ledger: RetryLedger<S> | undefined,
	at: Place,
	send: (post: () => Promise<S>) => Promise<S>,
	transport: GatewayTransport,
): Promise<{ entry: LedgerEntry<S>; sent: boolean }> {
	const next = op.followUp?.(p, first.sent, i);
	if (!next) return { entry: first, sent: false };
	let second: LedgerEntry<S> | { refused: unknown } | undefined = ledger?.get(at);
	if (second === undefined) {
		try {
			second = { sent: await send(() => next.send()) };
		} catch (err) {
			second = err instanceof SpentError ? { lost: err.cause } : { refused: err };
		}
		// a refusal created nothing: a re-run may send the follow-up again, never the first request
		if (!('refused' in second)) ledger?.record(at, second);
		// a cancelled execution stops here, whether or not the follow-up had left (what left is recorded above)
		const why = 'refused' in second ? second.refused : 'lost' in second ? second.lost : undefined;
		if (why !== undefined && isCancellation(why, transport.signal)) throw why;
	}
	return { entry: { sent: next.join(second) }, sent: !('refused' in second) };
}

/** finish: the answer into the item; an exception after the request left is an unknown outcome, never a resend. */
async function finishItem<P, S>(
	op: PaidOperation<P, S>,
	p: P,
	entry: LedgerEntry<S>,
	i: number,
	transport: GatewayTransport,
): Promise<Result> {
	if ('lost' in entry) {
		if (isCancellation(entry.lost, transport.signal)) throw entry.lost;
		const reason = entry.lost instanceof Error ? entry.lost.message : String(entry.lost);
		return {
			json: uncertainItem(
				{ task_id: null, ...(op.quoteFields?.(p) ?? {}) },
				`the request left and then failed: ${reason}`,
			),
		};
	}
	try {
		return await op.finish(p, entry.sent, i);
	} catch (err) {
		if (isCancellation(err, transport.signal)) throw err;
		let taskId: string | undefined;
		try {
			taskId = op.taskIdOf?.(entry.sent);
		} catch {
			taskId = undefined;
		}
		return failure(err, 'answer', true, { taskId });
	}
}

/** record: every item that reached the gateway gets its `cost`, and its entry in the execution's money record. */
function recordCosts<P, S>(
	ctx: IExecuteFunctions,
	spend: ExecutionSpend,
	results: Result[],
	answers: Array<LedgerEntry<S> | undefined>,
	requests: number[],
	quotes: Array<Quote | undefined>,
	prices: Prices,
	op: PaidOperation<P, S>,
	place: (i: number) => Place,
): void {
	const entries: Array<[string, SpendEntry]> = [];
	const figures = [];
	for (const [i, r] of results.entries()) {
		const q = quotes[i];
		const entry = answers[i];
		if (!q || !entry || (isFailure(r) && !r.submitted)) continue;
		let usage: TokenCount | undefined;
		let key: string | undefined;
		try {
			usage = 'sent' in entry ? op.usageOf?.(entry.sent) : undefined;
			key = 'sent' in entry ? op.spendKeyOf?.(entry.sent) : undefined;
		} catch {
			usage = undefined;
		}
		// the requests the item sent, not those it might have (a JSON Schema answer that validated at once: one)
		const { figure, entry: spendEntry } = costEntry(
			asSent(q, requests[i] ?? 1),
			usage,
			`${ctx.getNode().name} item ${i}`,
		);
		figures.push(figure);
		entries.push([key ?? callSpendKey(placeKey(place(i))), spendEntry]);
		const cost = costJsonOf(figure, prices.display);
		if (isFailure(r)) r.fields = { ...(r.fields ?? {}), cost };
		else results[i] = { ...r, json: { ...r.json, cost } };
	}
	const total = spend.record(entries, prices.display);
	const hint = spendHint('This node', figures, total, spend, prices.display);
	if (hint) exitOf(ctx).hint(hint);
}

/** emit: one item per input, paired; once the batch spent money the node never throws (Retry On Fail would resend). */
function emit(
	ctx: IExecuteFunctions,
	results: Result[],
	o: { mode: ErrorMode; spent: boolean },
): INodeExecutionData[][] {
	const failures = results
		.map((r, i) => ({ r, i }))
		.filter((x): x is { r: PaidFailure; i: number } => isFailure(x.r));
	const uncertain = results.filter((r) => !isFailure(r) && r.json.status === 'uncertain').length;
	const hint = failureHint(
		ctx,
		results.length,
		failures.map(({ r, i }) => ({ f: r, i })),
		uncertain,
	);
	if (failures.length && o.mode === 'stop' && !o.spent) {
		const first = failures[0];
		throw exitOf(ctx).error(first.r.error, first.i);
	}
	if (hint) exitOf(ctx).hint(hint, 'warning');
	const paired = (item: INodeExecutionData, i: number): INodeExecutionData => ({
		...item,
		pairedItem: { item: i },
	});
	if (o.mode === 'errorOutput') {
		// n8n splits this output into success and error items keeping each side's order: successes first keep an
		// error item out of the first place, where Retry On Fail would read it
		const ok = results
			.map((r, i) => (isFailure(r) ? undefined : paired(r, i)))
			.filter((x): x is INodeExecutionData => !!x);
		const bad = failures.map(({ r, i }) => failureItem(ctx, r, i, 'errorOutput', false));
		return [[...ok, ...bad]];
	}
	return [
		results.map((r, i) =>
			isFailure(r) ? failureItem(ctx, r, i, o.mode, i === 0 && o.spent) : paired(r, i),
		),
	];
}
