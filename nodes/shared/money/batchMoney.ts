/**
 * The money side of one paid batch: the items' prices, the spend cap checked before the first paid request, each
 * item's `cost`, and this node's share of the execution-wide record with its execution hint.
 *
 * The cap: after every item is checked and before the first paid request, the batch's expected total plus what this
 * execution's GenGateway nodes have already spent (custom data, this node run's own earlier share left out) is
 * compared with Max Expected Spend; over it (strictly), nothing is sent. An item with no figure before its call (per
 * token, per video token, dynamic, no price, unknown multiplier) counts as over the cap unless Allow Unpriced Models
 * is on. An item counts once whatever the 429 refusals before its request was accepted.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { loadPricing, PRICE_HINT_BUDGET_MS } from '../pricing';
import { formatDisplay, quotaToDisplay, type DisplaySettings, type PricingData } from '../pricing/compute';
import type { GatewayTransport } from '../transport/http';
import { capCounts, costJson, costOf, quote, quoteText, type PricedAs, type Quote, type TokenCount } from './cost';
import type { MoneyOptions } from './options';
import { exitOf } from '../exit';
import { MAX_CUSTOM_DATA_KEYS, recordSpend, spentSoFar } from './record';

/** The batch is over Max Expected Spend: nothing was sent. */
export class BudgetError extends Error {
	constructor(
		message: string,
		readonly description: string,
	) {
		super(message);
		this.name = 'BudgetError';
	}
}

interface Loaded {
	pricing?: PricingData;
	display?: DisplaySettings;
	error?: string;
}

export class BatchMoney {
	private loaded?: Promise<Loaded>;
	private quotes: Array<Quote | undefined> = [];

	constructor(
		private readonly ctx: IExecuteFunctions,
		private readonly transport: GatewayTransport,
		readonly options: MoneyOptions,
	) {}

	/** Starts the price look-up (once per execution, bounded); the cap waits for it, the costs read it after. */
	private load(): Promise<Loaded> {
		this.loaded ??= loadPricing(this.transport, { budgetMs: PRICE_HINT_BUDGET_MS }).then(
			(l) => ({ pricing: l.pricing, display: l.display }),
			(err: unknown) => ({ error: err instanceof Error ? err.message : String(err) }),
		);
		return this.loaded;
	}

	/** Prices every checked item (the look-up runs beside the paid requests unless the cap needs it first). */
	async price(prepared: Array<PricedAs | undefined>): Promise<void> {
		const pending = this.load();
		const apply = (l: Loaded) => {
			this.quotes = prepared.map((p) => (p ? quote(p, l.pricing, l.display, this.options.group, l.error) : undefined));
		};
		if (this.options.cap !== undefined) apply(await pending);
		else this.afterLoad = pending.then(apply);
	}

	private afterLoad?: Promise<void>;

	/** The cap's refusal, or undefined when the batch may be sent. */
	async refusal(): Promise<BudgetError | undefined> {
		const cap = this.options.cap;
		if (cap === undefined) return undefined;
		const { display } = await this.load();
		const quotes = this.quotes.filter((q): q is Quote => !!q);
		if (!quotes.length) return undefined;
		const priced = quotes.filter(capCounts);
		const unpriced = quotes.filter((q) => !capCounts(q));
		const expected = priced.reduce((n, q) => n + q.quota!, 0);
		const so = spentSoFar(this.ctx);
		const spent = so.quota;
		const blockedUnpriced = unpriced.length > 0 && !this.options.allowUnpriced;
		if (!blockedUnpriced && !so.full && expected + spent <= cap) return undefined;
		const money = (quota: number) => (display ? `${formatDisplay(quotaToDisplay(quota, display))} (¤${quota})` : `¤${quota}`);
		const perItem = [...new Set(quotes.map((q) => quoteText(q, display)))].join('; ');
		const why = so.full
			? `the execution's custom data already holds ${MAX_CUSTOM_DATA_KEYS} keys without gengateway_spent, so what this execution has spent cannot be known`
			: blockedUnpriced
			? `${unpriced.length} item(s) have no price before the call and Allow Unpriced Models is off`
			: `expected ${money(expected)} + spent so far ${money(spent)} = ${money(expected + spent)} is over the cap`;
		return new BudgetError(
			`Max Expected Spend (¤) ${cap} refused the batch before any paid request: ${why}${blockedUnpriced || so.full ? ` (expected ${money(expected)} + spent so far ${money(spent)}, cap ${money(cap)})` : ` ${money(cap)}`}`,
			`Nothing was sent to the gateway. Per item: ${perItem}. Raise Max Expected Spend, turn on Allow Unpriced Models, or split the batch.`,
		);
	}

	/** Item i's `cost` (with the answer's token usage for per-token models); undefined for an item that was not priced. */
	async costFor(i: number, usage?: TokenCount): Promise<IDataObject | undefined> {
		await this.afterLoad;
		const q = this.quotes[i];
		if (!q) return undefined;
		const { display } = await this.load();
		return costJson(costOf(q, usage), display);
	}

	/** Adds this node's share to the execution's record and says in a hint what it spent and what the execution has. */
	async record(costs: Array<IDataObject | undefined>): Promise<void> {
		const { display } = await this.load();
		const figures = costs.filter((c): c is IDataObject => !!c);
		if (!figures.length) return;
		const known = figures.filter((c) => c.status === 'expected' || c.status === 'settled');
		const quota = known.reduce((n, c) => n + Number(c.quota), 0);
		const unpriced = figures.length - known.length;
		const r = recordSpend(this.ctx, quota, unpriced, display);
		const money = (q: number) => (display ? `${formatDisplay(quotaToDisplay(q, display))} (¤${q})` : `¤${q}`);
		const message =
			`This node: ${money(quota)} expected for ${known.length} item(s)` +
			(unpriced ? ` plus ${unpriced} item(s) with no figure (see each item's cost)` : '') +
			`; this execution's GenGateway nodes have spent ${money(r.total)} so far.` +
			(r.kept ? '' : ' The execution-wide record could not be kept (n8n keeps at most 10 custom data keys per execution).');
		exitOf(this.ctx).hint(message);
	}
}
