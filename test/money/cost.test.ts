/**
 * Issue 25, bullets 1, 3 and 4: the `cost` of every paid item (each basis and status), in ¤ and in the display
 * currency of /api/status by the Pricing node's rules; the execution-wide record in n8n's custom data; Task Wait's
 * settled delta fee. In-process n8n (WorkflowExecute) against the simulator over real HTTP; every figure is checked
 * against what the simulator charged or against the Pricing node.
 */
import { useSimulator } from '../harness/simulator';
import { GenGatewayPricing } from '../../nodes/GenGatewayPricing/GenGatewayPricing.node';
import { cleanupBinaryData, runWorkflow } from '../harness/workflow';
import { model } from '../harness/inputs';
import {
	chat,
	cost,
	creds,
	customData,
	deltaVideo,
	gammaVideo,
	hints,
	image,
	items,
	paidRequests,
	responses,
	taskWait,
} from './support';

const sim = useSimulator({
	quiet: true,
	taskLatencyMs: 100,
	pollAfterMs: 40,
	videoLatencyMs: 150,
	syncLatencyMs: 10,
	seed: 3,
});
afterAll(async () => {
	cleanupBinaryData();
});
beforeEach(() => {
	sim.reset();
	sim.setStatus({});
});

/** the simulator's charge for a request, by the task it created or by its order */
const chargeOf = (taskId: string) =>
	sim.ledger
		.filter((l) => l.taskId === taskId)
		.reduce((n, l) => n + (l.kind === 'refund' ? -l.amount : l.amount), 0);

describe('per call (Image Submit, gamma Video Create)', () => {
	it('no group option: a range from the lowest public group to the highest published one, never called expected; the record counts the highest', async () => {
		const r = await runWorkflow({ nodes: [image()], input: items(2), credentials: creds(sim) });
		expect(r.error).toBeUndefined();
		// alpha-image-2.5: model_price 0.04 × 500000, from vip 0.8 to hd 1.5
		for (const it of r.output('Image')) {
			expect(cost(it.json)).toMatchObject({
				status: 'range',
				basis: 'per call',
				quota_low: 16000,
				quota: 30000,
				amount_low: 0.03,
				amount: 0.06,
				currency: 'USD',
				symbol: '$',
				text: '$0.03–$0.06 (¤16000–¤30000)',
				group_multiplier: null,
				group_multiplier_range: [0.8, 1.5],
				calls: 1,
			});
		}
		// the demo key is in hd: the record is never below the charge
		expect(customData(r)).toMatchObject({
			gengateway_spent: '60000',
			gengateway_spent_text: expect.stringMatching(/^\$0\.12 \(¤60000\) at most/),
		});
		expect(Number(customData(r).gengateway_spent)).toBeGreaterThanOrEqual(
			sim.charged({ key: 'demo' }),
		);
		expect(hints(r, 'Image')).toContainEqual(
			expect.stringMatching(
				/This node: \$0\.06–\$0\.12 \(¤32000–¤60000\) at most .* for 2 call\(s\).*spent \$0\.12 \(¤60000\) at most so far/,
			),
		);
	});

	it("Group Name: the group's public ratio, equal to what the gateway charged the key (group hd)", async () => {
		const r = await runWorkflow({ nodes: [image({ groupName: 'hd' })], credentials: creds(sim) });
		const json = r.output('Image')[0].json;
		expect(cost(json)).toMatchObject({
			status: 'expected',
			quota: 30000,
			group_multiplier: 1.5,
			group_multiplier_source: 'group_name',
			group: 'hd',
		});
		expect(chargeOf(json.task_id as string)).toBe(30000);
	});

	it('Group Multiplier option: that multiplier, equal to the charge', async () => {
		const r = await runWorkflow({ nodes: [image({ groupRatio: 1.5 })], credentials: creds(sim) });
		const json = r.output('Image')[0].json;
		expect(cost(json)).toMatchObject({
			status: 'expected',
			quota: 30000,
			group_multiplier: 1.5,
			group_multiplier_source: 'group_multiplier_option',
		});
		expect(chargeOf(json.task_id as string)).toBe(30000);
	});

	it.each([
		['0', 0],
		['empty', ''],
	])(
		'Group Multiplier added but left %s: a range, never a multiplier of 1 presented as known',
		async (_, v) => {
			const r = await runWorkflow({ nodes: [image({ groupRatio: v })], credentials: creds(sim) });
			expect(cost(r.output('Image')[0].json)).toMatchObject({
				status: 'range',
				quota_low: 16000,
				quota: 30000,
				group_multiplier: null,
				group_multiplier_source: null,
				note: expect.stringMatching(/Group Multiplier option is empty/),
			});
			expect(customData(r)).toMatchObject({ gengateway_spent: '30000' });
		},
	);

	it('a group name the public ratios do not know: a range, saying why', async () => {
		const r = await runWorkflow({
			nodes: [image({ groupName: 'promo' })],
			credentials: creds(sim),
		});
		expect(cost(r.output('Image')[0].json)).toMatchObject({
			status: 'range',
			group: 'promo',
			note: expect.stringMatching(/"promo" has no positive ratio/),
		});
	});

	it('display currency CNY and TOKENS: the same amounts as the Pricing node shows (at the group it shows, vip)', async () => {
		for (const type of ['CNY', 'TOKENS', 'CUSTOM'] as const) {
			sim.setStatus({ quota_display_type: type });
			const r = await runWorkflow({
				nodes: [image({ groupName: 'vip' })],
				credentials: creds(sim),
			});
			const p = await runWorkflow({
				nodes: [
					{
						name: 'Pricing',
						type: new GenGatewayPricing(),
						parameters: { operation: 'getPrices', modelFilter: 'alpha-image-2.5' },
					},
				],
				credentials: creds(sim),
			});
			const row = p.output('Pricing').find((i) => i.json.model === 'alpha-image-2.5')!.json;
			expect([type, cost(r.output('Image')[0].json)]).toEqual([
				type,
				expect.objectContaining({
					amount: row.price_per_call,
					currency: row.currency,
					symbol: row.symbol,
					quota: 16000,
				}),
			]);
		}
	});

	it("the site's published quota_per_unit: per-call costs in its units, equal to the charge", async () => {
		sim.setStatus({ quota_per_unit: 1_000_000 });
		const r = await runWorkflow({ nodes: [image({ groupName: 'hd' })], credentials: creds(sim) });
		const json = r.output('Image')[0].json;
		expect(cost(json)).toMatchObject({
			status: 'expected',
			quota: 60000,
			amount: 0.06,
			currency: 'USD',
		});
		expect(chargeOf(json.task_id as string)).toBe(60000);
	});

	it('n images asked: n calls', async () => {
		const r = await runWorkflow({
			nodes: [image({ groupName: 'hd' }, { n: 2 })],
			credentials: creds(sim),
		});
		expect(cost(r.output('Image')[0].json)).toMatchObject({
			status: 'expected',
			quota: 60000,
			calls: 2,
		});
	});

	it('gamma video: per call; the hint at the same multiplier as the cost', async () => {
		const r = await runWorkflow({
			nodes: [gammaVideo({ groupName: 'hd' })],
			credentials: creds(sim),
		});
		const json = r.output('Video')[0].json;
		expect(cost(json)).toMatchObject({
			status: 'expected',
			basis: 'per call',
			quota: 225000,
			text: '$0.45 (¤225000)',
		});
		expect(chargeOf(json.task_id as string)).toBe(225000);
		expect(hints(r, 'Video')).toContainEqual(
			expect.stringMatching(/^This node: \$0\.45 \(¤225000\) for 1 call\(s\)/),
		);
		const byRatio = await runWorkflow({
			nodes: [gammaVideo({ groupRatio: 2 })],
			credentials: creds(sim),
		});
		expect(cost(byRatio.output('Video')[0].json)).toMatchObject({
			quota: 300000,
			group_multiplier_source: 'group_multiplier_option',
		});
	});

	it('a failed item that reached the gateway carries its cost (it may be billed); one that never left has none', async () => {
		const r = await runWorkflow({
			nodes: [
				image(
					{ waitForResult: true },
					{ size: '={{ $json.size }}' },
					{ onError: 'continueRegularOutput' },
				),
			],
			input: [
				{ json: { p: 'a [fail]', size: '1536x1024' } },
				{ json: { p: 'b', size: '999x999' } },
			],
			credentials: creds(sim),
		});
		const [failed, invalid] = r.output('Image');
		expect(failed.json).toMatchObject({ status: 'failed', failed_at: 'task', submitted: true });
		expect(cost(failed.json)).toMatchObject({ status: 'range', quota: 30000 });
		expect(invalid.json).toMatchObject({
			status: 'failed',
			failed_at: 'validation',
			submitted: false,
		});
		expect(invalid.json.cost).toBeUndefined();
	});

	it('the price list cannot be read: unknown, never 0', async () => {
		sim.fault({ route: 'GET /api/pricing', kind: 'status', status: 503, times: -1 });
		const r = await runWorkflow({ nodes: [image()], credentials: creds(sim) });
		expect(r.error).toBeUndefined();
		expect(cost(r.output('Image')[0].json)).toMatchObject({
			status: 'unknown',
			quota: null,
			amount: null,
			note: expect.stringMatching(/price list could not be read/),
		});
		expect(paidRequests(sim)).toHaveLength(1);
	});
});

describe('per token (Chat, Responses)', () => {
	it.each([
		['Chat', chat],
		['Responses', responses],
	] as const)(
		'%s: the answer usage × the published token prices, equal to the charge with the key group',
		async (name, node) => {
			const r = await runWorkflow({ nodes: [node({ groupName: 'hd' })], credentials: creds(sim) });
			expect(r.error).toBeUndefined();
			const c = cost(r.output(name)[0].json);
			expect(c).toMatchObject({
				status: 'expected',
				basis: 'per token',
				group_multiplier: 1.5,
				prompt_tokens: expect.any(Number),
				completion_tokens: expect.any(Number),
			});
			expect(c.quota).toBeGreaterThan(0);
			expect(c.quota).toBe(paidRequests(sim)[0].amount);
		},
	);

	it('a dynamically priced model: unknown, with no figure', async () => {
		const r = await runWorkflow({
			nodes: [chat({}, { model: model('delta-chat-tiered') })],
			credentials: creds(sim),
		});
		expect(cost(r.output('Chat')[0].json)).toMatchObject({
			status: 'unknown',
			basis: 'per token',
			quota: null,
			note: expect.stringMatching(/dynamic/),
		});
	});

	it('a stream cut after the model ran: the failed item carries cost unknown (no usage), not 0', async () => {
		const r = await runWorkflow({
			nodes: [chat({}, { stream: true }, { onError: 'continueRegularOutput' })],
			input: [{ json: { p: 'cut [cut]' } }],
			credentials: creds(sim),
		});
		const json = r.output('Chat')[0].json;
		expect(json).toMatchObject({ status: 'failed', submitted: true });
		expect(cost(json)).toMatchObject({ status: 'unknown', quota: null, basis: 'per token' });
	});
});

describe('per video token (delta Video Create, Task Wait)', () => {
	it('Video Create: an estimate before completion (never 0); Task Wait settles it at the Group Multiplier, equal to the ledger, replacing the estimate in the record', async () => {
		const r = await runWorkflow({
			nodes: [deltaVideo({ groupRatio: 1.5 }), taskWait({ groupRatio: 1.5 })],
			credentials: creds(sim),
		});
		expect(r.error).toBeUndefined();
		const created = r.output('Video')[0].json;
		expect(cost(created)).toMatchObject({
			status: 'estimate',
			basis: 'per video token',
			video_tokens_estimate: 48600,
		});
		const done = r.output('Wait')[0].json;
		const taskId = done.task_id as string;
		expect(cost(done)).toMatchObject({
			status: 'settled',
			basis: 'per video token',
			group_multiplier: 1.5,
			group_multiplier_source: 'group_multiplier_option',
			video_tokens: expect.any(Number),
		});
		expect(cost(done).quota).toBe(chargeOf(taskId));
		expect((done.fee as Record<string, unknown>).fee_quota).toBe(chargeOf(taskId));
		expect(customData(r).gengateway_spent).toBe(String(chargeOf(taskId)));
		expect(hints(r, 'Wait')).toContainEqual(expect.stringMatching(/settled 1 video/));
	});

	it('a delta video that completes without usage keeps its estimate in the record (never ¤0), and a later capped image counts it', async () => {
		const r = await runWorkflow({
			nodes: [
				deltaVideo({ groupRatio: 1.5 }, { prompt: 'a fox [usage=none]' }),
				taskWait({ groupRatio: 1.5 }),
				image(
					{ groupRatio: 1, maxExpectedSpend: 40000 },
					{},
					{ name: 'Image', onError: 'continueRegularOutput' },
				),
			],
			credentials: creds(sim),
		});
		const created = r.output('Video')[0].json;
		const estimate = cost(created).quota as number;
		expect(estimate).toBeGreaterThan(0);
		const done = r.output('Wait')[0].json;
		expect(done.fee).toMatchObject({ status: 'needs_manual_check' });
		// the image (¤20000 at multiplier 1) fits the ¤40000 cap alone; with the video's estimate kept it does not
		expect(r.output('Image')[0].json).toMatchObject({ submitted: false });
		expect(JSON.stringify(r.output('Image')[0].json)).toMatch(/Max Expected Spend/);
		expect(Number(customData(r).gengateway_spent)).toBe(estimate);
		expect(customData(r).gengateway_spent_text).not.toMatch(/^\$0 |¤0\)/);
	});

	it('Task Wait with Group Name: settled at the public ratio', async () => {
		const r = await runWorkflow({
			nodes: [deltaVideo(), taskWait({ groupName: 'hd' })],
			credentials: creds(sim),
		});
		const done = r.output('Wait')[0].json;
		expect(cost(done)).toMatchObject({ status: 'settled', group_multiplier_source: 'group_name' });
		expect(cost(done).quota).toBe(chargeOf(done.task_id as string));
	});

	it('Task Wait with Group Multiplier added but empty: a range, not settled, and the record counts its highest end (never below the charge)', async () => {
		const r = await runWorkflow({
			nodes: [deltaVideo(), taskWait({ groupRatio: '' })],
			credentials: creds(sim),
		});
		const done = r.output('Wait')[0].json;
		expect(cost(done)).toMatchObject({ status: 'range', group_multiplier: null });
		expect(done.fee).toMatchObject({ status: 'range', group_ratio: null });
		expect(Number(customData(r).gengateway_spent)).toBeGreaterThanOrEqual(
			chargeOf(done.task_id as string),
		);
	});

	it('the same delta task given to Task Wait twice: its queries a round apart, one fee in the record', async () => {
		const created = await runWorkflow({ nodes: [deltaVideo()], credentials: creds(sim) });
		const task = created.output('Video')[0].json;
		sim.log.length = 0;
		const r = await runWorkflow({
			nodes: [taskWait({ groupRatio: 1.5 })],
			input: [{ json: task }, { json: task }],
			credentials: creds(sim),
		});
		const done = r.output('Wait');
		expect(done).toHaveLength(2);
		const charge = chargeOf(task.task_id as string);
		expect(done.map((d) => cost(d.json).quota)).toEqual([charge, charge]);
		expect(customData(r).gengateway_spent).toBe(String(charge));
		const queries = sim.log
			.filter((l) => l.method === 'GET' && l.path === `/v1/videos/${task.task_id}`)
			.map((l) => l.time);
		for (let k = 1; k < queries.length; k++)
			expect(queries[k] - queries[k - 1]).toBeGreaterThan(20);
	});

	it("Task Wait's fee uses the site's published quota_per_unit and display currency (TOKENS: whole ¤), equal to the ledger", async () => {
		sim.setStatus({ quota_display_type: 'TOKENS', quota_per_unit: 1_000_000 });
		const r = await runWorkflow({
			nodes: [deltaVideo(), taskWait({ groupRatio: 1.5 })],
			credentials: creds(sim),
		});
		const done = r.output('Wait')[0].json;
		const fee = done.fee as Record<string, unknown>;
		expect(fee).toMatchObject({
			status: 'settled',
			quota_per_unit: 1_000_000,
			currency: 'quota',
			symbol: '¤',
			fee_display: fee.fee_quota,
		});
		expect(fee.fee_quota).toBe(chargeOf(done.task_id as string));
		expect(cost(done)).toMatchObject({
			currency: 'quota',
			amount: fee.fee_quota,
			quota: fee.fee_quota,
		});
	});
});

describe('the execution-wide record', () => {
	it('two paid nodes add up; an expression reads the running total', async () => {
		const second = image(
			{ groupName: 'hd' },
			{ prompt: '={{ "spent so far " + $execution.customData.get("gengateway_spent") }}' },
			{ name: 'Image 2' },
		);
		const r = await runWorkflow({
			nodes: [image({ groupName: 'hd' }), second],
			input: items(1),
			credentials: creds(sim),
		});
		expect(r.error).toBeUndefined();
		expect(r.output('Image 2')[0].json.prompt).toBe('spent so far 30000');
		expect(customData(r)).toMatchObject({ gengateway_spent: '60000' });
		expect(Object.keys(customData(r)).sort()).toEqual([
			'gengateway_spent',
			'gengateway_spent_text',
		]);
		expect(hints(r, 'Image 2')).toContainEqual(
			expect.stringMatching(/This node: \$0\.06 .* spent \$0\.12 \(¤60000\) so far/),
		);
	});

	it('many paid nodes with long names sharing a prefix: the total stays exact (each node is known by its ID, never by its name)', async () => {
		const names = Array.from(
			{ length: 8 },
			(_, k) => `Generate the hero image for section ${k} of the page`,
		);
		const r = await runWorkflow({
			nodes: names.map((name) => image({ groupName: 'hd' }, {}, { name })),
			input: items(1),
			credentials: creds(sim),
		});
		expect(r.error).toBeUndefined();
		expect(customData(r).gengateway_spent).toBe(String(8 * 30000));
		expect(sim.charged({ key: 'demo' })).toBe(8 * 30000);
		expect(Object.keys(customData(r))).toHaveLength(2);
	});
});
