/** Price arithmetic: lowest public price per model, display currency, delta-video fees. Pure functions. */
export interface PriceEntry {
	model_name: string;
	quota_type: number;
	model_price?: number;
	model_ratio?: number;
	completion_ratio?: number;
	enable_groups?: string[];
	billing_mode?: string;
}

export interface PricingData {
	data: PriceEntry[];
	group_ratio: Record<string, number>;
	usable_group: Record<string, string>;
}

export interface DisplaySettings {
	type: 'USD' | 'CNY' | 'TOKENS' | 'CUSTOM';
	quotaPerUnit: number;
	usdExchangeRate: number;
	customSymbol: string;
	customRate: number;
}

export const DEFAULT_QUOTA_PER_UNIT = 500_000;

export function readDisplay(statusBody: unknown): DisplaySettings {
	const root = (statusBody && typeof statusBody === 'object' ? statusBody : {}) as Record<string, unknown>;
	const d = (root.data && typeof root.data === 'object' ? root.data : root) as Record<string, unknown>;
	const t = String(d.quota_display_type ?? 'USD').toUpperCase();
	const num = (v: unknown, dflt: number) => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : typeof v === 'string' && Number(v) > 0 ? Number(v) : dflt);
	return {
		type: (['USD', 'CNY', 'TOKENS', 'CUSTOM'].includes(t) ? t : 'USD') as DisplaySettings['type'],
		quotaPerUnit: num(d.quota_per_unit, DEFAULT_QUOTA_PER_UNIT),
		usdExchangeRate: num(d.usd_exchange_rate, 1),
		customSymbol: typeof d.custom_currency_symbol === 'string' && d.custom_currency_symbol ? d.custom_currency_symbol : '¤',
		customRate: num(d.custom_currency_exchange_rate, 1),
	};
}

/** A USD amount in the site's display currency. TOKENS shows raw quota units with the site's ¤ symbol. */
export function toDisplay(usd: number, s: DisplaySettings): { amount: number; currency: string; symbol: string } {
	switch (s.type) {
		case 'CNY':
			return { amount: round(usd * s.usdExchangeRate, 6), currency: 'CNY', symbol: '¥' };
		case 'TOKENS':
			return { amount: Math.round(usd * s.quotaPerUnit), currency: 'quota', symbol: '¤' };
		case 'CUSTOM':
			return { amount: round(usd * s.customRate, 6), currency: 'custom', symbol: s.customSymbol };
		default:
			return { amount: round(usd, 6), currency: 'USD', symbol: '$' };
	}
}

export function round(v: number, digits: number): number {
	const f = 10 ** digits;
	return Math.round(v * f) / f;
}

export interface ModelPrice {
	model: string;
	billing: 'per_call' | 'per_token';
	dynamic: boolean;
	/** cheapest public group and its ratio; undefined when no public group enables the model */
	group?: string;
	groupRatio?: number;
	/** groups enabled and public but missing from group_ratio: skipped, never treated as 0 */
	skippedGroups: string[];
	/** USD before display conversion */
	perCallUsd?: number;
	inputPer1MUsd?: number;
	outputPer1MUsd?: number;
}

export function lowestPrice(entry: PriceEntry, p: PricingData): ModelPrice {
	const billing = entry.quota_type === 1 ? 'per_call' : 'per_token';
	const dynamic = entry.billing_mode === 'tiered_expr';
	const skipped: string[] = [];
	let best: { group: string; ratio: number } | undefined;
	for (const g of entry.enable_groups ?? []) {
		if (!(g in (p.usable_group ?? {}))) continue;
		const ratio = p.group_ratio?.[g];
		if (typeof ratio !== 'number' || !Number.isFinite(ratio) || ratio < 0) {
			skipped.push(g);
			continue;
		}
		if (!best || ratio < best.ratio) best = { group: g, ratio };
	}
	const out: ModelPrice = { model: entry.model_name, billing, dynamic, skippedGroups: skipped, group: best?.group, groupRatio: best?.ratio };
	if (!best || dynamic) return out;
	if (billing === 'per_call') out.perCallUsd = (entry.model_price ?? 0) * best.ratio;
	else {
		out.inputPer1MUsd = (entry.model_ratio ?? 0) * 2 * best.ratio;
		out.outputPer1MUsd = out.inputPer1MUsd * (entry.completion_ratio ?? 1);
	}
	return out;
}

/** The spec's delta-video table: base price per million video tokens. */
export const DELTA_VIDEO_UNIT_PRICES: Record<string, { noReferenceVideo: number; withReferenceVideo: number }> = {
	'delta-video-2-0-mini-260615': { noReferenceVideo: 11.638, withReferenceVideo: 7.084 },
	'delta-video-2-0-fast-260128': { noReferenceVideo: 24.42, withReferenceVideo: 14.52 },
};

export interface VideoFee {
	tokens: number;
	unitPrice: number;
	groupRatio: number;
	withReferenceVideo: boolean;
	/** fee in quota units (the site's precision) */
	quota: number;
	/** fee in USD-equivalent units (quota / quota_per_unit) */
	usd: number;
}

/**
 * fee = tokens / 1,000,000 × unit price × group multiplier, rounded to whole quota units
 * (unit prices are read as USD-equivalent per 1M tokens; 1 USD = quota_per_unit units).
 * Only a reference video switches to the "with reference video" price.
 */
export function deltaVideoFee(model: string, tokens: number, withReferenceVideo: boolean, groupRatio: number, quotaPerUnit = DEFAULT_QUOTA_PER_UNIT): VideoFee {
	const p = DELTA_VIDEO_UNIT_PRICES[model];
	if (!p) throw new Error(`model: ${model} is not a delta-video model (${Object.keys(DELTA_VIDEO_UNIT_PRICES).join(', ')})`);
	if (!Number.isFinite(tokens) || tokens < 0) throw new Error('tokens: must be a non-negative number');
	if (!Number.isFinite(groupRatio) || groupRatio <= 0) throw new Error('groupRatio: must be a positive number (an unknown multiplier is never 0)');
	const unitPrice = withReferenceVideo ? p.withReferenceVideo : p.noReferenceVideo;
	const quota = Math.round((tokens / 1_000_000) * unitPrice * groupRatio * quotaPerUnit);
	return { tokens, unitPrice, groupRatio, withReferenceVideo, quota, usd: quota / quotaPerUnit };
}

/** Settlement usage: `usage.completion_tokens`, else a valid `total_tokens`; undefined = needs manual check (never free). */
export function settlementTokens(task: unknown): number | undefined {
	const t = (task && typeof task === 'object' ? task : {}) as Record<string, unknown>;
	const usage = (t.usage && typeof t.usage === 'object' ? t.usage : undefined) as Record<string, unknown> | undefined;
	const valid = (v: unknown) => (typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : undefined);
	return valid(usage?.completion_tokens) ?? valid(usage?.total_tokens);
}
