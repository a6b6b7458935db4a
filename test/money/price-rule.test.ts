/**
 * Issue 41, bullet 4 / case 7: one price rule shared by Pricing and every cost (nodes/shared/money/prices.ts
 * `lowestPublicGroup`, `lowestPrice`; cost.ts `quote`, `tokenQuota`). For any `quota_per_unit` and public groups with
 * ratio 0, Pricing's lowest price equals the cost of the same call at the same group, and both equal the spec's
 * billing rule in exact decimals: per call model_price × ratio × quota_per_unit, per token tokens × model_ratio ×
 * ratio (× completion_ratio for output). A property (seed printed) and the case in-process (simulator).
 */
import fc from 'fast-check';
import { quote, ratioRange } from '../../nodes/shared/money/cost';
import { tokenQuota } from '../../nodes/shared/money/tokens';
import {
	lowestPrice,
	quotaToDisplay,
	toDisplay,
	type DisplaySettings,
	type PricingData,
} from '../../nodes/shared/money/prices';
import { GenGatewayPricing } from '../../nodes/GenGatewayPricing/GenGatewayPricing.node';
import { fuzzParameters, report } from '../property/check';
import { useSimulator } from '../harness/simulator';
import { cleanupBinaryData, runWorkflow } from '../harness/workflow';
import { chat, cost, creds } from './support';

/** a decimal as written ("0.0127", "5e-8") as an exact fraction */
const dec = (t: string): [bigint, bigint] => {
	const [mant, e = '0'] = t.split('e');
	const [i, f = ''] = mant.split('.');
	const exp = Number(e) - f.length;
	return exp >= 0 ? [BigInt(i + f) * 10n ** BigInt(exp), 1n] : [BigInt(i + f), 10n ** BigInt(-exp)];
};
/** the spec's rule, exactly: the product of decimals, rounded half up to a whole ¤ */
const wholeQuota = (...factors: string[]): number => {
	let n = 1n;
	let d = 1n;
	for (const f of factors) {
		const [a, b] = dec(f);
		n *= a;
		d *= b;
	}
	return Number((n * 2n + d) / (d * 2n));
};
/** whether two products of decimals are equal, exactly */
const sameDecimal = (a: string[], b: string[]) => {
	const prod = (fs: string[]) =>
		fs.reduce<[bigint, bigint]>(
			([n, d], f) => {
				const [x, y] = dec(f);
				return [n * x, d * y];
			},
			[1n, 1n],
		);
	const [an, ad] = prod(a);
	const [bn, bd] = prod(b);
	return an * bd === bn * ad;
};
const decimalText = (maxInt: number, places: number) =>
	fc
		.tuple(fc.integer({ min: 0, max: maxInt }), fc.integer({ min: 0, max: 10 ** places - 1 }))
		.map(([i, f]) => (f ? `${i}.${String(f).padStart(places, '0')}` : String(i)));

const world = fc.record({
	qpu: fc.constantFrom('500000', '1000000', '250000', '400000', '2000000'),
	modelPrice: decimalText(3, 4),
	modelRatio: decimalText(40, 3),
	completion: decimalText(8, 2),
	// public groups enabling the model (ratio 0 included), and one non-public group
	publicRatios: fc.array(fc.oneof(fc.constant('0'), decimalText(3, 2)), {
		minLength: 1,
		maxLength: 4,
	}),
	hidden: decimalText(5, 2),
});

type World = {
	qpu: string;
	modelPrice: string;
	modelRatio: string;
	completion: string;
	publicRatios: string[];
	hidden: string;
};

function setUp(w: World): {
	pricing: PricingData;
	display: DisplaySettings;
} {
	const groups = w.publicRatios.map((_, i) => `g${i}`);
	const enable = [...groups, 'internal'];
	return {
		pricing: {
			data: [
				{
					model_name: 'img',
					quota_type: 1,
					model_price: Number(w.modelPrice),
					enable_groups: enable,
				},
				{
					model_name: 'txt',
					quota_type: 0,
					model_ratio: Number(w.modelRatio),
					completion_ratio: Number(w.completion),
					enable_groups: enable,
				},
			],
			usable_group: Object.fromEntries(groups.map((g) => [g, g])),
			group_ratio: {
				...Object.fromEntries(groups.map((g, i) => [g, Number(w.publicRatios[i])])),
				internal: Number(w.hidden),
			},
		} as unknown as PricingData,
		display: {
			type: 'USD',
			quotaPerUnit: Number(w.qpu),
			usdExchangeRate: 1,
			customSymbol: '¤',
			customRate: 1,
		},
	};
}

describe('Pricing and every cost: one price rule (property)', () => {
	it('the lowest public price equals the cost at that group and the spec rule, for any quota_per_unit and ratio-0 groups', () => {
		let ran = 0;
		const details = fc.check(
			fc.property(world, (w) => {
				ran++;
				const { pricing, display } = setUp(w);
				const lowest = w.publicRatios.reduce((a, b) => (Number(b) < Number(a) ? b : a));
				const [img, txt] = pricing.data;
				// Pricing
				const perCall = lowestPrice(img, pricing, display.quotaPerUnit);
				const perToken = lowestPrice(txt, pricing, display.quotaPerUnit);
				expect(perCall.groupRatio).toBe(Number(lowest));
				// the cost: the same group is the low end of the range
				expect(ratioRange(pricing, img).low?.ratio).toBe(Number(lowest));
				const q = quote({ model: 'img', calls: 1 }, pricing, display, {});
				const callQuota = wholeQuota(w.modelPrice, lowest, w.qpu);
				expect(q.perCall?.low).toBe(callQuota);
				expect(toDisplay(perCall.perCallUsd!, display).amount).toBe(
					quotaToDisplay(callQuota, display).amount,
				);
				const ratios = quote({ model: 'txt', calls: 1 }, pricing, display, {}).tokenRatios!;
				const inQ = tokenQuota({ prompt: 1_000_000, completion: 0 }, ratios, Number(lowest)).quota;
				const outQ = tokenQuota({ prompt: 0, completion: 1_000_000 }, ratios, Number(lowest)).quota;
				expect(inQ).toBe(wholeQuota('1000000', w.modelRatio, lowest));
				expect(outQ).toBe(wholeQuota('1000000', w.modelRatio, lowest, w.completion));
				// a token price is a rate: Pricing's per 1M tokens, in ¤, is the spec's product exactly (a call's charge
				// rounds its whole total once, as tokenQuota does above)
				expect(
					sameDecimal([String(perToken.inputPer1MUsd), w.qpu], ['1000000', w.modelRatio, lowest]),
				).toBe(true);
				expect(
					sameDecimal(
						[String(perToken.outputPer1MUsd), w.qpu],
						['1000000', w.modelRatio, lowest, w.completion],
					),
				).toBe(true);
			}),
			fuzzParameters({ runs: 500, timeMs: 20_000 }),
		);
		report('../money/price-rule.test.ts', details as fc.RunDetails<unknown>, ran);
	});
});

const sim = useSimulator({ quiet: true, seed: 7 });
afterAll(() => cleanupBinaryData());
beforeEach(() => {
	sim.reset();
	sim.resetPricing();
	sim.setStatus({});
});

describe("the issue's case 7 through the nodes (in-process, simulator)", () => {
	it('quota_per_unit 1000000: Pricing per 1M input tokens equals what a 1M-token prompt costs, at the key group', async () => {
		sim.setStatus({ quota_per_unit: 1_000_000 });
		const prices = await runWorkflow({
			nodes: [
				{
					name: 'Pricing',
					type: new GenGatewayPricing(),
					parameters: { operation: 'getPrices', modelFilter: 'alpha-chat-4o' },
				},
			],
			credentials: creds(sim),
		});
		const row = prices.output('Pricing').find((i) => i.json.model === 'alpha-chat-4o')!.json;
		const group = String(row.group);
		// the chat's cost at the same group, for its real usage, scaled to 1M prompt tokens
		const r = await runWorkflow({
			nodes: [chat({ groupName: group })],
			credentials: creds(sim),
		});
		const c = cost(r.output('Chat')[0].json);
		const usage = r.output('Chat')[0].json.usage as {
			prompt_tokens: number;
			completion_tokens: number;
		};
		const perPrompt = Number(row.input_per_1m_tokens) / 1_000_000;
		const perCompletion = Number(row.output_per_1m_tokens) / 1_000_000;
		const expected = usage.prompt_tokens * perPrompt + usage.completion_tokens * perCompletion;
		expect(Number(c.amount)).toBeCloseTo(expected, 5);
	});
});
