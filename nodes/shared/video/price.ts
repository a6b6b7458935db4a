/**
 * Expected-cost hints for video tasks. Best effort: never throws, looked up beside the POST (never before it), through
 * the one price look-up of the package (pricing/index.ts `loadPricing`, once per execution, within a short budget so
 * an unavailable price list cannot hold the node).
 */
import { DELTA_VIDEO_UNIT_PRICES, PRICE_HINT_BUDGET_MS, deltaVideoFee, formatAmount, loadPricing, lowestPrice, numberOf } from '../pricing';
import { resolveMultiplier, type GroupChoice, type Multiplier } from '../money/cost';
import type { GatewayTransport } from '../transport/http';

/** The multiplier a hint states, in words: where it came from (the node's options, or the lowest public group). */
function atWhat(m: Multiplier): string {
	if (m.source === 'group_multiplier_option') return `at Group Multiplier ${m.ratio}`;
	if (m.source === 'group_name') return `at group ${m.group} (Group Name)`;
	return `at the lowest public group (${m.group}); your key's group may cost more`;
}

/**
 * delta-video is billed per video token (tokens depend on resolution, duration and reference video): the hint gives
 * the price per 1M video tokens. gamma-video is billed per call. Both at the multiplier the item's `cost` uses (the
 * node's Group Multiplier, its Group Name, else the lowest public group); none when that multiplier is not known.
 */
export async function videoPriceHint(transport: GatewayTransport, family: 'delta' | 'gamma', model: string, withReferenceVideo: boolean, group: GroupChoice = {}, budgetMs = PRICE_HINT_BUDGET_MS): Promise<string | undefined> {
	try {
		if (family === 'delta' && !DELTA_VIDEO_UNIT_PRICES[model]) return undefined;
		const { pricing, display } = await loadPricing(transport, { budgetMs });
		const entry = pricing.data.find((e) => e.model_name === model);
		if (!entry) return undefined;
		const price = lowestPrice(entry, pricing);
		if (price.dynamic) return `${model} uses dynamic pricing: no fixed price is shown`;
		const multiplier = resolveMultiplier(group, pricing, model);
		if (multiplier.ratio === undefined || multiplier.ratio <= 0) return undefined;
		if (family === 'gamma') {
			const perCall = numberOf(entry.model_price);
			if (perCall === undefined || perCall < 0) return undefined;
			return `Expected price: ${formatAmount(perCall * multiplier.ratio, display)} for 1 call(s) of ${model} ${atWhat(multiplier)}`;
		}
		const fee = deltaVideoFee(model, 1_000_000, withReferenceVideo, multiplier.ratio, display.quotaPerUnit);
		return (
			`Expected price: ${formatAmount(fee.usd, display)} per 1M video tokens for ${model} (${withReferenceVideo ? 'with' : 'no'} reference video) ${atWhat(multiplier)}. ` +
			'Tokens depend on resolution, duration and reference video. The estimate is reserved at submission and settled to actual usage on completion'
		);
	} catch {
		return undefined;
	}
}

/** One price look-up per model (and reference-video case) per execution. */
export class VideoPriceHints {
	private readonly cache = new Map<string, Promise<string | undefined>>();
	constructor(
		private readonly transport: GatewayTransport,
		private readonly budgetMs = PRICE_HINT_BUDGET_MS,
		private readonly group: GroupChoice = {},
	) {}

	get(family: 'delta' | 'gamma', model: string, withReferenceVideo: boolean): Promise<string | undefined> {
		const key = `${family}|${model}|${family === 'delta' && withReferenceVideo}`;
		let p = this.cache.get(key);
		if (!p) {
			p = videoPriceHint(this.transport, family, model, withReferenceVideo, this.group, this.budgetMs);
			this.cache.set(key, p);
		}
		return p;
	}
}
