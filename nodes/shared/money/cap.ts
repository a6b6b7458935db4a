/**
 * The money phase every paid door goes through — an action node's batch, a Chat Model turn: the prices (looked up
 * beside the paid calls within PRICE_LOOKUP_MS, never holding a paid result), the spend cap checked before any paid
 * request, each call's `cost`, and its entry in the execution's one money record (./record.ts).
 *
 * The cap: before the first paid request, what the execution has already spent (every GenGateway call of it: action
 * nodes, Chat Model turns, settled fees; exact charges and upper bounds) plus what the calls about to be sent can cost
 * is compared with Max Expected Spend; over it (strictly), nothing is sent. A call counts at its exact price when the
 * multiplier is known, else at the highest group ratio the price list publishes for the model (a range, never the
 * cheapest); a per-token call at its bound when one can be given. A call with no figure before it is sent counts as
 * over the cap unless Allow Unpriced Models is on. A call counts once whatever the 429 refusals before it went.
 */
import type { IDataObject } from 'n8n-workflow';
import { loadPricing, PRICE_LOOKUP_MS } from './lookup';
import { formatDisplay, quotaToDisplay, type DisplaySettings, type PricingData } from './prices';
import type { GatewayTransport } from '../transport';
import { quote, type GroupChoice, type PricedAs, type Quote, withKeyGroup } from './cost';
import {
	capBound,
	costJson,
	costOf,
	estimateOnly,
	figureText,
	quoteText,
	type CostFigure,
} from './figure';
import type { TokenCount } from './tokens';
import type { MoneyOptions } from './options';
import { displayCurrency } from './spend';
import { MAX_CUSTOM_DATA_KEYS, type ExecutionSpend, type SpendEntry } from './record';

/** The calls are over Max Expected Spend: nothing was sent. */
export class BudgetError extends Error {
	constructor(
		message: string,
		readonly description: string,
	) {
		super(message);
		this.name = 'BudgetError';
	}
}

export interface Prices {
	pricing?: PricingData;
	display?: DisplaySettings;
	error?: string;
	/** the credential's Key's Group: the group of every call whose node gives none */
	keyGroup?: GroupChoice;
}

/** The price list and display settings of this execution's transport, within PRICE_LOOKUP_MS; never throws. */
export function pricesOf(transport: GatewayTransport): Promise<Prices> {
	const keyGroup = transport.keyGroup;
	return loadPricing(transport, { budgetMs: PRICE_LOOKUP_MS }).then(
		(l) => ({ pricing: l.pricing, display: l.display, keyGroup }),
		(err: unknown) => ({ error: err instanceof Error ? err.message : String(err), keyGroup }),
	);
}

export const money = (quota: number, display: DisplaySettings | undefined) =>
	display ? `${formatDisplay(quotaToDisplay(quota, display))} (¤${quota})` : `¤${quota}`;

/** The strictest of several items' money options: the lowest cap any of them names, unpriced calls only if all allow them. */
export function strictest(options: MoneyOptions[]): {
	cap?: number;
	allowUnpriced: boolean;
	capAmount?: string;
} {
	const caps = options.map((o) => o.cap).filter((c): c is number => c !== undefined);
	const capped = options.filter((o) => o.cap !== undefined);
	const cap = caps.length ? Math.min(...caps) : undefined;
	// the cap as written in the display currency (¥0.145), when the strictest is one: its ¤ is that amount rounded down
	const at = capped.find((o) => o.cap === cap && o.spend?.unit === 'display');
	return {
		cap,
		allowUnpriced: capped.length > 0 && capped.every((o) => o.allowUnpriced),
		...(at?.spend && at.cap !== at.capQuota ? { capAmount: at.spend.amount } : {}),
	};
}

/**
 * The cap's refusal for these calls, or undefined when they may be sent. `what` names the calls in the message
 * ("the batch", "this model turn").
 */
export function capRefusal(
	spend: ExecutionSpend,
	limits: { cap?: number; allowUnpriced: boolean; hasAllowOption?: boolean; capAmount?: string },
	quotes: Quote[],
	display: DisplaySettings | undefined,
	what: string,
): BudgetError | undefined {
	// the Chat Model has no Allow Unpriced Models: its messages do not name it
	const allowOption = limits.hasAllowOption !== false;
	const cap = limits.cap;
	if (cap === undefined || !quotes.length) return undefined;
	const bounds = quotes.map(capBound);
	const unpriced = quotes.filter((_, i) => bounds[i] === undefined);
	const expected = bounds.reduce<number>((n, b) => n + (b ?? 0), 0);
	const so = spend.spent();
	const blockedUnpriced = unpriced.length > 0 && !limits.allowUnpriced;
	if (!blockedUnpriced && !so.full && expected + so.quota <= cap) return undefined;
	const perItem = [...new Set(quotes.map((q) => quoteText(q, display)))].join('; ');
	const capText =
		limits.capAmount !== undefined && display
			? `${displayCurrency(display).symbol}${limits.capAmount} (¤${cap})`
			: money(cap, display);
	const spent = `${money(so.quota, display)}${spentWord(so)}`;
	const why = so.full
		? `the execution's custom data already holds ${MAX_CUSTOM_DATA_KEYS} keys without gengateway_spent, so what this execution has spent cannot be known`
		: blockedUnpriced
			? `${unpriced.length} call(s) have no price before they are sent${allowOption ? ' and Allow Unpriced Models is off' : ''}`
			: `the price of ${money(expected, display)} + spent so far ${spent} = ${money(expected + so.quota, display)} is over the cap`;
	return new BudgetError(
		`Max Expected Spend ${capText} refused ${what} before any paid request: ${why}` +
			(blockedUnpriced || so.full
				? ` (${expected ? `the priced calls ${money(expected, display)}, ` : ''}spent so far ${spent}, cap ${capText})`
				: ''),
		`Nothing was sent to the gateway. Price: ${perItem}. ` +
			`Spent so far in this execution (every GenGateway node and Chat Model turn): ${spent}. ` +
			`Raise Max Expected Spend, ${allowOption ? 'turn on Allow Unpriced Models, ' : ''}or split the work.`,
	);
}

/** The word after what an execution has spent: nothing when every charge is known, "at most" only when it is a bound. */
export function spentWord(so: { bounded: boolean; estimated: boolean }): string {
	return so.estimated ? ' (an estimate, not a bound)' : so.bounded ? ' at most' : '';
}

/** A call's cost figure and its entry for the money record. */
export function costEntry(
	q: Quote,
	usage: TokenCount | undefined,
	label: string,
): { figure: CostFigure; entry: SpendEntry } {
	const figure = costOf(q, usage);
	const exact = figure.status === 'expected' || figure.status === 'settled';
	return {
		figure,
		entry: {
			quota: figure.quota ?? 0,
			exact,
			unpriced: figure.quota === undefined,
			label,
			...(estimateOnly(figure) ? { estimate: true } : {}),
		},
	};
}

/** The quotes of several calls, each with its own group choice, once the prices are in. */
export function quotesFor(
	as: Array<{ priced: PricedAs; group: GroupChoice } | undefined>,
	prices: Prices,
): Array<Quote | undefined> {
	return as.map((a) =>
		a
			? quote(
					a.priced,
					prices.pricing,
					prices.display,
					withKeyGroup(a.group, prices.keyGroup),
					prices.error,
				)
			: undefined,
	);
}

export function costJsonOf(figure: CostFigure, display: DisplaySettings | undefined): IDataObject {
	return costJson(figure, display);
}

/** "This node: $0.064 (¤32000) for 2 call(s) …; this execution's GenGateway calls have spent … so far." */
export function spendHint(
	who: string,
	figures: CostFigure[],
	total: { total: number; kept: boolean },
	spend: ExecutionSpend,
	display: DisplaySettings | undefined,
): string | undefined {
	if (!figures.length) return undefined;
	const counted = figures.filter((f) => f.quota !== undefined);
	const quota = counted.reduce((n, f) => n + f.quota!, 0);
	const low = counted.reduce((n, f) => n + (f.quotaLow ?? f.quota!), 0);
	const exact = counted.every((f) => f.status === 'expected' || f.status === 'settled');
	const estimated = counted.some(estimateOnly);
	const unpriced = figures.length - counted.length;
	const so = spend.spent();
	const amount =
		figureText({ quota, quotaLow: low !== quota ? low : undefined }, display) ??
		money(quota, display);
	// a fee that is not known is never shown as 0: it is named as a call with no figure
	const mine = counted.length
		? amount +
			(exact
				? ''
				: estimated
					? ' (an estimate, not a bound: see each cost)'
					: ' at most (see each cost: multiplier or usage not known)') +
			` for ${counted.length} call(s)` +
			(unpriced ? ` plus ${unpriced} call(s) with no figure yet (see each item's cost)` : '')
		: `${unpriced} call(s) with no figure yet (see each item's cost)`;
	const all =
		so.quota || !so.unpriced
			? `${money(total.total, display)}${spentWord(so)}${so.unpriced ? ` plus ${so.unpriced} call(s) with no figure yet` : ''}`
			: `${so.unpriced} call(s) with no figure yet`;
	return (
		`${who}: ${mine}; this execution's GenGateway calls have spent ${all} so far.` +
		(total.kept
			? ''
			: ` The execution-wide record could not be kept (n8n keeps at most ${MAX_CUSTOM_DATA_KEYS} custom data keys per execution).`)
	);
}
