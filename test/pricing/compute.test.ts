/** Pure price arithmetic on exact numbers, on the simulator's own price data and on hand-made edge cases. */
import { pricingBody, statusBody } from '../../simulator/catalog/pricing';
import {
	DELTA_VIDEO_UNIT_PRICES,
	deltaVideoFee,
	formatDisplay,
	lowestPrice,
	parsePricing,
	quotaToDisplay,
	readDisplay,
	toDisplay,
	videoFeeQuota,
	type PricingData,
} from '../../nodes/shared/money/lookup';
import { roundedProduct, toFraction } from '../../nodes/shared/money/decimal';
import { priceRow } from '../../nodes/GenGatewayPricing/actions/rows';

const sim = parsePricing(pricingBody());
const usd = readDisplay(statusBody());
const price = (model: string, p: PricingData = sim) =>
	lowestPrice(
		p.data.find((e) => e.model_name === model)!,
		p,
	);
const row = (model: string, display = usd) => priceRow(price(model), display, sim.usable_group);

describe('lowest public price on the simulator price list', () => {
	it('reads the list: every entry, ratios and the public groups', () => {
		expect(sim.data.length).toBeGreaterThanOrEqual(20);
		expect(sim.group_ratio).toEqual({ default: 1, vip: 0.8, hd: 1.5, internal: 0.5 });
		expect(Object.keys(sim.usable_group).sort()).toEqual(['default', 'hd', 'promo', 'vip']);
	});

	it('per call: model_price × the cheapest public group ratio', () => {
		expect(row('alpha-image-2.5')).toMatchObject({
			billing: 'per call',
			priced: true,
			group: 'vip',
			group_name: 'VIP',
			group_ratio: 0.8,
			currency: 'USD',
			symbol: '$',
			price_per_call: 0.03,
			input_per_1m_tokens: null,
			price_text: '$0.03 / call (¤16000)',
			note: null,
		});
		expect(row('alpha-image-2-2k')).toMatchObject({ group: 'vip', price_per_call: 0.05 });
		// enabled only in hd (ratio 1.5): the lowest *public* price is the hd one
		expect(row('alpha-image-2-4k')).toMatchObject({
			group: 'hd',
			group_ratio: 1.5,
			price_per_call: 0.18,
		});
		expect(row('gamma-video-1.0')).toMatchObject({ billing: 'per call', price_per_call: 0.24 });
	});

	it('per token: input per 1M = model_ratio × 2 × group ratio, output = input × completion_ratio', () => {
		expect(row('alpha-chat-4o')).toMatchObject({
			billing: 'per token',
			group: 'vip',
			input_per_1m_tokens: 2,
			output_per_1m_tokens: 8,
			price_per_call: null,
			price_text: '$2.00 / 1M input tokens, $8.00 / 1M output tokens',
		});
		expect(row('alpha-chat-4o-mini')).toMatchObject({
			input_per_1m_tokens: 0.12,
			output_per_1m_tokens: 0.48,
		});
		expect(row('beta-2.5-flash')).toMatchObject({
			input_per_1m_tokens: 0.24,
			output_per_1m_tokens: 2,
		});
		expect(row('alpha-image-2-az')).toMatchObject({
			billing: 'per token',
			input_per_1m_tokens: 4,
			output_per_1m_tokens: 16,
		});
	});

	it('a model enabled only in a non-public group has no price and no group', () => {
		const p = price('gamma-reasoner-1');
		expect(p).toMatchObject({
			group: undefined,
			groupRatio: undefined,
			nonPublicGroups: ['internal'],
			unpricedReason: 'no publicly selectable group enables this model',
		});
		// internal has the lowest ratio of all (0.5) and is still never used
		expect(row('gamma-reasoner-1')).toMatchObject({
			priced: false,
			group: null,
			input_per_1m_tokens: null,
			output_per_1m_tokens: null,
			price_text: 'no public price',
		});
	});

	it('a public group missing from group_ratio is skipped and reported, never taken as 0', () => {
		const r = row('gamma-video-1.5');
		expect(r).toMatchObject({ group: 'vip', price_per_call: 0.4, skipped_groups: ['promo'] });
		expect(r.note).toMatch(
			/promo have no ratio in group_ratio and were skipped \(never treated as 0\)/,
		);
		const onlyPromo = parsePricing({
			...pricingBody(),
			data: [{ model_name: 'm', quota_type: 1, model_price: 1, enable_groups: ['promo'] }],
		});
		const p = lowestPrice(onlyPromo.data[0], onlyPromo);
		expect(p).toMatchObject({ skippedGroups: ['promo'] });
		expect([p.group, p.groupRatio, p.perCallUsd]).toEqual([undefined, undefined, undefined]);
		expect(p.unpricedReason).toMatch(/lacks a group ratio/);
	});

	it('dynamic (tiered_expr) models are shown without a number', () => {
		expect(row('delta-chat-tiered')).toMatchObject({
			dynamic_pricing: true,
			priced: false,
			input_per_1m_tokens: null,
			output_per_1m_tokens: null,
			price_text: 'dynamic pricing',
			note: 'dynamic (tiered) pricing: no fixed number',
		});
	});

	it('delta-video is billed per video token from the spec table, never as a $0 per-token model', () => {
		expect(row('delta-video-2-0-mini-260615')).toMatchObject({
			billing: 'per video token',
			group: 'vip',
			video_per_1m_tokens: 9.31,
			video_with_reference_per_1m_tokens: 5.67,
			input_per_1m_tokens: null,
		});
		expect(row('delta-video-2-0-fast-260128')).toMatchObject({
			billing: 'per video token',
			group: 'vip',
			video_per_1m_tokens: 19.54,
			video_with_reference_per_1m_tokens: 11.62,
		});
		expect(row('delta-video-2-0-mini-260615').price_text).toBe(
			'$9.31 / 1M video tokens ($5.67 with a reference video)',
		);
	});

	it('every row has the same keys (CSV-friendly)', () => {
		const keys = sim.data.map((e) => Object.keys(priceRow(lowestPrice(e, sim), usd)).join(','));
		expect(new Set(keys).size).toBe(1);
	});
});

describe('display currency', () => {
	const status = (o: Record<string, unknown>) =>
		readDisplay({
			success: true,
			message: '',
			data: {
				quota_per_unit: 500000,
				usd_exchange_rate: 7.3,
				custom_currency_symbol: '◎',
				custom_currency_exchange_rate: 10,
				...o,
			},
		});

	it('each display type on a per-call price (0.032 base units)', () => {
		expect(toDisplay(0.032, status({ quota_display_type: 'USD' }))).toEqual({
			amount: 0.03,
			currency: 'USD',
			symbol: '$',
			places: 2,
		});
		expect(toDisplay(0.032, status({ quota_display_type: 'CNY' }))).toEqual({
			amount: 0.23,
			currency: 'CNY',
			symbol: '¥',
			places: 2,
		});
		expect(toDisplay(0.032, status({ quota_display_type: 'TOKENS' }))).toEqual({
			amount: 16000,
			currency: 'quota',
			symbol: '¤',
			places: 0,
		});
		expect(toDisplay(0.032, status({ quota_display_type: 'CUSTOM' }))).toEqual({
			amount: 0.32,
			currency: 'custom',
			symbol: '◎',
			places: 2,
		});
	});

	it('each display type through the simulator status body and a price row', () => {
		const at = (o: Parameters<typeof statusBody>[0]) =>
			row('alpha-chat-4o', readDisplay(statusBody(o)));
		expect(at({ quota_display_type: 'CNY' })).toMatchObject({
			currency: 'CNY',
			symbol: '¥',
			input_per_1m_tokens: 14.6,
			output_per_1m_tokens: 58.4,
		});
		expect(at({ quota_display_type: 'TOKENS' })).toMatchObject({
			currency: 'quota',
			symbol: '¤',
			input_per_1m_tokens: 1_000_000,
			output_per_1m_tokens: 4_000_000,
			price_text: '¤1000000 / 1M input tokens, ¤4000000 / 1M output tokens',
		});
		expect(
			at({
				quota_display_type: 'CUSTOM',
				custom_currency_symbol: 'pts',
				custom_currency_exchange_rate: 100,
			}),
		).toMatchObject({ currency: 'custom', symbol: 'pts', input_per_1m_tokens: 200 });
		expect(at({ quota_display_type: 'USD' })).toMatchObject({
			currency: 'USD',
			symbol: '$',
			input_per_1m_tokens: 2,
		});
	});

	it('TOKENS follows quota_per_unit', () => {
		expect(
			toDisplay(0.032, status({ quota_display_type: 'TOKENS', quota_per_unit: 1_000_000 })).amount,
		).toBe(32000);
		expect(quotaToDisplay(26186, status({ quota_display_type: 'TOKENS' }))).toEqual({
			amount: 26186,
			currency: 'quota',
			symbol: '¤',
			places: 0,
		});
		expect(quotaToDisplay(26186, status({ quota_display_type: 'CNY' }))).toEqual({
			amount: 0.38,
			currency: 'CNY',
			symbol: '¥',
			places: 2,
		});
	});

	it('falls back to USD, saying why, when a setting cannot be followed', () => {
		expect(status({ quota_display_type: 'CNY', usd_exchange_rate: 0 })).toMatchObject({
			type: 'USD',
			notes: [expect.stringMatching(/no usable usd_exchange_rate/)],
		});
		expect(
			status({ quota_display_type: 'CUSTOM', custom_currency_exchange_rate: 'x' }),
		).toMatchObject({
			type: 'USD',
			notes: [expect.stringMatching(/custom_currency_exchange_rate/)],
		});
		expect(status({ quota_display_type: 'EUR' })).toMatchObject({
			type: 'USD',
			notes: [expect.stringMatching(/unknown quota_display_type "EUR"/)],
		});
		expect(status({ quota_display_type: 'USD', quota_per_unit: -3 })).toMatchObject({
			quotaPerUnit: 500000,
			notes: [expect.stringMatching(/unusable quota_per_unit/)],
		});
	});

	it('reads bare and wrapped status bodies, lower-case types, numeric strings, display_in_currency false', () => {
		expect(readDisplay({ quota_display_type: 'cny', usd_exchange_rate: '7.1' })).toMatchObject({
			type: 'CNY',
			usdExchangeRate: 7.1,
		});
		expect(readDisplay({ data: { display_in_currency: false } })).toMatchObject({ type: 'TOKENS' });
		expect(readDisplay(null)).toMatchObject({ type: 'USD', quotaPerUnit: 500000 });
		expect(
			readDisplay({ data: { quota_display_type: 'CUSTOM', custom_currency_exchange_rate: 2 } })
				.customSymbol,
		).toBe('¤');
		expect(
			formatDisplay(
				toDisplay(
					1.5,
					readDisplay({
						quota_display_type: 'CUSTOM',
						custom_currency_exchange_rate: 2,
						custom_currency_symbol: 'pts',
					}),
				),
			),
		).toBe('pts3.00');
	});
});

describe('tolerant price list parsing', () => {
	it('usable_group as an array, ratios as strings, entries without a name dropped, missing parts', () => {
		const p = parsePricing({
			data: [
				{ model_name: 'a', quota_type: '1', model_price: '0.5', enable_groups: ['g'] },
				{ quota_type: 1 },
				'x',
			],
			usable_group: ['g'],
			group_ratio: { g: '2', bad: 'nope' },
		});
		expect(p.data).toHaveLength(1);
		expect(p.group_ratio).toEqual({ g: 2 });
		expect(p.usable_group).toEqual({ g: 'g' });
		expect(lowestPrice(p.data[0], p)).toMatchObject({
			billing: 'per_call',
			group: 'g',
			perCallUsd: 1,
		});
		expect(parsePricing(undefined)).toEqual({ data: [], group_ratio: {}, usable_group: {} });
	});

	it('a priced model whose entry lacks its price shows no number (not 0)', () => {
		const p = parsePricing({
			data: [
				{ model_name: 'a', quota_type: 1, enable_groups: ['g'] },
				{ model_name: 'b', quota_type: 0, enable_groups: ['g'] },
			],
			usable_group: { g: 'G' },
			group_ratio: { g: 1 },
		});
		const [a, b] = p.data.map((e) => lowestPrice(e, p));
		expect(a).toMatchObject({ group: 'g', unpricedReason: 'the price list gives no model_price' });
		expect(a.perCallUsd).toBeUndefined();
		expect(b).toMatchObject({ group: 'g', unpricedReason: 'the price list gives no model_ratio' });
		expect(b.inputPer1MUsd).toBeUndefined();
		expect(priceRow(a, usd)).toMatchObject({
			priced: false,
			price_per_call: null,
			price_text: 'no public price',
		});
	});

	it('ties keep the first enabled group; an explicit ratio 0 from the list is a real (free) group', () => {
		const p = parsePricing({
			data: [{ model_name: 'a', quota_type: 1, model_price: 1, enable_groups: ['x', 'y', 'z'] }],
			usable_group: { x: 'X', y: 'Y', z: 'Z' },
			group_ratio: { x: 1, y: 1, z: 0 },
		});
		expect(lowestPrice(p.data[0], p)).toMatchObject({ group: 'z', perCallUsd: 0 });
		const q = parsePricing({
			data: [{ model_name: 'a', quota_type: 1, model_price: 1, enable_groups: ['x', 'y'] }],
			usable_group: { x: 'X', y: 'Y' },
			group_ratio: { x: 1, y: 1 },
		});
		expect(lowestPrice(q.data[0], q).group).toBe('x');
	});
});

describe('delta-video fees', () => {
	it("the spec's table exactly", () => {
		expect(DELTA_VIDEO_UNIT_PRICES).toEqual({
			'delta-video-2-0-mini-260615': { noReferenceVideo: 11.638, withReferenceVideo: 7.084 },
			'delta-video-2-0-fast-260128': { noReferenceVideo: 24.42, withReferenceVideo: 14.52 },
		});
		const oneMillion: Array<[string, boolean, number, number]> = [
			['delta-video-2-0-mini-260615', false, 11.638, 5_819_000],
			['delta-video-2-0-mini-260615', true, 7.084, 3_542_000],
			['delta-video-2-0-fast-260128', false, 24.42, 12_210_000],
			['delta-video-2-0-fast-260128', true, 14.52, 7_260_000],
		];
		for (const [model, ref, unit, quota] of oneMillion) {
			expect(deltaVideoFee(model, 1_000_000, ref, 1)).toEqual({
				tokens: 1_000_000,
				unitPrice: unit,
				groupRatio: 1,
				withReferenceVideo: ref,
				quota,
				usd: unit,
			});
		}
	});

	it('fee = tokens / 1e6 × unit × group ratio, in whole quota units', () => {
		// 50 400 × 11.638 / 1e6 × 1.5 = 0.8798328 base units = 439 916.4 ¤ → 439 916
		expect(deltaVideoFee('delta-video-2-0-mini-260615', 50_400, false, 1.5)).toMatchObject({
			quota: 439_916,
			usd: 0.879832,
		});
		expect(deltaVideoFee('delta-video-2-0-fast-260128', 100_000, true, 0.8).quota).toBe(580_800);
		expect(deltaVideoFee('delta-video-2-0-mini-260615', 0, false, 1).quota).toBe(0);
		expect(deltaVideoFee('delta-video-2-0-mini-260615', 1_000_000, false, 1, 1_000_000).quota).toBe(
			11_638_000,
		);
	});

	it('rounds exactly: halves go up where float arithmetic lands just below', () => {
		// 4 500 × 11.638 × 0.5 = 26 185.5 exactly; in floats (4500 / 1e6) × 11.638 × 500 000 is 26185.499999999996,
		// which rounds to 26 185. The node's own path (mini's unit price, the default quota_per_unit) must give 26 186.
		expect(deltaVideoFee('delta-video-2-0-mini-260615', 4_500, false, 1).quota).toBe(26_186);
		expect(videoFeeQuota(4500, 11.638, 1)).toBe(26186);
		expect(videoFeeQuota(325, 14.52, 1)).toBe(2360);
		expect(videoFeeQuota(9000, 11.638, 1.5)).toBe(78557);
		expect(roundedProduct([1, 0.1, 0.2], 0.03)).toBe(1);
		expect(toFraction(1e-7)).toEqual({ num: 1n, den: 10_000_000n });
		expect(toFraction(-2.5e3)).toEqual({ num: -2500n, den: 1n });
	});

	it('refuses unknown models, negative tokens and a zero or unknown multiplier', () => {
		expect(() => deltaVideoFee('gamma-video-1.0', 100, false, 1)).toThrow(
			/not a delta-video model/,
		);
		expect(() => deltaVideoFee('delta-video-2-0-mini-260615', -1, false, 1)).toThrow(
			/tokens: must be a non-negative number/,
		);
		expect(() => deltaVideoFee('delta-video-2-0-mini-260615', 100, false, 0)).toThrow(/never 0/);
		expect(() => deltaVideoFee('delta-video-2-0-mini-260615', 100, false, NaN)).toThrow(/never 0/);
	});
});
