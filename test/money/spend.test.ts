/**
 * Issue 41, bullet 2: Max Expected Spend in exact decimals (nodes/shared/money/spend.ts). A cap written in the display
 * currency is converted with the site's own rate exactly: equal to the price passes, one unit under it refuses, for any
 * quota_per_unit and rate. A cap written in another currency than the site shows is refused naming both.
 * A property with an oracle written from the spec's billing rules in exact decimals (BigInt cross-multiplication,
 * seed printed), and the cases in-process against the simulator's ledger.
 */
import fc from 'fast-check';
import type { DisplaySettings } from '../../nodes/shared/money/prices';
import { quotaToDisplay } from '../../nodes/shared/money/prices';
import { SPEND_RULE, spendInQuota } from '../../nodes/shared/money/spend';
import { fuzzParameters, report } from '../property/check';
import { useSimulator } from '../harness/simulator';
import { cleanupBinaryData, runWorkflow, type RunResult } from '../harness/workflow';
import { creds, image, items, paidRequests } from './support';

// ---- the oracle: a decimal as written, exactly, as a BigInt fraction -------------------------------------------
const dec = (t: string): [bigint, bigint] => {
	const [i, f = ''] = t.split('.');
	return [BigInt(i + f), 10n ** BigInt(f.length)];
};
/** ¤ per display unit = quota_per_unit / rate (USD: rate 1), so a display amount A holds Q ¤ when Q ≤ A × qpu / rate */
function capHolds(q: bigint, amount: string, qpu: string, rate: string): boolean {
	const [an, ad] = dec(amount);
	const [pn, pd] = dec(qpu);
	const [rn, rd] = dec(rate);
	// q ≤ (an/ad) × (pn/pd) / (rn/rd)  ⇔  q × ad × pd × rn ≤ an × pn × rd
	return q * ad * pd * rn <= an * pn * rd;
}
/** the exact display amount of Q ¤, when it is a finite decimal of at most 12 places */
function exactDisplay(q: bigint, qpu: string, rate: string): string | undefined {
	const [pn, pd] = dec(qpu);
	const [rn, rd] = dec(rate);
	const num = q * pd * rn;
	const den = pn * rd;
	const scaled = num * 10n ** 12n;
	if (scaled % den !== 0n) return undefined;
	const s = (scaled / den).toString().padStart(13, '0');
	return `${s.slice(0, -12)}.${s.slice(-12)}`.replace(/\.?0+$/, '');
}

const decimalText = (maxInt: number, places: number) =>
	fc
		.tuple(fc.integer({ min: 0, max: maxInt }), fc.integer({ min: 0, max: 10 ** places - 1 }))
		.map(([i, f]) => (f ? `${i}.${String(f).padStart(places, '0')}` : String(i)));
const site = fc.record({
	type: fc.constantFrom<'USD' | 'CNY' | 'CUSTOM'>('USD', 'CNY', 'CUSTOM'),
	qpu: fc.oneof(
		fc.constantFrom('500000', '1000000', '250000', '100', '3'),
		fc.integer({ min: 1, max: 5_000_000 }).map(String),
	),
	rate: fc.oneof(fc.constantFrom('7.3', '7.19', '0.92', '1'), decimalText(200, 4)),
});
const settings = (s: { type: 'USD' | 'CNY' | 'CUSTOM'; qpu: string; rate: string }) =>
	({
		type: s.type,
		quotaPerUnit: Number(s.qpu),
		usdExchangeRate: Number(s.rate),
		customSymbol: '◎',
		customRate: Number(s.rate),
	}) as DisplaySettings;

describe('a cap in the display currency, in exact decimals (property)', () => {
	it('passes every price it holds and refuses every price over it, for any quota_per_unit and rate; equal passes', () => {
		let ran = 0;
		const details = fc.check(
			fc.property(
				site.filter((s) => Number(s.rate) > 0 && Number(s.qpu) > 0),
				fc.bigInt({ min: 1n, max: 50_000_000n }),
				decimalText(5000, 6),
				fc.boolean(),
				(s, q, random, equal) => {
					ran++;
					const rate = s.type === 'USD' ? '1' : s.rate;
					const d = settings(s);
					const amount = (equal ? exactDisplay(q, s.qpu, rate) : undefined) ?? random;
					if (!(Number(amount) > 0)) return;
					const read = SPEND_RULE.schema.parse(amount)!;
					const cap = spendInQuota(read, d).cap!;
					expect([amount, BigInt(cap) >= q]).toEqual([amount, capHolds(q, amount, s.qpu, rate)]);
					expect([amount, capHolds(BigInt(cap) + 1n, amount, s.qpu, rate)]).toEqual([
						amount,
						false,
					]);
				},
			),
			fuzzParameters({ runs: 2000, timeMs: 20_000 }),
		);
		report('../money/spend.test.ts', details as fc.RunDetails<unknown>, ran);
	});

	it("the issue's cases: ¥0.146 holds ¤10000 on a CNY site at 7.3; $2.01 holds three ¤335000 images", () => {
		const cny = settings({ type: 'CNY', qpu: '500000', rate: '7.3' });
		const usd = settings({ type: 'USD', qpu: '500000', rate: '1' });
		expect(spendInQuota(SPEND_RULE.schema.parse('¥0.146')!, cny).cap).toBe(10000);
		expect(spendInQuota(SPEND_RULE.schema.parse('$2.01')!, usd).cap).toBe(1005000);
		expect(spendInQuota(SPEND_RULE.schema.parse(2.01)!, usd).cap).toBe(1005000);
		// shown as the currency shows it (fen, cents); the cap above is compared in exact ¤, never through this
		expect(quotaToDisplay(10000, cny).amount).toBe(0.15);
		expect(quotaToDisplay(1005000, usd).amount).toBe(2.01);
	});

	it.each([
		['¥0.20', 'USD', 'is in CNY, but this site shows its prices in USD'],
		['0.20 CNY', 'USD', 'is in CNY, but this site shows its prices in USD'],
		['$1', 'CNY', 'is in USD, but this site shows its prices in CNY'],
		['€1', 'USD', 'is in EUR, but this site shows its prices in USD'],
		['$1', 'TOKENS', 'is in USD, but this site shows its prices in ¤ quota units'],
		['$1', 'CUSTOM', 'is in USD, but this site shows its prices in ◎'],
	])('%s on a %s site is refused naming both currencies', (cap, type, says) => {
		const d = { ...settings({ type: 'USD', qpu: '500000', rate: '7.3' }), type } as DisplaySettings;
		expect(spendInQuota(SPEND_RULE.schema.parse(cap)!, d).refusal).toContain(says);
	});

	it("the site's own currency, its code or its custom symbol, passes", () => {
		const custom = settings({ type: 'CUSTOM', qpu: '500000', rate: '2' });
		expect(spendInQuota(SPEND_RULE.schema.parse('◎1')!, custom).cap).toBe(250000);
		const cny = settings({ type: 'CNY', qpu: '500000', rate: '7.3' });
		expect(spendInQuota(SPEND_RULE.schema.parse('0.73 rmb')!, cny).cap).toBe(50000);
	});
});

const sim = useSimulator({ quiet: true, taskLatencyMs: 50, pollAfterMs: 40, seed: 41 });
afterAll(() => cleanupBinaryData());
beforeEach(() => {
	sim.reset();
	sim.setStatus({});
	sim.resetPricing();
});
const runError = (r: RunResult) => r.run.data.resultData.error as { message: string } | undefined;
/** alpha-image-2.5 at `price` base units per call, the hd group (the demo key's) at ratio 1 */
const priced = (price: number) =>
	sim.setPricing({
		data: [{ model_name: 'alpha-image-2.5', model_price: price }],
		group_ratio: { hd: 1 },
	});

describe("the issue's cases through Image Submit (in-process, the simulator's ledger)", () => {
	it('a cap of ¥0.146 on a CNY site (7.3) passes a ¤10000 image; ¥0.145 refuses it', async () => {
		sim.setStatus({ quota_display_type: 'CNY', usd_exchange_rate: 7.3 });
		priced(0.02);
		const passed = await runWorkflow({
			nodes: [image({ groupName: 'hd', maxSpend: '¥0.146' })],
			credentials: creds(sim),
		});
		expect(runError(passed)).toBeUndefined();
		expect(paidRequests(sim).map((l) => l.amount)).toEqual([10000]);
		sim.reset();
		const refused = await runWorkflow({
			nodes: [image({ groupName: 'hd', maxSpend: '¥0.145' })],
			credentials: creds(sim),
		});
		expect(runError(refused)?.message).toMatch(/^Max Expected Spend ¥0\.145 \(¤9931\) refused/);
		expect(paidRequests(sim)).toHaveLength(0);
	});

	it('a cap of $2.01 passes three ¤335000 images ($2.01 in all)', async () => {
		priced(0.67);
		const r = await runWorkflow({
			nodes: [image({ groupName: 'hd', maxSpend: '$2.01' })],
			input: items(3),
			credentials: creds(sim),
		});
		expect(runError(r)).toBeUndefined();
		expect(paidRequests(sim).map((l) => l.amount)).toEqual([335000, 335000, 335000]);
	});

	it('a cap of ¥0.20 on a USD site is refused naming both currencies; nothing is sent', async () => {
		priced(0.032);
		const r = await runWorkflow({
			nodes: [
				image({ groupName: 'hd', maxSpend: '¥0.20' }, {}, { onError: 'continueRegularOutput' }),
			],
			input: items(5),
			credentials: creds(sim),
		});
		expect(paidRequests(sim)).toHaveLength(0);
		for (const it of r.output('Image'))
			expect(it.json).toMatchObject({
				status: 'failed',
				failed_at: 'budget',
				error_message: expect.stringMatching(
					/^Max Expected Spend "¥0\.20" is in CNY, but this site shows its prices in USD/,
				),
			});
	});
});
