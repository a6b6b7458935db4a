/**
 * Expected-cost hints for video tasks. Best effort: never throws, looked up beside the POST (never before it), through
 * the one price look-up of the package (pricing/index.ts `loadPricing`, once per execution, within a short budget so
 * an unavailable price list cannot hold the node).
 */
import { DELTA_VIDEO_UNIT_PRICES, PRICE_HINT_BUDGET_MS, deltaVideoFee, formatAmount, loadPricing, lowestPrice } from '../pricing';
import type { GatewayTransport } from '../transport/http';

/**
 * delta-video is billed per video token (tokens depend on resolution, duration and reference video): the
 * hint gives the price per 1M video tokens at the lowest public group. gamma-video is billed per call.
 */
export async function videoPriceHint(transport: GatewayTransport, family: 'delta' | 'gamma', model: string, withReferenceVideo: boolean, budgetMs = PRICE_HINT_BUDGET_MS): Promise<string | undefined> {
	try {
		if (family === 'delta' && !DELTA_VIDEO_UNIT_PRICES[model]) return undefined;
		const { pricing, display } = await loadPricing(transport, { budgetMs });
		const entry = pricing.data.find((e) => e.model_name === model);
		if (!entry) return undefined;
		const price = lowestPrice(entry, pricing);
		if (price.dynamic) return `${model} uses dynamic pricing: no fixed price is shown`;
		if (price.groupRatio === undefined || price.groupRatio <= 0) return undefined;
		if (family === 'gamma') {
			if (price.perCallUsd === undefined) return undefined;
			return `Expected price: ${formatAmount(price.perCallUsd, display)} for 1 call(s) of ${model} at the lowest public group (${price.group}); your key's group may cost more`;
		}
		const fee = deltaVideoFee(model, 1_000_000, withReferenceVideo, price.groupRatio, display.quotaPerUnit);
		return (
			`Expected price: ${formatAmount(fee.usd, display)} per 1M video tokens for ${model} (${withReferenceVideo ? 'with' : 'no'} reference video) at the lowest public group (${price.group}); ` +
			"tokens depend on resolution, duration and reference video. The estimate is reserved at submission and settled to actual usage on completion; your key's group may cost more"
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
	) {}

	get(family: 'delta' | 'gamma', model: string, withReferenceVideo: boolean): Promise<string | undefined> {
		const key = `${family}|${model}|${family === 'delta' && withReferenceVideo}`;
		let p = this.cache.get(key);
		if (!p) {
			p = videoPriceHint(this.transport, family, model, withReferenceVideo, this.budgetMs);
			this.cache.set(key, p);
		}
		return p;
	}
}
