import { startSimulator, type Simulator } from '../../simulator';
import { GenGatewayPricing } from '../../nodes/GenGatewayPricing/GenGatewayPricing.node';
import { deltaVideoFee, lowestPrice, readDisplay, settlementTokens, toDisplay } from '../../nodes/shared/pricing';
import { cleanupBinaryData, runWorkflow } from '../harness/workflow';

describe('price arithmetic', () => {
	const pricing = {
		data: [],
		group_ratio: { default: 1, vip: 0.8, internal: 0.5 },
		usable_group: { default: 'Default', vip: 'VIP', promo: 'Promo' },
	};

	it('takes the cheapest publicly selectable group and never a non-public one', () => {
		const p = lowestPrice({ model_name: 'm', quota_type: 1, model_price: 0.05, enable_groups: ['internal', 'default', 'vip'] }, pricing);
		expect(p.group).toBe('vip');
		expect(p.perCallUsd).toBeCloseTo(0.04, 10);
	});

	it('skips and reports a public group missing from group_ratio instead of treating it as 0', () => {
		const p = lowestPrice({ model_name: 'm', quota_type: 1, model_price: 0.05, enable_groups: ['promo', 'default'] }, pricing);
		expect(p.skippedGroups).toEqual(['promo']);
		expect(p.group).toBe('default');
		expect(p.perCallUsd).toBe(0.05);
	});

	it('has no price for a model enabled only in a non-public group', () => {
		const p = lowestPrice({ model_name: 'm', quota_type: 1, model_price: 0.05, enable_groups: ['internal'] }, pricing);
		expect(p.group).toBeUndefined();
		expect(p.perCallUsd).toBeUndefined();
	});

	it('prices per-token models per 1M tokens: model_ratio × 2 × group ratio, output × completion_ratio', () => {
		const p = lowestPrice({ model_name: 'm', quota_type: 0, model_ratio: 1.25, completion_ratio: 4, enable_groups: ['default', 'vip'] }, pricing);
		expect(p.inputPer1MUsd).toBeCloseTo(2.0, 10);
		expect(p.outputPer1MUsd).toBeCloseTo(8.0, 10);
	});

	it('shows dynamic (tiered_expr) models without a number', () => {
		const p = lowestPrice({ model_name: 'm', quota_type: 0, model_ratio: 1, billing_mode: 'tiered_expr', enable_groups: ['default'] }, pricing);
		expect(p.dynamic).toBe(true);
		expect(p.inputPer1MUsd).toBeUndefined();
	});

	it('converts to each display currency type', () => {
		const base = { success: true, data: { quota_per_unit: 500000, usd_exchange_rate: 7.3, custom_currency_symbol: '◎', custom_currency_exchange_rate: 10 } };
		const at = (t: string) => toDisplay(0.04, readDisplay({ ...base, data: { ...base.data, quota_display_type: t } }));
		expect(at('USD')).toEqual({ amount: 0.04, currency: 'USD', symbol: '$' });
		expect(at('CNY')).toEqual({ amount: 0.292, currency: 'CNY', symbol: '¥' });
		expect(at('TOKENS')).toEqual({ amount: 20000, currency: 'quota', symbol: '¤' });
		expect(at('CUSTOM')).toEqual({ amount: 0.4, currency: 'custom', symbol: '◎' });
	});

	it("uses the spec's delta-video table exactly, and the reference-video price only with a video reference", () => {
		const cases: Array<[string, boolean, number]> = [
			['delta-video-2-0-mini-260615', false, 11.638],
			['delta-video-2-0-mini-260615', true, 7.084],
			['delta-video-2-0-fast-260128', false, 24.42],
			['delta-video-2-0-fast-260128', true, 14.52],
		];
		for (const [model, ref, unit] of cases) {
			const fee = deltaVideoFee(model, 1_000_000, ref, 1);
			expect(fee.unitPrice).toBe(unit);
			expect(fee.quota).toBe(Math.round(unit * 500000));
		}
		// 50 400 tokens × 11.638 / 1e6 × 1.5 = 0.87983… USD = 439 916 quota units (rounded to whole units)
		expect(deltaVideoFee('delta-video-2-0-mini-260615', 50_400, false, 1.5).quota).toBe(439916);
		expect(() => deltaVideoFee('delta-video-2-0-mini-260615', 100, false, 0)).toThrow(/never 0/);
	});

	it('settles from completion_tokens, else a valid total_tokens, else nothing (manual check)', () => {
		expect(settlementTokens({ usage: { completion_tokens: 100, total_tokens: 120 } })).toBe(100);
		expect(settlementTokens({ usage: { total_tokens: 120 } })).toBe(120);
		expect(settlementTokens({ usage: { completion_tokens: 0, total_tokens: -1 } })).toBeUndefined();
		expect(settlementTokens({ status: 'completed' })).toBeUndefined();
	});
});

describe('GenGateway Pricing node against the simulator', () => {
	let sim: Simulator;
	beforeAll(async () => {
		sim = await startSimulator({ quiet: true, videoLatencyMs: 100 });
	});
	afterAll(async () => {
		await sim.stop();
		cleanupBinaryData();
	});
	const creds = () => ({ apiKey: sim.keys.limited, baseUrl: sim.baseUrl });
	const node = (parameters: Record<string, unknown>) => [{ name: 'Pricing', type: new GenGatewayPricing(), parameters }];

	it('Get Prices: one item per model, without sending the key', async () => {
		sim.setStatus({ quota_display_type: 'CNY', usd_exchange_rate: 7.3 });
		const r = await runWorkflow({ nodes: node({ operation: 'getPrices' }), credentials: creds() });
		expect(r.error).toBeUndefined();
		const items = r.output('Pricing');
		const by = Object.fromEntries(items.map((i) => [i.json.model, i.json]));
		expect(by['alpha-image-2.5']).toMatchObject({ billing: 'per call', group: 'vip', currency: 'CNY', symbol: '¥', price_per_call: 0.2336 });
		expect(by['gamma-reasoner-1']).toMatchObject({ group: null, price_per_call: null });
		expect(by['gamma-video-1.5'].skipped_groups).toEqual(['promo']);
		expect(by['delta-chat-tiered']).toMatchObject({ dynamic_pricing: true, input_per_1m_tokens: null });
		const calls = sim.log.filter((l) => l.path.startsWith('/api/'));
		expect(calls.map((c) => c.auth)).toEqual([false, false]);
		sim.setStatus({});
	});

	it('List My Models: the key\'s models are callable, other catalog models are marked', async () => {
		const r = await runWorkflow({ nodes: node({ operation: 'listModels' }), credentials: creds() });
		const by = Object.fromEntries(r.output('Pricing').map((i) => [i.json.model, i.json]));
		expect(by['alpha-image-2.5'].callable).toBe(true);
		expect(by['alpha-image-2-4k'].callable).toBe(false);
		expect(by['delta-video-2-0-fast-260128'].callable).toBe(false);
	});

	it('Settle Task: fee of a finished delta task equals what the gateway settled; no usage → needs manual check', async () => {
		const demo = { apiKey: sim.keys.demo, baseUrl: sim.baseUrl };
		const { request } = await import('undici');
		const created = await request(`${sim.baseUrl}/v1/videos`, {
			method: 'POST',
			headers: { authorization: `Bearer ${sim.keys.demo}`, 'content-type': 'application/json' },
			body: JSON.stringify({ model: 'delta-video-2-0-mini-260615', prompt: 'a boat', seconds: 5, resolution: '480p', generate_audio: false, watermark: false }),
		});
		const task = (await created.body.json()) as { id: string };
		await new Promise((r) => setTimeout(r, 300));
		const r = await runWorkflow({ nodes: node({ operation: 'settleTask', task: task.id, groupRatio: 1.5 }), credentials: demo });
		const out = r.output('Pricing')[0].json;
		const charged = sim.ledger.filter((l) => l.taskId === task.id).reduce((s, l) => s + l.amount, 0);
		expect(out.status).toBe('settled');
		expect(out.quota).toBe(charged);
		const r2 = await runWorkflow({ nodes: node({ operation: 'settleTask', task: '={{ $json }}', groupRatio: 1 }), input: [{ json: { id: 'x', model: 'delta-video-2-0-mini-260615', status: 'completed' } }], credentials: demo });
		expect(r2.output('Pricing')[0].json.status).toBe('needs_manual_check');
	});

	it('Estimate Video Cost uses the item fields and the spec table', async () => {
		const r = await runWorkflow({ nodes: node({ operation: 'estimateVideoCost', videoModel: 'delta-video-2-0-fast-260128', tokens: 100000, withReferenceVideo: true, groupRatio: 1 }), credentials: creds() });
		expect(r.output('Pricing')[0].json).toMatchObject({ unitPrice: 14.52, quota: 726000 });
	});
});
