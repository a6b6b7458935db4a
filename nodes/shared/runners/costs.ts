/**
 * The paid runner's money phases (./paid.ts): the batch priced and capped before its first paid request (Max Expected
 * Spend may refuse it whole; Quote Only ends it there), and every item that reached the gateway recorded after.
 */
import type { INodeExecutionData } from 'n8n-workflow';
import { exitOf } from '../exit';
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
import { asSent, type Quote } from '../money/cost';
import { sumFigures, type CostFigure } from '../money/figure';
import type { TokenCount } from '../money/tokens';
import { resolveCap, type MoneyOptions } from '../money/options';
import { callSpendKey, type ExecutionSpend, type SpendEntry } from '../money/record';
import { failure, isFailure } from './failures';
import { placeKey } from './ledger';
import { anyToSend, type Checked, type PaidRun } from './operation';
import { quoteItems } from './quote';
import type { Sent } from './sendItems';

/** The batch's prices: the look-up, started beside the paid calls, and each checked item's quote once it is read. */
export interface BatchPrices {
	lookup: Promise<Prices>;
	/** by item; empty until the prices are read */
	quotes: Array<Quote | undefined>;
}

/** The price look-up starts now, beside the paid calls; the cap (or a quote, or the record) waits for it, within its bound. */
export function startPricing<P, S>(run: PaidRun<P, S>, checked: Checked<P>): BatchPrices {
	return {
		lookup: anyToSend(checked.prepared) ? pricesOf(run.transport) : Promise.resolve<Prices>({}),
		quotes: [],
	};
}

/** The prices, once read, and every checked item's quote at them (priced once: by the cap, or by the record). */
async function priceAll<P, S>(
	run: PaidRun<P, S>,
	{ prepared, money }: Checked<P>,
	batch: BatchPrices,
): Promise<Prices> {
	const prices = await batch.lookup;
	if (!batch.quotes.length)
		batch.quotes = quotesFor(
			prepared.map((p, i) =>
				p === undefined ? undefined : { priced: run.op.pricedAs(p), group: money[i]?.group ?? {} },
			),
			prices,
		);
	return prices;
}

/**
 * price and cap: with a cap (Max Expected Spend, the strictest any item names) the batch is priced and may be refused
 * whole, before the first paid request; with Quote Only it ends here, and its items are returned (nothing sent).
 */
export async function priceAndCap<P, S>(
	run: PaidRun<P, S>,
	checked: Checked<P>,
	batch: BatchPrices,
	spend: ExecutionSpend,
	quoteOnly: boolean,
): Promise<INodeExecutionData[] | undefined> {
	const { prepared, money } = checked;
	const limits = strictest(
		prepared
			.map((p, i) => (p === undefined ? undefined : money[i]))
			.filter((m): m is MoneyOptions => !!m),
	);
	const capNeeded =
		limits.cap !== undefined ||
		prepared.some((p, i) => p !== undefined && money[i]?.spend !== undefined);
	if (!anyToSend(prepared) || !(capNeeded || quoteOnly)) return undefined;
	const prices = await priceAll(run, checked, batch);
	const refused = capNeeded
		? budgetRefusal(
				spend,
				checked,
				batch.quotes,
				prices,
				(i) => run.ledger?.get(run.place(i)) !== undefined,
			)
		: undefined;
	if (refused) refuseBatch(run, prepared, refused);
	else if (quoteOnly) return quoteItems(run, prepared, batch.quotes, prices);
	return undefined;
}

/** The cap refused the batch: the node stops, or every item still to send fails with its refusal and none is sent. */
function refuseBatch<P, S>(
	run: PaidRun<P, S>,
	prepared: Array<P | undefined>,
	refused: BudgetError,
): void {
	if (run.mode === 'stop') throw exitOf(run.ctx).error(refused, 0);
	prepared.forEach((p, i) => {
		if (p !== undefined)
			run.results[i] = failure(refused, 'budget', false, { fields: run.op.quoteFields?.(p) });
	});
	prepared.fill(undefined);
}

/** The cap for the items about to be sent (one that a re-run already sent is spent, not expected). */
function budgetRefusal<P>(
	spend: ExecutionSpend,
	{ prepared, money }: Checked<P>,
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
				`Max Expected Spend ${m.spend!.amount} (display currency) cannot be checked: ` +
					`the site's display settings (/api/status) could not be read${prices.error ? ` (${prices.error})` : ''}`,
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

/** record: every item that reached the gateway gets its `cost`, and its entry in the execution's money record. */
export async function recordCosts<P, S>(
	run: PaidRun<P, S>,
	checked: Checked<P>,
	batch: BatchPrices,
	spend: ExecutionSpend,
	sent: Sent<S>,
): Promise<void> {
	const prices = await priceAll(run, checked, batch);
	const entries: Array<[string, SpendEntry]> = [];
	const figures: CostFigure[] = [];
	for (const [i, r] of run.results.entries()) {
		const q = batch.quotes[i];
		const entry = sent.answers[i];
		if (!q || !entry || (isFailure(r) && !r.submitted)) continue;
		let usages: Array<TokenCount | undefined> | undefined;
		let key: string | undefined;
		try {
			usages = 'sent' in entry ? run.op.usagesOf?.(entry.sent) : undefined;
			key = 'sent' in entry ? run.op.spendKeyOf?.(entry.sent) : undefined;
		} catch {
			usages = undefined;
		}
		// each request the item sent (not those it might have: a JSON Schema answer that validated at once is one) is its
		// own entry at its own place, priced from its own usage, as the gateway charges each on its own
		const mine = requestEntries(run, i, asSent(q, sent.requests[i] ?? 1), usages, key);
		figures.push(...mine.map((m) => m.figure));
		entries.push(...mine.map((m): [string, SpendEntry] => [m.key, m.entry]));
		const figure = sumFigures(mine.map((m) => m.figure));
		const cost = {
			...costJsonOf(figure, prices.display),
			...(mine.length > 1
				? { per_request: mine.map((m) => costJsonOf(m.figure, prices.display)) }
				: {}),
		};
		if (isFailure(r)) r.fields = { ...(r.fields ?? {}), cost };
		else run.results[i] = { ...r, json: { ...r.json, cost } };
	}
	const total = spend.record(entries, prices.display);
	const hint = spendHint('This node', figures, total, spend, prices.display);
	if (hint) exitOf(run.ctx).hint(hint);
}

/**
 * An item's paid requests as the record counts them: one entry per request that left (the first at the item's place or
 * its task, a follow-up at its own step), each priced alone; `q` counts the requests sent.
 */
function requestEntries<P, S>(
	run: PaidRun<P, S>,
	i: number,
	q: Quote,
	usages: Array<TokenCount | undefined> | undefined,
	key: string | undefined,
): Array<{ key: string; figure: CostFigure; entry: SpendEntry }> {
	const label = `${run.ctx.getNode().name} item ${i}`;
	const place = run.place(i);
	const first = key ?? callSpendKey(placeKey(place));
	if (q.requests <= 1) return [{ key: first, ...costEntry(q, usages?.[0], label) }];
	const one = asSent(q, 1);
	return Array.from({ length: q.requests }, (_, k) => ({
		key: k === 0 ? first : callSpendKey(placeKey({ ...place, step: k })),
		...costEntry(one, usages?.[k], k === 0 ? label : `${label} request ${k + 1}`),
	}));
}
