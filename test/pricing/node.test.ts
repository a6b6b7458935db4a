/** GenGateway Pricing as a node in workflows, against the simulator over real HTTP. */
import type { INodeExecutionData } from 'n8n-workflow';
import { useSimulator } from '../harness/simulator';
import { modelsForGroup, MODELS } from '../../simulator/catalog/models';
import { GenGatewayPricing } from '../../nodes/GenGatewayPricing/GenGatewayPricing.node';
import { GenGatewayTaskWait } from '../../nodes/GenGatewayTaskWait/GenGatewayTaskWait.node';
import { GenGatewayVideoCreate } from '../../nodes/GenGatewayVideoCreate/GenGatewayVideoCreate.node';
import { PRICE_HINT_BUDGET_MS, loadPricing } from '../../nodes/shared/money/lookup';
import { normaliseBaseUrl } from '../../nodes/shared/transport/baseUrl';
import { GatewayTransport } from '../../nodes/shared/transport';
import { cleanupBinaryData, runWorkflow, type RunResult, type TestNode } from '../harness/workflow';

const sim = useSimulator({ quiet: true, videoLatencyMs: 150, seed: 5 });
afterAll(async () => {
	cleanupBinaryData();
});
beforeEach(() => {
	sim.reset();
	sim.setStatus({});
});

type Params = Record<string, unknown>;
const MINI = 'delta-video-2-0-mini-260615';
const creds = (key: 'demo' | 'limited' = 'demo', video = false) => ({
	apiKey: sim.keys[key],
	baseUrl: sim.baseUrl,
	...(video ? { videoBaseUrl: sim.altBaseUrl } : {}),
});
const pricing = (parameters: Params): TestNode => ({
	name: 'Pricing',
	type: new GenGatewayPricing(),
	parameters,
	onError: 'continueRegularOutput',
});
const run = (parameters: Params, key: 'demo' | 'limited' = 'demo', input?: INodeExecutionData[]) =>
	runWorkflow({ nodes: [pricing(parameters)], credentials: creds(key), input });
const byModel = (r: RunResult) =>
	Object.fromEntries(r.output('Pricing').map((i) => [i.json.model as string, i.json]));
const hints = (r: RunResult) =>
	(r.run.data.resultData.runData.Pricing?.[0].hints ?? []).map((h) => h.message);
const ledgerSum = (taskId: string) =>
	sim.ledger.filter((l) => l.taskId === taskId).reduce((s, l) => s + l.amount, 0);
const nonPublic = () => sim.log.filter((l) => !l.path.startsWith('/api/'));

describe('Get Prices', () => {
	it('one item per catalog model, lowest public price, without the key', async () => {
		const r = await run({ operation: 'getPrices' });
		expect(r.error).toBeUndefined();
		const items = r.output('Pricing');
		expect(items).toHaveLength(MODELS.length);
		expect(items.every((i) => i.pairedItem && (i.pairedItem as { item: number }).item === 0)).toBe(
			true,
		);
		const by = byModel(r);
		expect(by['alpha-image-2.5']).toMatchObject({
			billing: 'per call',
			group: 'vip',
			group_ratio: 0.8,
			currency: 'USD',
			symbol: '$',
			price_per_call: 0.03,
		});
		expect(by['alpha-chat-4o']).toMatchObject({
			billing: 'per token',
			input_per_1m_tokens: 2,
			output_per_1m_tokens: 8,
		});
		expect(by['gamma-reasoner-1']).toMatchObject({
			priced: false,
			group: null,
			note: 'no publicly selectable group enables this model',
		});
		expect(by['gamma-video-1.5']).toMatchObject({
			group: 'vip',
			price_per_call: 0.4,
			skipped_groups: ['promo'],
		});
		expect(by['delta-chat-tiered']).toMatchObject({
			dynamic_pricing: true,
			priced: false,
			input_per_1m_tokens: null,
		});
		expect(by[MINI]).toMatchObject({
			billing: 'per video token',
			video_per_1m_tokens: 9.31,
			video_with_reference_per_1m_tokens: 5.67,
		});
		// the gateway's group without a ratio is said on the rows it concerns, not as a hint on every run
		expect(by['gamma-video-1.5'].note).toMatch(
			/promo have no ratio in group_ratio and were skipped/,
		);
		expect(hints(r).join('\n')).not.toMatch(/promo/);
		expect(sim.log.map((l) => [l.path, l.auth]).sort()).toEqual([
			['/api/pricing', false],
			['/api/status', false],
		]);
	});

	it.each([
		['USD', {}, { currency: 'USD', symbol: '$', price_per_call: 0.03 }],
		[
			'CNY',
			{ quota_display_type: 'CNY', usd_exchange_rate: 7.3 },
			{ currency: 'CNY', symbol: '¥', price_per_call: 0.23 },
		],
		[
			'TOKENS',
			{ quota_display_type: 'TOKENS' },
			{ currency: 'quota', symbol: '¤', price_per_call: 16000 },
		],
		[
			'CUSTOM',
			{
				quota_display_type: 'CUSTOM',
				custom_currency_symbol: '◎',
				custom_currency_exchange_rate: 10,
			},
			{ currency: 'custom', symbol: '◎', price_per_call: 0.32 },
		],
	] as const)('display type %s from /api/status', async (_t, status, expected) => {
		sim.setStatus(status);
		const by = byModel(await run({ operation: 'getPrices' }));
		expect(by['alpha-image-2.5']).toMatchObject(expected);
	});

	it('TOKENS display of a price equals what the gateway charges a key of that group', async () => {
		sim.setStatus({ quota_display_type: 'TOKENS' });
		const by = byModel(await run({ operation: 'getPrices', modelFilter: '-4k' }));
		expect(Object.keys(by).sort()).toEqual([
			'alpha-image-2-4k',
			'beta-3-pro-image-preview-4k',
			'beta-3.1-flash-image-preview-4k',
		]);
		// alpha-image-2-4k is enabled only in hd: its lowest public price is the hd price the demo key (hd) pays
		const { request } = await import('undici');
		const res = await request(`${sim.baseUrl}/v1/images/generations/async`, {
			method: 'POST',
			headers: { authorization: `Bearer ${sim.keys.demo}`, 'content-type': 'application/json' },
			body: JSON.stringify({
				model: 'alpha-image-2-4k',
				prompt: 'a lighthouse',
				size: '2880x2880',
				n: 1,
			}),
		});
		const task = (await res.body.json()) as { task_id: string };
		expect(by['alpha-image-2-4k'].price_per_call).toBe(ledgerSum(task.task_id));
		expect(by['alpha-image-2-4k'].price_per_call).toBe(90000);
	});

	it('a failing price list fails the item with the gateway status (continueOnFail keeps it)', async () => {
		sim.fault({ route: 'GET /api/pricing', kind: 'status', status: 404, times: -1 });
		const r = await run({ operation: 'getPrices' });
		const items = r.output('Pricing');
		expect(items).toHaveLength(1);
		expect(String(items[0].json.error)).toMatch(/404/);
	});
});

describe('List My Models', () => {
	it("the key's models are callable and priced; catalog models it cannot call are marked", async () => {
		const r = await run({ operation: 'listModels' }, 'limited');
		expect(r.error).toBeUndefined();
		const items = r.output('Pricing');
		const callable = items.filter((i) => i.json.callable === true).map((i) => i.json.model);
		expect(callable).toEqual(modelsForGroup('default').map((m) => m.id));
		const notCallable = items
			.filter((i) => i.json.callable === false)
			.map((i) => i.json.model as string);
		expect(notCallable.sort()).toEqual(
			MODELS.filter((m) => !m.groups.includes('default'))
				.map((m) => m.id)
				.sort(),
		);
		const by = byModel(r);
		expect(by['alpha-image-2.5']).toMatchObject({
			callable: true,
			in_catalog: true,
			price_per_call: 0.03,
			model_id: 'alpha-image-2.5',
		});
		expect(by['alpha-image-2-4k']).toMatchObject({ callable: false, price_per_call: 0.18 });
		expect(String(by['alpha-image-2-4k'].note)).toMatch(/not callable with this key/);
		expect(by['delta-video-2-0-fast-260128'].callable).toBe(false);
		const models = sim.log.filter((l) => l.path === '/v1/models');
		expect(models).toHaveLength(1);
		expect(models[0]).toMatchObject({ auth: true, keyName: 'limited' });
		expect(sim.log.filter((l) => l.path.startsWith('/api/')).every((l) => !l.auth)).toBe(true);
	});

	it('only callable models when asked; a model outside the public list stays callable', async () => {
		const r = await run({ operation: 'listModels', includeOthers: false }, 'demo');
		const by = byModel(r);
		expect(Object.values(by).every((j) => j.callable === true)).toBe(true);
		expect(by['gamma-reasoner-1']).toBeUndefined();
		expect(by['alpha-image-2-4k']).toMatchObject({ callable: true, price_per_call: 0.18 });
	});

	it('without a readable price list the models are still listed, with a hint', async () => {
		sim.fault({ route: 'GET /api/pricing', kind: 'status', status: 404, times: -1 });
		const r = await run({ operation: 'listModels' }, 'limited');
		const items = r.output('Pricing');
		expect(items.map((i) => i.json.model)).toEqual(modelsForGroup('default').map((m) => m.id));
		expect(items.every((i) => i.json.callable === true && i.json.in_catalog === null)).toBe(true);
		expect(hints(r).join('\n')).toMatch(/could not be read.*without prices/);
	});
});

describe('delta-video fees against the gateway ledger', () => {
	const create = (p: Params = {}): TestNode => ({
		name: 'Create',
		type: new GenGatewayVideoCreate(),
		parameters: {
			family: 'delta',
			model: { __rl: true, mode: 'id', value: MINI },
			prompt: 'a paper boat on a river',
			seconds: 5,
			resolution: '480p',
			ratio: '16:9',
			generateAudio: false,
			watermark: false,
			...p,
		},
	});
	const wait = (): TestNode => ({
		name: 'Wait',
		type: new GenGatewayTaskWait(),
		parameters: {
			taskId: '={{ $json.task_id }}',
			taskKind: 'auto',
			options: { videoIntervalMs: 60, download: false, groupRatio: 1.5 },
		},
	});

	it('Video Create → Task Wait → Settle Task: the fee equals reserve + settlement in the ledger', async () => {
		const r = await runWorkflow({
			nodes: [
				create({ referenceVideos: 'https://media.example/ref.mp4' }),
				wait(),
				pricing({
					operation: 'settleTask',
					taskSource: 'json',
					task: '={{ $json }}',
					referenceVideo: 'yes',
					groupRatio: 1.5,
				}),
			],
			credentials: creds('demo'),
		});
		expect(r.error).toBeUndefined();
		const out = r.output('Pricing')[0].json;
		const taskId = String(r.output('Create')[0].json.task_id);
		expect(out).toMatchObject({
			status: 'settled',
			task_id: taskId,
			model: MINI,
			with_reference_video: true,
			reference_video_source: 'option',
			unit_price: 7.084,
			group_ratio: 1.5,
			token_source: 'usage.completionTokens',
			currency: 'USD',
			fetched: false,
		});
		expect(out.fee_quota).toBe(ledgerSum(taskId));
		// shown as USD shows it (cents, half up), from the exact ¤
		expect(out.fee_display).toBe(Math.round((out.fee_quota as number) / 5000) / 100);
		expect(sim.log.filter((l) => l.path.startsWith('/api/')).every((l) => !l.auth)).toBe(true);
	});

	it('the reference video detected from the Video Create item (image and audio references are not one)', async () => {
		const merged =
			"={{ Object.assign({}, $json, { with_reference_video: $('Create').item.json.with_reference_video }) }}";
		for (const [refs, unit] of [
			[{ referenceVideos: 'https://media.example/ref.mp4' }, 7.084],
			[
				{
					referenceImages: 'https://media.example/a.png',
					referenceAudios: 'https://media.example/a.mp3',
				},
				11.638,
			],
		] as const) {
			const r = await runWorkflow({
				nodes: [
					create(refs),
					wait(),
					pricing({
						operation: 'settleTask',
						task: merged,
						referenceVideo: 'detect',
						groupRatio: 1.5,
					}),
				],
				credentials: creds('demo'),
			});
			const out = r.output('Pricing')[0].json;
			expect(out).toMatchObject({
				status: 'settled',
				unit_price: unit,
				reference_video_source: 'with_reference_video',
			});
			expect(out.fee_quota).toBe(ledgerSum(String(out.task_id)));
		}
	});

	it('Settle Task by ID on the video origin, with the key; Estimate gives the same fee for the same tokens', async () => {
		const c = await runWorkflow({ nodes: [create(), wait()], credentials: creds('demo', true) });
		const taskId = String(c.output('Create')[0].json.task_id);
		const tokens = (sim.state.tasks.get(taskId) as unknown as { tokens: number }).tokens;
		expect(tokens).toBeGreaterThan(0);
		sim.setStatus({ quota_display_type: 'TOKENS' });
		const before = sim.log.length;
		const r = await runWorkflow({
			nodes: [
				pricing({
					operation: 'settleTask',
					taskSource: 'id',
					taskId,
					origin: 'video',
					referenceVideo: 'no',
					groupRatio: 1,
					options: { groupName: 'hd' },
				}),
			],
			credentials: creds('demo', true),
		});
		const out = r.output('Pricing')[0].json;
		expect(out).toMatchObject({
			status: 'settled',
			task_id: taskId,
			fetched: true,
			tokens,
			group_ratio: 1.5,
			group_ratio_source: 'group_ratio.hd',
			currency: 'quota',
			symbol: '¤',
		});
		expect(out.fee_quota).toBe(ledgerSum(taskId));
		expect(out.fee_display).toBe(out.fee_quota);
		const query = sim.log.slice(before).filter((l) => l.path === `/v1/videos/${taskId}`);
		expect(query).toHaveLength(1);
		expect(query[0]).toMatchObject({ server: 'alt', auth: true, keyName: 'demo' });

		const e = await run({
			operation: 'estimateVideoCost',
			videoModel: MINI,
			tokens,
			referenceVideo: 'no',
			groupRatio: 1.5,
		});
		expect(e.output('Pricing')[0].json).toMatchObject({
			fee_quota: out.fee_quota,
			unit_price: 11.638,
			currency: 'quota',
		});
	});

	it('a failed task is refunded (ledger sums to 0); a task that has not finished is not settled', async () => {
		const r = await runWorkflow({
			nodes: [create({ prompt: 'a boat [fail]' }), wait()],
			credentials: creds('demo'),
		});
		const taskId = String(r.output('Create')[0].json.task_id);
		const failed = r.output('Wait', 1)[0].json;
		const s = await run(
			{ operation: 'settleTask', task: JSON.stringify(failed), groupRatio: 1.5 },
			'demo',
		);
		expect(s.output('Pricing')[0].json).toMatchObject({ status: 'refunded', fee_quota: 0 });
		expect(ledgerSum(taskId)).toBe(0);

		const c = await runWorkflow({
			nodes: [
				create(),
				pricing({ operation: 'settleTask', task: '={{ $json }}', groupRatio: 1.5 }),
			],
			credentials: creds('demo'),
		});
		expect(c.output('Pricing')[0].json).toMatchObject({ status: 'not_finished', fee_quota: null });
	});

	it('no trusted usage → needs manual check (never free)', async () => {
		const input = [
			{ json: { id: 'vid_x', model: MINI, status: 'completed' } },
			{
				json: {
					id: 'vid_y',
					model: MINI,
					status: 'completed',
					usage: { completion_tokens: 0, total_tokens: 0 },
				},
			},
		];
		const r = await run(
			{ operation: 'settleTask', task: '={{ $json }}', groupRatio: 1 },
			'demo',
			input,
		);
		const out = r.output('Pricing');
		expect(out.map((i) => [i.json.task_id, i.json.status, i.json.fee_quota])).toEqual([
			['vid_x', 'needs_manual_check', null],
			['vid_y', 'needs_manual_check', null],
		]);
		expect(nonPublic()).toHaveLength(0);
	});
});

describe('Estimate Video Cost', () => {
	it('the spec table per item; reference video from a parameter or detected in a create body', async () => {
		const input = [
			{
				json: {
					tokens: 100000,
					body: {
						model: MINI,
						metadata: {
							content: [
								{
									type: 'video_url',
									video_url: { url: 'https://m/v.mp4' },
									role: 'reference_video',
								},
							],
						},
					},
				},
			},
			{
				json: {
					tokens: 100000,
					body: {
						model: MINI,
						metadata: {
							content: [
								{
									type: 'audio_url',
									audio_url: { url: 'https://m/a.mp3' },
									role: 'reference_audio',
								},
							],
						},
					},
				},
			},
		];
		const r = await run(
			{
				operation: 'estimateVideoCost',
				videoModel: 'delta-video-2-0-fast-260128',
				tokens: '={{ $json.tokens }}',
				referenceVideo: 'detect',
				referenceJson: '={{ $json.body }}',
				groupRatio: 1,
			},
			'demo',
			input,
		);
		const out = r.output('Pricing').map((i) => i.json);
		expect(out[0]).toMatchObject({
			with_reference_video: true,
			reference_video_source: 'metadata.content',
			unit_price: 14.52,
			fee_quota: 726000,
			fee_base: 1.452,
			fee_display: 1.45,
			currency: 'USD',
			quota_per_unit: 500000,
		});
		expect(out[1]).toMatchObject({
			with_reference_video: false,
			unit_price: 24.42,
			fee_quota: 1221000,
		});
		expect(r.output('Pricing').map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
		const fixed = await run({
			operation: 'estimateVideoCost',
			videoModel: MINI,
			tokens: 50400,
			referenceVideo: 'yes',
			groupRatio: 0.8,
		});
		expect(fixed.output('Pricing')[0].json).toMatchObject({ unit_price: 7.084, fee_quota: 142813 });
		sim.setStatus({ quota_display_type: 'CNY', usd_exchange_rate: 7.3 });
		const cny = await run({
			operation: 'estimateVideoCost',
			videoModel: MINI,
			tokens: 1000000,
			referenceVideo: 'no',
			groupRatio: 1,
		});
		expect(cny.output('Pricing')[0].json).toMatchObject({
			fee_quota: 5819000,
			fee_display: 84.96,
			currency: 'CNY',
			symbol: '¥',
		});
	});

	it('refuses bad input before any keyed request; a named group without a ratio is never 0', async () => {
		const bad = await run({
			operation: 'estimateVideoCost',
			videoModel: MINI,
			tokens: -5,
			referenceVideo: 'detect',
			referenceJson: '={{ {} }}',
			groupRatio: 1,
		});
		expect(String(bad.output('Pricing')[0].json.error)).toMatch(
			/2 problems: Video Tokens: must be a number of 0 or more \(got -5\); Request or Task JSON: tells nothing about references/,
		);
		const promo = await run({
			operation: 'estimateVideoCost',
			videoModel: MINI,
			tokens: 10,
			referenceVideo: 'no',
			groupRatio: 1,
			options: { groupName: 'promo' },
		});
		expect(String(promo.output('Pricing')[0].json.error)).toMatch(
			/Group: "promo" has no usable ratio in the public group_ratio \(an unknown multiplier is never treated as 0\)/,
		);
		const negative = await run({ operation: 'settleTask', task: '={{ $json }}', groupRatio: -1.5 });
		expect(String(negative.output('Pricing')[0].json.error)).toMatch(
			/Group Multiplier: must be a positive number, or 0 when not known/,
		);
		const badId = await run({
			operation: 'settleTask',
			taskSource: 'id',
			taskId: '../etc',
			groupRatio: 1,
		});
		expect(String(badId.output('Pricing')[0].json.error)).toMatch(
			/Task ID: must be 1 to 200 characters/,
		);
		expect(nonPublic()).toHaveLength(0);
	});

	it('works without /api/status (default quota_per_unit, said in the note)', async () => {
		sim.fault({ route: 'GET /api/status', kind: 'status', status: 404, times: -1 });
		const r = await run({
			operation: 'estimateVideoCost',
			videoModel: MINI,
			tokens: 1000000,
			referenceVideo: 'no',
			groupRatio: 1,
		});
		const out = r.output('Pricing')[0].json;
		expect(out).toMatchObject({ fee_quota: 5819000, currency: 'USD', quota_per_unit: 500000 });
		expect(String(out.note)).toMatch(/\/api\/status could not be read/);
	});
});

describe('loadPricing: the one price look-up of the paid nodes (cost, cap, hints)', () => {
	const transport = () =>
		new GatewayTransport({
			apiKey: sim.keys.demo,
			base: normaliseBaseUrl(sim.baseUrl, 'Base URL'),
		});

	it('fetches the price list and status once per transport (execution), without the key', async () => {
		const t = transport();
		const first = await loadPricing(t, { budgetMs: PRICE_HINT_BUDGET_MS });
		expect(first.pricing.data.some((e) => e.model_name === 'alpha-image-2.5')).toBe(true);
		expect(first.display.quotaPerUnit).toBeGreaterThan(0);
		await loadPricing(t, { budgetMs: PRICE_HINT_BUDGET_MS });
		expect(sim.log.map((l) => [l.path, l.auth]).sort()).toEqual([
			['/api/pricing', false],
			['/api/status', false],
		]);
		await loadPricing(transport(), { budgetMs: PRICE_HINT_BUDGET_MS });
		expect(sim.log).toHaveLength(4);
	});

	it('an unreachable list fails once per execution: one look-up, not one per item', async () => {
		sim.reset();
		sim.fault({ route: 'GET /api/pricing', kind: 'status', status: 404, times: -1 });
		const t = transport();
		await expect(loadPricing(t, { budgetMs: PRICE_HINT_BUDGET_MS })).rejects.toThrow();
		await expect(loadPricing(t, { budgetMs: PRICE_HINT_BUDGET_MS })).rejects.toThrow();
		expect(sim.log.filter((l) => l.path === '/api/pricing')).toHaveLength(1);
	});
});
