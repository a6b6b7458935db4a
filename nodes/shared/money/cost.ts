/**
 * The `cost` object of a paid item, pure. Amounts are in whole site quota units (¤, the gateway's billing unit) and in
 * the display currency of `/api/status`, by the Pricing node's rules (compute.ts `quotaToDisplay`, `formatDisplay`).
 *
 * Bases (the spec's billing rules): per call = model_price × group multiplier × quota_per_unit, per image asked (n);
 * per token = (prompt + completion × completion_ratio) × model_ratio × group multiplier, from the answer's usage;
 * per video token (delta-video) = tokens / 1e6 × unit price × group multiplier × quota_per_unit, known on completion.
 * Statuses: `expected` (a figure at a known multiplier), `settled` (a delta video's actual usage at a known
 * multiplier), `at_multiplier_1` (the same figure at multiplier 1: the multiplier is not known), `unknown` (no figure:
 * the price list does not price the model in a way the spec describes, or what the figure needs is not known yet).
 * An unknown is never 0 and a figure at multiplier 1 is never called expected.
 */
import type { IDataObject } from 'n8n-workflow';
import { DELTA_VIDEO_UNIT_PRICES, lowestPrice, numberOf, quotaToDisplay, formatDisplay, type DisplaySettings, type PricingData } from '../pricing/compute';
import { groupRatioOf } from '../pricing/delta';
import { roundedProduct, roundedSumOfProducts } from '../pricing/decimal';

export type CostStatus = 'expected' | 'settled' | 'at_multiplier_1' | 'unknown';
export type CostBasis = 'per_call' | 'per_token' | 'per_video_token';
/** the node's Group Multiplier option, its Group Name read from the public ratios, or the lowest publicly selectable group */
export type MultiplierSource = 'group_multiplier_option' | 'group_name' | 'lowest_public_group';

/** What the node's options say about the key's group multiplier. */
export interface GroupChoice {
	/** a positive Group Multiplier */
	ratio?: number;
	/** the Group Multiplier option was added but left empty (or 0): the multiplier is unknown, never 1 */
	ratioLeftEmpty?: boolean;
	groupName?: string;
}

export interface Multiplier {
	ratio?: number;
	source: MultiplierSource | null;
	group: string | null;
	/** why it is not known */
	unknownWhy?: string;
}

export function resolveMultiplier(choice: GroupChoice, pricing: PricingData, model: string): Multiplier {
	if (choice.ratio !== undefined) return { ratio: choice.ratio, source: 'group_multiplier_option', group: null };
	if (choice.ratioLeftEmpty) return { source: null, group: null, unknownWhy: 'the Group Multiplier option is empty: the multiplier is not known' };
	const name = choice.groupName?.trim();
	if (name) {
		const ratio = groupRatioOf(pricing.group_ratio, name);
		return ratio === undefined ? { source: null, group: name, unknownWhy: `group "${name}" has no ratio in the public group_ratio` } : { ratio, source: 'group_name', group: name };
	}
	const entry = pricing.data.find((e) => e.model_name === model);
	const lowest = entry ? lowestPrice(entry, pricing) : undefined;
	if (lowest?.groupRatio !== undefined && lowest.group) return { ratio: lowest.groupRatio, source: 'lowest_public_group', group: lowest.group };
	return { source: null, group: null, unknownWhy: 'no publicly selectable group with a ratio enables this model' };
}

/** What an item is priced by. */
export interface PricedAs {
	model: string;
	/** calls billed per call (images asked for, n) */
	calls: number;
}

export interface TokenCount {
	prompt: number;
	completion: number;
}

/** The prices of one item, before its request is sent. */
export interface Quote {
	model: string;
	basis: CostBasis | null;
	/** whole ¤ for the item; undefined when no figure can be given before the answer */
	quota?: number;
	multiplier: Multiplier;
	calls: number;
	/** why there is no figure */
	unpricedWhy?: string;
	/** per-token prices in ¤ per token at multiplier 1 (model_ratio, completion_ratio) */
	tokenRatios?: { model: number; completion: number };
}

const isDelta = (model: string) => Object.prototype.hasOwnProperty.call(DELTA_VIDEO_UNIT_PRICES, model);

/** The price of an item before it is sent: a figure per call, or why there is none yet. */
export function quote(as: PricedAs, pricing: PricingData | undefined, display: DisplaySettings | undefined, choice: GroupChoice, pricingError?: string): Quote {
	const base = { model: as.model, calls: as.calls };
	if (!pricing || !display) return { ...base, basis: isDelta(as.model) ? 'per_video_token' : null, multiplier: { source: null, group: null }, unpricedWhy: `the public price list could not be read${pricingError ? ` (${pricingError})` : ''}` };
	const multiplier = resolveMultiplier(choice, pricing, as.model);
	const entry = pricing.data.find((e) => e.model_name === as.model);
	if (!entry) return { ...base, basis: isDelta(as.model) ? 'per_video_token' : null, multiplier, unpricedWhy: 'the public price list does not list this model' };
	const price = lowestPrice(entry, pricing);
	const withBasis = { ...base, basis: price.billing, multiplier };
	if (price.dynamic) return { ...withBasis, unpricedWhy: 'the model has dynamic (tiered) pricing: no fixed price' };
	if (price.billing === 'per_video_token') return { ...withBasis, unpricedWhy: 'billed per video token: reserved at submission and settled to actual usage on completion (Task Wait gives the settled fee)' };
	if (price.billing === 'per_token') {
		const ratio = numberOf(entry.model_ratio);
		if (ratio === undefined || ratio < 0) return { ...withBasis, unpricedWhy: 'billed per token, and the price list carries no token price (model_ratio)' };
		const completion = numberOf(entry.completion_ratio);
		return { ...withBasis, tokenRatios: { model: ratio, completion: completion !== undefined && completion >= 0 ? completion : 1 }, unpricedWhy: 'billed per token: the cost is known from the answer\'s usage' };
	}
	const perCall = numberOf(entry.model_price);
	if (perCall === undefined || perCall < 0) return { ...withBasis, unpricedWhy: 'the price list gives no model_price' };
	const one = roundedProduct([perCall, multiplier.ratio ?? 1, display.quotaPerUnit]);
	return { ...withBasis, quota: one * as.calls };
}

/** Whether a quote is a figure the spend cap can add up (known amount at a known multiplier). */
export function capCounts(q: Quote): boolean {
	return q.quota !== undefined && q.multiplier.ratio !== undefined;
}

/** Whole ¤ of a per-token answer: (prompt + completion × completion_ratio) × model_ratio × multiplier. */
export function tokenQuota(t: TokenCount, ratios: { model: number; completion: number }, multiplier: number): number {
	return roundedSumOfProducts([
		[t.prompt, ratios.model, multiplier],
		[t.completion, ratios.completion, ratios.model, multiplier],
	]);
}

/** Token counts of a chat (`prompt_tokens`/`completion_tokens`) or responses (`input_tokens`/`output_tokens`) usage. */
export function tokenCountOf(usage: unknown): TokenCount | undefined {
	if (!usage || typeof usage !== 'object') return undefined;
	const u = usage as Record<string, unknown>;
	const n = (v: unknown) => (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : undefined);
	const prompt = n(u.prompt_tokens) ?? n(u.input_tokens) ?? n(u.promptTokens);
	const completion = n(u.completion_tokens) ?? n(u.output_tokens) ?? n(u.completionTokens);
	return prompt === undefined || completion === undefined ? undefined : { prompt, completion };
}

const BASIS_WORDS: Record<CostBasis, string> = { per_call: 'per call', per_token: 'per token', per_video_token: 'per video token' };

export interface CostFigure {
	status: CostStatus;
	basis: CostBasis | null;
	quota?: number;
	multiplier: Multiplier;
	quantity: IDataObject;
	note: string;
}

/** The item's `cost` JSON. */
export function costJson(f: CostFigure, display: DisplaySettings | undefined): IDataObject {
	const shown = f.quota !== undefined && display ? quotaToDisplay(f.quota, display) : undefined;
	const unit = display ? quotaToDisplay(0, display) : undefined;
	return {
		status: f.status,
		basis: f.basis ? BASIS_WORDS[f.basis] : null,
		quota: f.quota ?? null,
		amount: shown?.amount ?? null,
		currency: unit?.currency ?? null,
		symbol: unit?.symbol ?? null,
		text: shown ? `${formatDisplay(shown)} (¤${f.quota})` : null,
		group_multiplier: f.multiplier.ratio ?? null,
		group_multiplier_source: f.multiplier.source,
		group: f.multiplier.group,
		...f.quantity,
		note: f.note,
	};
}

const lowestNote = (m: Multiplier) => (m.source === 'lowest_public_group' ? `at the lowest public group (${m.group}); your key's group may cost more` : m.source === 'group_name' ? `at group ${m.group}'s public ratio` : 'at your Group Multiplier');

/** The figure of an item from its quote and, for per-token models, the answer's usage. */
export function costOf(q: Quote, usage?: TokenCount): CostFigure {
	const m = q.multiplier;
	const atOne = m.ratio === undefined;
	const unknownMul = atOne ? `; ${m.unknownWhy ?? 'the multiplier is not known'}: this is the figure at multiplier 1, the charge is this × your key's multiplier` : '';
	if (q.basis === 'per_token' && q.tokenRatios && usage) {
		const quota = tokenQuota(usage, q.tokenRatios, m.ratio ?? 1);
		return {
			status: atOne ? 'at_multiplier_1' : 'expected',
			basis: 'per_token',
			quota,
			multiplier: m,
			quantity: { prompt_tokens: usage.prompt, completion_tokens: usage.completion },
			note: `(${usage.prompt} prompt + ${usage.completion} completion × ${q.tokenRatios.completion}) tokens × model ratio ${q.tokenRatios.model} × ${m.ratio ?? 1}, ${atOne ? '' : lowestNote(m)}${unknownMul}`,
		};
	}
	if (q.quota !== undefined) {
		return {
			status: atOne ? 'at_multiplier_1' : 'expected',
			basis: q.basis,
			quota: q.quota,
			multiplier: m,
			quantity: { calls: q.calls },
			note: `${q.calls} call(s) × model_price × ${m.ratio ?? 1}, ${atOne ? '' : lowestNote(m)}${unknownMul}`,
		};
	}
	const why = q.basis === 'per_token' && q.tokenRatios ? 'billed per token, and the answer carries no usage: the cost is not known (it is not free)' : `${q.unpricedWhy ?? 'no price'} (it is not free)`;
	return { status: 'unknown', basis: q.basis, multiplier: m, quantity: {}, note: why };
}

/** "alpha-image-2.5: $0.032 (¤16000) per item" for the cap's message. */
export function quoteText(q: Quote, display: DisplaySettings | undefined): string {
	if (!capCounts(q) || !display) return `${q.model}: no price (${q.multiplier.ratio === undefined && q.quota !== undefined ? (q.multiplier.unknownWhy ?? 'multiplier unknown') : (q.unpricedWhy ?? 'unknown')})`;
	return `${q.model}: ${formatDisplay(quotaToDisplay(q.quota!, display))} (¤${q.quota}) per item`;
}
