/**
 * The Pricing node against a tiny local gateway (a real HTTP peer) serving edge-case price and status
 * JSON that the simulator does not: bare status bodies, unusable exchange rates, string ratios, a
 * usable_group array, groups without ratios, models outside the public list.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GenGatewayPricing } from '../../nodes/GenGatewayPricing/GenGatewayPricing.node';
import { cleanupBinaryData, runWorkflow, type RunResult } from '../harness/workflow';

interface Seen {
	path: string;
	auth: string | undefined;
}

let server: Server;
let base: string;
const seen: Seen[] = [];
let pricing: unknown;
let status: unknown;
let models: unknown;

beforeAll(async () => {
	server = createServer((req: IncomingMessage, res) => {
		const path = (req.url ?? '').split('?')[0];
		seen.push({ path, auth: req.headers.authorization });
		const send = (code: number, body: unknown) => {
			res.writeHead(code, { 'content-type': 'application/json' });
			res.end(JSON.stringify(body));
		};
		if (path === '/api/pricing') return send(200, pricing);
		if (path === '/api/status') return send(200, status);
		if (path === '/v1/models')
			return req.headers.authorization === 'Bearer sk-edge'
				? send(200, models)
				: send(401, { error: { message: 'invalid token' } });
		send(404, { error: { message: 'not found' } });
	});
	await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
	base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
	await new Promise((r) => server.close(r));
	cleanupBinaryData();
});
beforeEach(() => {
	seen.length = 0;
	pricing = {
		success: true,
		data: [
			{
				model_name: 'img-public',
				quota_type: 1,
				model_price: 0.05,
				enable_groups: ['internal', 'std', 'cheap'],
			},
			{
				model_name: 'img-internal-only',
				quota_type: 1,
				model_price: 0.01,
				enable_groups: ['internal'],
			},
			{
				model_name: 'img-norate-only',
				quota_type: 1,
				model_price: 0.01,
				enable_groups: ['norate'],
			},
			{
				model_name: 'chat',
				quota_type: 0,
				model_ratio: '0.5',
				completion_ratio: '3',
				enable_groups: ['std', 'norate'],
			},
			{
				model_name: 'tiered',
				quota_type: 0,
				model_ratio: 1,
				billing_mode: 'tiered_expr',
				enable_groups: ['std'],
			},
			{
				model_name: 'delta-video-2-0-fast-260128',
				quota_type: 0,
				model_ratio: 0,
				enable_groups: ['std'],
			},
		],
		usable_group: ['std', 'cheap', 'norate'],
		group_ratio: { std: '1', cheap: 0.9, internal: 0.1 },
	};
	status = { quota_per_unit: 1_000_000, quota_display_type: 'TOKENS' };
	models = {
		object: 'list',
		success: true,
		data: [{ id: 'img-public', owned_by: '' }, { id: 'private-model' }, { id: 'chat' }],
	};
});

const run = async (parameters: Record<string, unknown>): Promise<RunResult> =>
	runWorkflow({
		nodes: [
			{
				name: 'Pricing',
				type: new GenGatewayPricing(),
				parameters,
				onError: 'continueRegularOutput',
			},
		],
		credentials: { apiKey: 'sk-edge', baseUrl: base },
	});
const by = (r: RunResult) =>
	Object.fromEntries(r.output('Pricing').map((i) => [i.json.model as string, i.json]));
const hints = (r: RunResult) =>
	(r.run.data.resultData.runData.Pricing?.[0].hints ?? []).map((h) => h.message).join('\n');

describe('edge-case price data', () => {
	it('bare status, TOKENS with quota_per_unit 1 000 000, string ratios, usable_group as an array', async () => {
		const r = await run({ operation: 'getPrices' });
		expect(r.error).toBeUndefined();
		const p = by(r);
		// cheapest public group is cheap (0.9); internal (0.1) is not public and never used
		expect(p['img-public']).toMatchObject({
			group: 'cheap',
			group_ratio: 0.9,
			currency: 'quota',
			symbol: '¤',
			price_per_call: 45000,
			price_text: '¤45000 / call',
		});
		expect(p['img-internal-only']).toMatchObject({
			priced: false,
			group: null,
			price_per_call: null,
			note: 'no publicly selectable group enables this model',
		});
		expect(p['img-norate-only']).toMatchObject({
			priced: false,
			group: null,
			price_per_call: null,
			skipped_groups: ['norate'],
		});
		expect(String(p['img-norate-only'].note)).toMatch(
			/lacks a group ratio.*norate have no ratio in group_ratio and were skipped \(never treated as 0\)/,
		);
		expect(p.chat).toMatchObject({
			billing: 'per token',
			group: 'std',
			// what the gateway charges: 1M tokens × model_ratio 0.5 × ratio 1 = ¤500000 (issue 41, case 7: the old
			// "model_ratio × 2 USD" assumed ¤500000 per unit and said ¤1000000 here)
			input_per_1m_tokens: 500_000,
			output_per_1m_tokens: 1_500_000,
			skipped_groups: ['norate'],
		});
		expect(p.tiered).toMatchObject({
			dynamic_pricing: true,
			priced: false,
			input_per_1m_tokens: null,
		});
		expect(p['delta-video-2-0-fast-260128']).toMatchObject({
			billing: 'per video token',
			video_per_1m_tokens: 24_420_000,
			video_with_reference_per_1m_tokens: 14_520_000,
		});
		// the gateway's set-up, the same on every run: the rows say it (skipped_groups, note), no execution hint repeats it
		expect(hints(r)).not.toMatch(/norate/);
		expect(seen.map((s) => s.auth)).toEqual([undefined, undefined]);
	});

	it('CNY without a usable exchange rate is shown in USD, with a hint saying why', async () => {
		status = { success: true, data: { quota_display_type: 'CNY', usd_exchange_rate: 'n/a' } };
		const r = await run({ operation: 'getPrices', modelFilter: 'img-public' });
		expect(r.output('Pricing').map((i) => i.json)).toEqual([
			expect.objectContaining({
				model: 'img-public',
				currency: 'USD',
				symbol: '$',
				price_per_call: 0.05,
			}),
		]);
		expect(hints(r)).toMatch(
			/Display currency: the site shows CNY but gives no usable usd_exchange_rate: shown in USD/,
		);
	});

	it('CUSTOM with its own symbol and rate', async () => {
		status = {
			success: true,
			data: {
				quota_display_type: 'CUSTOM',
				custom_currency_symbol: 'pts',
				custom_currency_exchange_rate: 250,
			},
		};
		const r = await run({ operation: 'getPrices', modelFilter: 'chat' });
		expect(by(r).chat).toMatchObject({
			currency: 'custom',
			symbol: 'pts',
			input_per_1m_tokens: 250,
			output_per_1m_tokens: 750,
			price_text: 'pts250.00 / 1M input tokens, pts750.00 / 1M output tokens',
		});
	});

	it('List My Models: a callable model outside the public list is kept and marked', async () => {
		const r = await run({ operation: 'listModels' });
		const p = by(r);
		expect(r.output('Pricing').map((i) => [i.json.model, i.json.callable])).toEqual([
			['img-public', true],
			['private-model', true],
			['chat', true],
			['img-internal-only', false],
			['img-norate-only', false],
			['tiered', false],
			['delta-video-2-0-fast-260128', false],
		]);
		expect(p['private-model']).toMatchObject({
			in_catalog: false,
			note: 'callable with this key but not in the public price list',
		});
		expect(p['img-public']).toMatchObject({ in_catalog: true, price_per_call: 45000 });
		expect(seen.filter((s) => s.path === '/v1/models').map((s) => s.auth)).toEqual([
			'Bearer sk-edge',
		]);
		expect(seen.filter((s) => s.path.startsWith('/api/')).every((s) => s.auth === undefined)).toBe(
			true,
		);
	});

	it('fees follow the site quota_per_unit; a named group without a ratio is refused', async () => {
		const r = await run({
			operation: 'estimateVideoCost',
			videoModel: 'delta-video-2-0-fast-260128',
			tokens: 100000,
			referenceVideo: 'no',
			groupRatio: 1,
			options: { groupName: 'cheap' },
		});
		expect(r.output('Pricing')[0].json).toMatchObject({
			quota_per_unit: 1_000_000,
			group_ratio: 0.9,
			unit_price: 24.42,
			fee_quota: 2_197_800,
			fee_display: 2_197_800,
			currency: 'quota',
		});
		const n = await run({
			operation: 'estimateVideoCost',
			videoModel: 'delta-video-2-0-fast-260128',
			tokens: 100000,
			referenceVideo: 'no',
			groupRatio: 1,
			options: { groupName: 'norate' },
		});
		expect(String(n.output('Pricing')[0].json.error)).toMatch(/"norate" has no usable ratio/);
	});
});
