/**
 * Quote Only (the paid runner's price phase ends here, ./costs.ts): one `quoted` item per input with its expected cost
 * and the batch's total, nothing sent; an item refused by the check comes out as it would have.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';
import { exitOf } from '../exit';
import { quotedItem } from '../items/shapes';
import { costEntry, costJsonOf, type Prices } from '../money/cap';
import type { Quote } from '../money/cost';
import { estimateOnly, type CostFigure } from '../money/figure';
import type { DisplaySettings } from '../money/prices';
import { failureItem, isFailure } from './failures';
import type { PaidRun } from './operation';

/** The batch's quote: what every quoted item carries (`quote_total`) and what the hint says of it. */
interface BatchQuote {
	json: IDataObject;
	/** the items quoted */
	count: number;
	/** the items with a figure before the call, and those without */
	priced: number;
	unpriced: number;
	/** the total, in the display currency when it is known */
	amount: string;
	/** '' (exact), ' at most' or ' (an estimate, not a bound: see each cost)' */
	word: string;
}

/** Quote Only: each checked item's expected cost, nothing sent. */
export function quoteItems<P, S>(
	run: PaidRun<P, S>,
	prepared: Array<P | undefined>,
	quotes: Array<Quote | undefined>,
	prices: Prices,
): INodeExecutionData[] {
	const figures = prepared.map((p, i) =>
		p === undefined ? undefined : costEntry(quotes[i]!, undefined, `quote ${i}`).figure,
	);
	const total = batchQuote(figures, prices.display);
	exitOf(run.ctx).hint(quoteHint(total));
	return prepared.map((p, i) => {
		const r = run.results[i];
		if (p === undefined)
			return isFailure(r)
				? failureItem(run.ctx, r, i, run.mode, false)
				: { ...r, pairedItem: { item: i } };
		return {
			// like a failed or uncertain item, a quoted one says its task_id: null, nothing was sent (docs/behaviour.md: under
			// Continue every item says its task_id)
			json: quotedItem({
				task_id: null,
				...(run.op.quoteFields?.(p) ?? {}),
				cost: costJsonOf(figures[i]!, prices.display),
				// every quoted item carries the batch's total, so an approval step shows it whatever item it reads
				quote_total: total.json,
			}),
			pairedItem: { item: i },
		};
	});
}

/** The batch's total: the sum of the items' figures, and how sure it is (exact, at most, an estimate). */
function batchQuote(
	figures: Array<CostFigure | undefined>,
	display: DisplaySettings | undefined,
): BatchQuote {
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
		display,
	);
	const amount = (totalJson.text as string | null) ?? `¤${total}`;
	const count = figures.filter(Boolean).length;
	const json: IDataObject = {
		items: count,
		quota: total,
		amount: totalJson.amount ?? null,
		currency: totalJson.currency ?? null,
		symbol: totalJson.symbol ?? null,
		kind: !word ? 'exact' : word === ' at most' ? 'at most' : 'estimate',
		items_without_price: unpriced,
		text: `${amount}${word}${unpriced ? `, plus ${unpriced} item(s) with no price before the call` : ''}`,
	};
	return { json, count, priced: priced.length, unpriced, amount, word };
}

/** "Quote Only: nothing was sent. 2 item(s) can cost $0.064 (¤32000)." */
function quoteHint(q: BatchQuote): string {
	return `Quote Only: nothing was sent. ${
		q.priced
			? `${q.count} item(s) can cost ${q.amount}${q.word}${q.unpriced ? `, plus ${q.unpriced} with no price before the call` : ''}`
			: `${q.count} item(s) have no price before the call (see each cost)`
	}.`;
}
