/** Public `/api/pricing` and `/api/status` (no key). */
import { QUOTA_PER_UNIT } from './billing';
import { PriceList } from './price-list';

export interface StatusOverrides {
	quota_display_type?: 'USD' | 'CNY' | 'TOKENS' | 'CUSTOM';
	custom_currency_symbol?: string;
	custom_currency_exchange_rate?: number;
	usd_exchange_rate?: number;
	/** the site's quota units per base unit: what it shows and what it bills per-call and per-video-token prices with */
	quota_per_unit?: number;
}

/** `/api/pricing` of a price list (default: the simulator's defaults): hidden groups are never shown. */
export function pricingBody(prices: PriceList = new PriceList()): Record<string, unknown> {
	return {
		success: true,
		data: prices.models.map((m) => prices.publishedEntry(m)),
		group_ratio: { ...prices.groupRatio },
		usable_group: { ...prices.usableGroups },
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
