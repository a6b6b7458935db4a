/**
 * Expected-cost hints for video tasks. Best effort: never throws, runs after the POST (never delays it),
 * and gives up after a short budget so an unavailable price list cannot hold the node.
 */
import { DELTA_VIDEO_UNIT_PRICES, deltaVideoFee, formatAmount, lowestPrice, readDisplay, type PricingData } from '../pricing';
import type { GatewayTransport } from '../transport/http';

/** How long the public price list may take, retries included. */
export const PRICE_HINT_BUDGET_MS = 8_000;

async function pricingWithin(transport: GatewayTransport, budgetMs: number) {
	const deadline = Date.now() + budgetMs;
	const opts = { auth: false, deadline, maxAttempts: 2 } as const;
	const [p, s] = await Promise.all([transport.getJson<PricingData>('/api/pricing', opts), transport.getJson('/api/status', opts)]);
	const body = p.body ?? ({} as PricingData);
	return {
		pricing: { data: Array.isArray(body.data) ? body.data : [], group_ratio: body.group_ratio ?? {}, usable_group: body.usable_group ?? {} } as PricingData,
		display: readDisplay(s.body),
	};
}

/**
 * delta-video is billed per video token (tokens depend on resolution, duration and reference video): the
 * hint gives the price per 1M video tokens at the lowest public group. gamma-video is billed per call.
 */
export async function videoPriceHint(transport: GatewayTransport, family: 'delta' | 'gamma', model: string, withReferenceVideo: boolean, budgetMs = PRICE_HINT_BUDGET_MS): Promise<string | undefined> {
	try {
		if (family === 'delta' && !DELTA_VIDEO_UNIT_PRICES[model]) return undefined;
		const { pricing, display } = await pricingWithin(transport, budgetMs);
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
