/** Expected-cost hints for video tasks (best effort: never throws, never delays the POST). */
import { DELTA_VIDEO_UNIT_PRICES, deltaVideoFee, expectedPriceHint, fetchPricing, formatAmount, lowestPrice } from '../pricing';
import type { GatewayTransport } from '../transport/http';

/**
 * delta-video is billed per video token (tokens depend on resolution, duration and reference video), so the
 * hint gives the price per 1M video tokens at the lowest public group; gamma-video is per call.
 */
export async function deltaPriceHint(transport: GatewayTransport, model: string, withReferenceVideo: boolean): Promise<string | undefined> {
	try {
		if (!DELTA_VIDEO_UNIT_PRICES[model]) return undefined;
		const { pricing, display } = await fetchPricing(transport);
		const entry = pricing.data.find((e) => e.model_name === model);
		if (!entry) return undefined;
		const price = lowestPrice(entry, pricing);
		if (price.dynamic || price.groupRatio === undefined || price.groupRatio <= 0) return undefined;
		const fee = deltaVideoFee(model, 1_000_000, withReferenceVideo, price.groupRatio, display.quotaPerUnit);
		return (
			`Expected price: ${formatAmount(fee.usd, display)} per 1M video tokens for ${model} (${withReferenceVideo ? 'with' : 'no'} reference video) at the lowest public group (${price.group}); ` +
			'tokens depend on resolution, duration and reference video. The estimate is reserved at submission and settled to actual usage on completion; your key\'s group may cost more'
		);
	} catch {
		return undefined;
	}
}

/** One pricing look-up per model (and reference-video case) per execution. */
export class VideoPriceHints {
	private readonly cache = new Map<string, Promise<string | undefined>>();
	constructor(private readonly transport: GatewayTransport) {}

	get(family: 'delta' | 'gamma', model: string, withReferenceVideo: boolean): Promise<string | undefined> {
		const key = `${family}|${model}|${family === 'delta' && withReferenceVideo}`;
		let p = this.cache.get(key);
		if (!p) {
			p = family === 'delta' ? deltaPriceHint(this.transport, model, withReferenceVideo) : expectedPriceHint(this.transport, model).catch(() => undefined);
			this.cache.set(key, p);
		}
		return p;
	}
}
