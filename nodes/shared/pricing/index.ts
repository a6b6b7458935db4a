/**
 * Pricing helpers shared by the nodes:
 * - fetchPricing(transport): /api/pricing + /api/status (no key), parsed
 * - expectedPriceHint(transport, model): a one-line expected price for execution hints, or undefined
 * - compute.ts: lowestPrice, toDisplay, deltaVideoFee, settlementTokens (pure)
 */
import type { GatewayTransport } from '../transport/http';
import { lowestPrice, readDisplay, toDisplay, type DisplaySettings, type PricingData } from './compute';

export * from './compute';

export async function fetchPricing(transport: GatewayTransport): Promise<{ pricing: PricingData; display: DisplaySettings }> {
	const [p, s] = await Promise.all([transport.getJson<PricingData>('/api/pricing', { auth: false }), transport.getJson('/api/status', { auth: false })]);
	const body = p.body ?? ({} as PricingData);
	return {
		pricing: { data: Array.isArray(body.data) ? body.data : [], group_ratio: body.group_ratio ?? {}, usable_group: body.usable_group ?? {} },
		display: readDisplay(s.body),
	};
}

export function formatAmount(usd: number, display: DisplaySettings): string {
	const d = toDisplay(usd, display);
	return `${d.symbol}${d.amount}`;
}

/** Best effort: never throws. */
export async function expectedPriceHint(transport: GatewayTransport, model: string, calls = 1): Promise<string | undefined> {
	try {
		const { pricing, display } = await fetchPricing(transport);
		const entry = pricing.data.find((e) => e.model_name === model);
		if (!entry) return undefined;
		const price = lowestPrice(entry, pricing);
		if (price.dynamic) return `${model} uses dynamic pricing: no fixed price is shown`;
		if (price.perCallUsd !== undefined) {
			return `Expected price: ${formatAmount(price.perCallUsd * calls, display)} for ${calls} call(s) of ${model} at the lowest public group (${price.group}); your key's group may cost more`;
		}
		if (price.inputPer1MUsd !== undefined) {
			return `${model} is billed per token: ${formatAmount(price.inputPer1MUsd, display)} per 1M input tokens (group ${price.group})`;
		}
		return undefined;
	} catch {
		return undefined;
	}
}
