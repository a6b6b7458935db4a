/**
 * Issue 41, bullet 4: amounts as the display currency shows them (nodes/shared/money/display.ts; docs/configuration.md,
 * "Amounts as the currency shows them"), over HTTP against the simulator, in-process through n8n: on a USD, CNY,
 * JPY-symbol and ◎-symbol site and any quota_per_unit, Pricing's price and Image Submit's cost of the same call are
 * the same figure, rounded as the currency shows it (USD/CNY/◎ 2 decimals, JPY 0), from the exact ¤ beside it; a
 * Chat's sub-cent cost keeps 2 significant digits (never $0.00); and a cap equal to the price still passes — the
 * rounding is display only. The expected amounts come from the documented rule in BigInt (test/property/money-oracle.ts).
 */
import type { IDataObject } from 'n8n-workflow';
import { GenGatewayPricing } from '../../nodes/GenGatewayPricing/GenGatewayPricing.node';
import { useSimulator } from '../harness/simulator';
import { cleanupBinaryData, runWorkflow } from '../harness/workflow';
import { shownOf, type SiteDisplay } from '../property/money-oracle';
import { chat, cost, creds, customData, image, paidRequests } from './support';

const sim = useSimulator({ quiet: true, seed: 41 });
afterAll(() => cleanupBinaryData());
beforeEach(() => {
	sim.reset();
	sim.resetPricing();
	sim.setStatus({});
});

const SITES: Array<[string, SiteDisplay]> = [
	['USD', { type: 'USD', quotaPerUnit: 500_000, rate: '1', symbol: '$' }],
	['USD, ¤1000000 a unit', { type: 'USD', quotaPerUnit: 1_000_000, rate: '1', symbol: '$' }],
	['CNY at 7.3', { type: 'CNY', quotaPerUnit: 500_000, rate: '7.3', symbol: '¥' }],
	['custom JPY at 150', { type: 'CUSTOM', quotaPerUnit: 500_000, rate: '150', symbol: 'JPY' }],
	[
		'custom ◎ at 10, ¤250000 a unit',
		{ type: 'CUSTOM', quotaPerUnit: 250_000, rate: '10', symbol: '◎' },
	],
];

function setSite(s: SiteDisplay): void {
	sim.setStatus({
		quota_display_type: s.type,
		quota_per_unit: s.quotaPerUnit,
		...(s.type === 'CNY' ? { usd_exchange_rate: Number(s.rate) } : {}),
		...(s.type === 'CUSTOM'
			? { custom_currency_symbol: s.symbol, custom_currency_exchange_rate: Number(s.rate) }
			: {}),
	});
}

async function priceRow(model: string): Promise<IDataObject> {
	const r = await runWorkflow({
		nodes: [
			{
				name: 'Pricing',
				type: new GenGatewayPricing(),
				parameters: { operation: 'getPrices', modelFilter: model },
			},
		],
		credentials: creds(sim),
	});
	return r.output('Pricing').find((i) => i.json.model === model)!.json;
}

describe('amounts as the display currency shows them (simulator, in-process)', () => {
	it.each(SITES)(
		"%s: Pricing's price and Image Submit's cost of one call are one figure, rounded as the currency shows it, the ¤ exact",
		async (_, site) => {
			setSite(site);
			const row = await priceRow('alpha-image-2.5');
			// a key in the group Pricing shows the lowest price of (vip), so the call is charged that price
			const apiKey = sim.addKey({ name: 'lowest', group: String(row.group) });
			const r = await runWorkflow({
				nodes: [image({ groupName: String(row.group) }, { size: '1024x1024' })],
				credentials: { apiKey, baseUrl: sim.baseUrl },
			});
			const c = cost(r.output('Image')[0].json);
			const shown = shownOf(c.quota as number, site);
			expect(c).toMatchObject({ status: 'expected', amount: shown.amount });
			expect(c.text).toBe(`${shown.text} (¤${c.quota})`);
			expect(row.price_per_call).toBe(shown.amount);
			expect(row.price_text).toBe(`${shown.text} / call (¤${c.quota})`);
			// the gateway charged the exact ¤ the text carries
			expect(paidRequests(sim).map((l) => l.amount)).toEqual([c.quota]);
			// the spent total: rounded alike, the ¤ exact
			expect(String(customData(r).gengateway_spent_text)).toMatch(
				new RegExp(`^${shown.text.replace(/[$.]/g, '\\$&')} \\(¤${c.quota}\\)`),
			);
		},
	);

	it('a sub-cent cost keeps 2 significant digits (never $0.00), and the amount field is the same figure', async () => {
		const r = await runWorkflow({
			nodes: [chat({ groupName: 'hd' })],
			credentials: creds(sim),
		});
		const c = cost(r.output('Chat')[0].json);
		const site: SiteDisplay = { type: 'USD', quotaPerUnit: 500_000, rate: '1', symbol: '$' };
		const shown = shownOf(c.quota as number, site);
		expect(c.quota).toBeGreaterThan(0);
		expect(c.quota as number).toBeLessThan(5000); // below one cent at ¤500000 a dollar
		expect(c.amount).toBe(shown.amount);
		expect(c.amount).toBeGreaterThan(0);
		expect(c.text).toBe(`${shown.text} (¤${c.quota})`);
		expect(String(c.text)).not.toMatch(/\$0\.00 /);
		expect(String(c.text)).toMatch(/^\$0\.0+[1-9]\d? /);
	});

	it('the cap counts ¤, never the rounded text: ¥0.146 (the exact price, shown ¥0.15) passes, ¥0.14 refuses', async () => {
		// ¤10000 on a CNY site at 7.3 is exactly ¥0.146, shown ¥0.15
		setSite({ type: 'CNY', quotaPerUnit: 500_000, rate: '7.3', symbol: '¥' });
		sim.setPricing({ data: [{ model_name: 'alpha-image-2.5', model_price: 0.02 }] });
		const apiKey = sim.addKey({ name: 'plain', group: 'default' });
		const run = (maxSpend: string) =>
			runWorkflow({
				nodes: [
					image(
						{ groupName: 'default', maxSpend },
						{ size: '1024x1024' },
						{ onError: 'continueRegularOutput' },
					),
				],
				credentials: { apiKey, baseUrl: sim.baseUrl },
			});
		const ratio = sim.pricing.group_ratio.default;
		expect(ratio).toBe(1);
		const passes = await run('¥0.146');
		expect(cost(passes.output('Image')[0].json)).toMatchObject({
			quota: 10000,
			amount: 0.15,
			text: '¥0.15 (¤10000)',
		});
		expect(paidRequests(sim)).toHaveLength(1);
		sim.reset();
		const refused = await run('¥0.14');
		expect(refused.output('Image')[0].json.failed_at).toBe('budget');
		expect(paidRequests(sim)).toHaveLength(0);
	});
});
