/**
 * Price arithmetic, pure: lowest public price per model, display currency, delta-video fees.
 *
 * Units. The price list speaks in the site's *base unit*: `model_price` (per call) and the per-token
 * figures derived from `model_ratio` are USD at a default site, and one base unit is `quota_per_unit`
 * quota units (¤, default 500 000). The spec's delta-video table ("base quota per million video tokens")
 * is read in the same base unit, so fee in ¤ = tokens / 1e6 × unit price × group ratio × quota_per_unit,
 * rounded to whole ¤ (the site's quota precision).
 */
import { isObj } from '../jsonObject';
import { quotient, roundedProduct, roundTo } from './decimal';
import type { DisplaySettings, DisplayType } from './display';

export interface PriceEntry {
	model_name: string;
	quota_type: number;
	model_price?: number;
	model_ratio?: number;
	completion_ratio?: number;
	enable_groups?: string[];
	billing_mode?: string;
	[extra: string]: unknown;
}

export interface PricingData {
	data: PriceEntry[];
	group_ratio: Record<string, number>;
	usable_group: Record<string, string>;
}

export const DEFAULT_QUOTA_PER_UNIT = 500_000;

/** A finite number, also from a numeric string; undefined otherwise. */
export function numberOf(v: unknown): number | undefined {
	if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
	if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
	return undefined;
}

const positive = (v: unknown): number | undefined => {
	const n = numberOf(v);
	return n !== undefined && n > 0 ? n : undefined;
};

/** Normalises a `/api/pricing` body (tolerates missing parts, `usable_group` as an array, numeric strings). */
export function parsePricing(body: unknown): PricingData {
	const b = isObj(body) ? body : {};
	const data = (Array.isArray(b.data) ? b.data : []).filter(
		(e): e is PriceEntry => isObj(e) && typeof e.model_name === 'string' && e.model_name !== '',
	);
	const groupRatio: Record<string, number> = {};
	if (isObj(b.group_ratio)) {
		for (const [g, r] of Object.entries(b.group_ratio)) {
			const n = numberOf(r);
			if (n !== undefined) groupRatio[g] = n;
		}
	}
	let usable: Record<string, string> = {};
	if (Array.isArray(b.usable_group))
		usable = Object.fromEntries(
			b.usable_group.filter((g): g is string => typeof g === 'string').map((g) => [g, g]),
		);
	else if (isObj(b.usable_group))
		usable = Object.fromEntries(
			Object.entries(b.usable_group).map(([g, d]) => [g, typeof d === 'string' && d ? d : g]),
		);
	return { data, group_ratio: groupRatio, usable_group: usable };
}

/**
 * Display settings from `/api/status` (wrapped `{success, data:{…}}` or bare). A setting that cannot be
 * followed falls back to USD and says why in `notes`; quota units are never relabelled as a currency.
 */
export function readDisplay(statusBody: unknown): DisplaySettings {
	const root = isObj(statusBody) ? statusBody : {};
	const d = isObj(root.data) ? root.data : root;
	const notes: string[] = [];
	const raw =
		typeof d.quota_display_type === 'string'
			? d.quota_display_type.trim().toUpperCase()
			: undefined;
	let type: DisplayType;
	if (raw === undefined || raw === '') type = d.display_in_currency === false ? 'TOKENS' : 'USD';
	else if (raw === 'USD' || raw === 'CNY' || raw === 'TOKENS' || raw === 'CUSTOM') type = raw;
	else {
		type = 'USD';
		notes.push(`unknown quota_display_type "${raw}": shown in USD`);
	}
	let quotaPerUnit = positive(d.quota_per_unit);
	if (quotaPerUnit === undefined) {
		if (d.quota_per_unit !== undefined)
			notes.push(
				`unusable quota_per_unit ${JSON.stringify(d.quota_per_unit)}: ${DEFAULT_QUOTA_PER_UNIT} used`,
			);
		quotaPerUnit = DEFAULT_QUOTA_PER_UNIT;
	}
	const usdExchangeRate = positive(d.usd_exchange_rate);
	const customRate = positive(d.custom_currency_exchange_rate);
	if (type === 'CNY' && usdExchangeRate === undefined) {
		notes.push('the site shows CNY but gives no usable usd_exchange_rate: shown in USD');
		type = 'USD';
	}
	if (type === 'CUSTOM' && customRate === undefined) {
		notes.push(
			'the site shows a custom currency but gives no usable custom_currency_exchange_rate: shown in USD',
		);
		type = 'USD';
	}
	const symbol =
		typeof d.custom_currency_symbol === 'string' ? d.custom_currency_symbol.trim() : '';
	return {
		type,
		quotaPerUnit,
		usdExchangeRate: usdExchangeRate ?? 1,
		customSymbol: symbol || '¤',
		customRate: customRate ?? 1,
		...(notes.length ? { notes } : {}),
	};
}

export {
	formatDisplay,
	quotaToDisplay,
	toDisplay,
	type DisplayAmount,
	type DisplaySettings,
	type DisplayType,
} from './display';

/** Delta-video unit prices of one model, in base units per 1M video tokens. */
export interface DeltaUnitPrices {
	noReferenceVideo: number;
	withReferenceVideo: number;
}
export type DeltaUnitPriceTable = Record<string, DeltaUnitPrices>;

/** The spec's delta-video table, exactly: base price per million video tokens (480p and 720p alike). */
export const DELTA_VIDEO_UNIT_PRICES: DeltaUnitPriceTable = {
	'delta-video-2-0-mini-260615': { noReferenceVideo: 11.638, withReferenceVideo: 7.084 },
	'delta-video-2-0-fast-260128': { noReferenceVideo: 24.42, withReferenceVideo: 14.52 },
};

export type Billing = 'per_call' | 'per_token' | 'per_video_token';

export interface ModelPrice {
	model: string;
	billing: Billing;
	dynamic: boolean;
	/** cheapest publicly selectable, enabled group and its ratio; undefined when there is none */
	group?: string;
	groupRatio?: number;
	/** groups enabled and public but missing from group_ratio: skipped, never treated as 0 */
	skippedGroups: string[];
	/** enabled groups that are not publicly selectable (never used for the displayed price) */
	nonPublicGroups: string[];
	/** why no number is shown (no public group, dynamic pricing, the entry lacks its price) */
	unpricedReason?: string;
	/** base units (USD at a default site), before display conversion */
	perCallUsd?: number;
	inputPer1MUsd?: number;
	outputPer1MUsd?: number;
	/** delta-video: per 1M video tokens, without and with a reference video */
	videoPer1MUsd?: number;
	videoWithReferencePer1MUsd?: number;
}

/**
 * The one rule of the lowest public group of a model, shared by Pricing and every cost: the groups that enable the
 * model AND are publicly selectable (`usable_group`) with a published ratio of 0 or more (a ratio of 0 is a real,
 * free group); a public group missing from `group_ratio` is skipped and reported (an unknown multiplier is never 0).
 */
export function lowestPublicGroup(
	entry: PriceEntry | undefined,
	p: PricingData,
): { best?: { group: string; ratio: number }; skipped: string[]; nonPublic: string[] } {
	const skipped: string[] = [];
	const nonPublic: string[] = [];
	let best: { group: string; ratio: number } | undefined;
	const groups = Array.isArray(entry?.enable_groups)
		? entry.enable_groups.filter((g): g is string => typeof g === 'string')
		: [];
	for (const g of groups) {
		if (!Object.prototype.hasOwnProperty.call(p.usable_group ?? {}, g)) {
			nonPublic.push(g);
			continue;
		}
		const ratio = numberOf(p.group_ratio?.[g]);
		if (ratio === undefined || ratio < 0) {
			skipped.push(g);
			continue;
		}
		if (!best || ratio < best.ratio) best = { group: g, ratio };
	}
	return { best, skipped, nonPublic };
}

/**
 * Lowest displayed price of one model at its lowest public group (`lowestPublicGroup`). Per call = model_price ×
 * ratio, as the whole ¤ a call is charged (model_price × ratio × quota_per_unit, rounded once); per token (per 1M)
 * input = model_ratio × ratio × 1,000,000 / quota_per_unit (× 2 on a default site of ¤500000 per unit), output =
 * input × completion_ratio: what the gateway charges in ¤, in the display currency;
 * delta-video = the spec table × ratio; `billing_mode: tiered_expr` → no number.
 */
export function lowestPrice(
	entry: PriceEntry,
	p: PricingData,
	quotaPerUnit: number = DEFAULT_QUOTA_PER_UNIT,
	videoPrices: DeltaUnitPriceTable = DELTA_VIDEO_UNIT_PRICES,
	/** the key's own group (the credential's Key's Group): the price at it, not at the lowest public group */
	at?: { group: string; ratio: number },
): ModelPrice {
	const video = videoPrices[entry.model_name];
	const billing: Billing = video
		? 'per_video_token'
		: numberOf(entry.quota_type) === 1
			? 'per_call'
			: 'per_token';
	const dynamic = entry.billing_mode === 'tiered_expr';
	const lowest = lowestPublicGroup(entry, p);
	const { skipped, nonPublic } = lowest;
	const best = at ?? lowest.best;
	const groups = Array.isArray(entry.enable_groups)
		? entry.enable_groups.filter((g) => typeof g === 'string')
		: [];
	const out: ModelPrice = {
		model: entry.model_name,
		billing,
		dynamic,
		skippedGroups: skipped,
		nonPublicGroups: nonPublic,
		group: best?.group,
		groupRatio: best?.ratio,
	};
	if (dynamic) {
		out.unpricedReason = 'dynamic (tiered) pricing: no fixed number';
		return out;
	}
	if (!best) {
		out.unpricedReason =
			groups.length === 0
				? 'no group enables this model'
				: skipped.length
					? 'every publicly selectable group that enables this model lacks a group ratio'
					: 'no publicly selectable group enables this model';
		return out;
	}
	priceFigures(out, entry, video, best.ratio, quotaPerUnit);
	return out;
}

/** The figures of a priced model at a group ratio: per call, per 1M tokens or per 1M video tokens (see lowestPrice). */
function priceFigures(
	out: ModelPrice,
	entry: PriceEntry,
	video: DeltaUnitPrices | undefined,
	groupRatio: number,
	quotaPerUnit: number,
): void {
	const billing = out.billing;
	if (billing === 'per_video_token') {
		out.videoPer1MUsd = roundTo(quotient([video!.noReferenceVideo, groupRatio]), 12);
		out.videoWithReferencePer1MUsd = roundTo(quotient([video!.withReferenceVideo, groupRatio]), 12);
	} else if (billing === 'per_call') {
		const price = numberOf(entry.model_price);
		if (price === undefined || price < 0)
			out.unpricedReason = 'the price list gives no model_price';
		// what one call is charged: whole ¤ (model_price × ratio × quota_per_unit, rounded once), in base units
		else
			out.perCallUsd = roundTo(
				quotient([roundedProduct([price, groupRatio, quotaPerUnit])], [quotaPerUnit]),
				12,
			);
	} else {
		const ratio = numberOf(entry.model_ratio);
		if (ratio === undefined || ratio < 0)
			out.unpricedReason = 'the price list gives no model_ratio';
		else {
			out.inputPer1MUsd = roundTo(quotient([ratio, groupRatio, 1_000_000], [quotaPerUnit]), 12);
			const completion = numberOf(entry.completion_ratio);
			out.outputPer1MUsd = roundTo(
				quotient(
					[
						ratio,
						groupRatio,
						1_000_000,
						completion !== undefined && completion >= 0 ? completion : 1,
					],
					[quotaPerUnit],
				),
				12,
			);
		}
	}
}

/** Unit price of a delta-video model in base units per 1M video tokens; undefined for other models. */
export function deltaUnitPrice(
	model: string,
	withReferenceVideo: boolean,
	table: DeltaUnitPriceTable = DELTA_VIDEO_UNIT_PRICES,
): number | undefined {
	const p = table[model];
	return p ? (withReferenceVideo ? p.withReferenceVideo : p.noReferenceVideo) : undefined;
}

/** fee in whole quota units (¤) = tokens / 1e6 × unit price × group ratio × quota_per_unit, exact, rounded half up. */
export function videoFeeQuota(
	tokens: number,
	unitPrice: number,
	groupRatio: number,
	quotaPerUnit = DEFAULT_QUOTA_PER_UNIT,
): number {
	return roundedProduct([tokens, unitPrice, groupRatio, quotaPerUnit], 1_000_000);
}

export interface VideoFee {
	tokens: number;
	unitPrice: number;
	groupRatio: number;
	withReferenceVideo: boolean;
	/** fee in quota units (the site's precision) */
	quota: number;
	/** fee in base units (USD at a default site): quota / quota_per_unit */
	usd: number;
}

/**
 * fee = tokens / 1,000,000 × unit price × group multiplier, rounded to whole quota units.
 * Only a reference video switches to the "with reference video" price (image/audio references do not).
 */
export function deltaVideoFee(
	model: string,
	tokens: number,
	withReferenceVideo: boolean,
	groupRatio: number,
	quotaPerUnit = DEFAULT_QUOTA_PER_UNIT,
	table: DeltaUnitPriceTable = DELTA_VIDEO_UNIT_PRICES,
): VideoFee {
	const unitPrice = deltaUnitPrice(model, withReferenceVideo, table);
	if (unitPrice === undefined)
		throw new Error(
			`model: ${model} is not a delta-video model (${Object.keys(table).join(', ')})`,
		);
	if (typeof tokens !== 'number' || !Number.isFinite(tokens) || tokens < 0)
		throw new Error('tokens: must be a non-negative number');
	if (typeof groupRatio !== 'number' || !Number.isFinite(groupRatio) || groupRatio <= 0)
		throw new Error('groupRatio: must be a positive number (an unknown multiplier is never 0)');
	if (!Number.isFinite(quotaPerUnit) || quotaPerUnit <= 0)
		throw new Error('quotaPerUnit: must be a positive number');
	const quota = videoFeeQuota(tokens, unitPrice, groupRatio, quotaPerUnit);
	return { tokens, unitPrice, groupRatio, withReferenceVideo, quota, usd: quota / quotaPerUnit };
}

/** A trusted token count: a positive integer (also as a digit string); anything else is not trusted. */
export function validTokenCount(v: unknown): number | undefined {
	const n = typeof v === 'string' && /^\s*\d+\s*$/.test(v) ? Number(v) : v;
	return typeof n === 'number' && Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

/** Where settlement usage came from (the camelCase forms are what the shared task normaliser emits, e.g. in Task Wait's JSON). */
export type TokenSource =
	'usage.completion_tokens' | 'usage.total_tokens' | 'usage.completionTokens' | 'usage.totalTokens';

/** `usage.completion_tokens`, else a valid `usage.total_tokens`; undefined = needs manual check (never free). */
export function settlementUsage(
	task: unknown,
): { tokens: number; source: TokenSource } | undefined {
	const t = isObj(task) ? task : {};
	const usage = isObj(t.usage) ? t.usage : undefined;
	if (!usage) return undefined;
	const completion: Array<'completion_tokens' | 'completionTokens'> = [
		'completion_tokens',
		'completionTokens',
	];
	const total: Array<'total_tokens' | 'totalTokens'> = ['total_tokens', 'totalTokens'];
	for (const k of [...completion, ...total]) {
		const n = validTokenCount(usage[k]);
		if (n !== undefined) return { tokens: n, source: `usage.${k}` };
	}
	return undefined;
}

/** Settlement tokens only (see settlementUsage). */
export function settlementTokens(task: unknown): number | undefined {
	return settlementUsage(task)?.tokens;
}
