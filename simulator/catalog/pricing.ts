/** Public `/api/pricing` and `/api/status` (no key). */
import { QUOTA_PER_UNIT } from './billing';
import { DELTA_VIDEO_PRICES, GROUP_RATIO, MODELS, USABLE_GROUPS } from './models';

export interface StatusOverrides {
	quota_display_type?: 'USD' | 'CNY' | 'TOKENS' | 'CUSTOM';
	custom_currency_symbol?: string;
	custom_currency_exchange_rate?: number;
	usd_exchange_rate?: number;
	/** the site's quota units per base unit: what it shows and what it bills per-call and per-video-token prices with */
	quota_per_unit?: number;
}

export function pricingBody(): Record<string, unknown> {
	return {
		success: true,
		data: MODELS.map((m) => ({
			model_name: m.id,
			quota_type: m.billing === 'per_call' ? 1 : 0,
			model_price: m.modelPrice ?? 0,
			model_ratio: m.modelRatio ?? 0,
			completion_ratio: m.completionRatio ?? 1,
			enable_groups: m.groups,
			supported_endpoint_types: m.endpointTypes,
			owner_by: '',
			...(m.dynamic ? { billing_mode: 'tiered_expr' } : {}),
			...(DELTA_VIDEO_PRICES[m.id] ? { video_token_price: DELTA_VIDEO_PRICES[m.id] } : {}),
		})),
		group_ratio: GROUP_RATIO,
		usable_group: USABLE_GROUPS,
		vendors: [],
		supported_endpoint: {},
		auto_groups: ['default'],
		pricing_version: 'sim-1',
	};
}

export function statusBody(o: StatusOverrides = {}): Record<string, unknown> {
	return {
		success: true,
		message: '',
		data: {
			system_name: 'GenGateway Simulator',
			quota_per_unit: o.quota_per_unit ?? QUOTA_PER_UNIT,
			quota_display_type: o.quota_display_type ?? 'USD',
			display_in_currency: true,
			usd_exchange_rate: o.usd_exchange_rate ?? 7.3,
			custom_currency_symbol: o.custom_currency_symbol ?? '¤',
			custom_currency_exchange_rate: o.custom_currency_exchange_rate ?? 10,
		},
	};
}
