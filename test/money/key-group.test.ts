/**
 * Issue 41, bullet 5: the key's group set once, in the credential (Key's Group: a name or a multiplier). Every node's
 * cost and cap are then exact without per-node options (Image Submit, Task Wait's settled delta fee, the Chat Model
 * through the shared quote); a node's own Group Name or Group Multiplier still overrides it; Pricing's List My Models
 * shows the prices at it; the credential's test says which group it is set to, and refuses a name the gateway does
 * not publish or a value that is neither a name nor a multiplier.
 */
import { useSimulator } from '../harness/simulator';
import { cleanupBinaryData, runWorkflow } from '../harness/workflow';
import { checkGatewayCredential } from '../../nodes/shared/credentials';
import { GenGatewayPricing } from '../../nodes/GenGatewayPricing/GenGatewayPricing.node';
import { cost, deltaVideo, image, items, paidRequests, taskWait } from './support';

const sim = useSimulator({
	quiet: true,
	taskLatencyMs: 50,
	pollAfterMs: 20,
	videoLatencyMs: 60,
	syncLatencyMs: 10,
	seed: 5,
});
afterAll(() => cleanupBinaryData());
beforeEach(() => {
	sim.reset();
	sim.setStatus({});
});

const withGroup = (keyGroup: string) => ({ apiKey: sim.keys.demo, baseUrl: sim.baseUrl, keyGroup });

describe("the credential's Key's Group", () => {
	it('a group name: every Image Submit cost is one figure at its public ratio, not a range', async () => {
		const r = await runWorkflow({
			nodes: [image()],
			input: items(2),
			credentials: withGroup('vip'),
		});
		expect(r.error).toBeUndefined();
		for (const it of r.output('Image'))
			expect(cost(it.json)).toMatchObject({
				status: 'expected',
				quota: 16000,
				group: 'vip',
				group_multiplier: 0.8,
				note: expect.stringMatching(/Key's Group/),
			});
	});

	it("a multiplier: one figure at it; a node's own Group Name still overrides the credential", async () => {
		const byRatio = await runWorkflow({
			nodes: [image()],
			input: items(1),
			credentials: withGroup(' 1.5 '),
		});
		expect(cost(byRatio.output('Image')[0].json)).toMatchObject({
			status: 'expected',
			quota: 30000,
		});
		const own = await runWorkflow({
			nodes: [image({ groupName: 'vip' })],
			input: items(1),
			credentials: withGroup('hd'),
		});
		expect(cost(own.output('Image')[0].json)).toMatchObject({
			status: 'expected',
			quota: 16000,
			group: 'vip',
		});
	});

	it('the cap is exact with it: ¤20000 lets a vip image (¤16000) through; without it the range counts hd (¤30000) and refuses', async () => {
		const capped = image({ maxExpectedSpend: 20000 }, {}, { onError: 'continueRegularOutput' });
		const withKey = await runWorkflow({
			nodes: [capped],
			input: items(1),
			credentials: withGroup('vip'),
		});
		expect(withKey.output('Image')[0].json.status).not.toBe('failed');
		expect(paidRequests(sim)).toHaveLength(1);
		sim.reset();
		const without = await runWorkflow({
			nodes: [capped],
			input: items(1),
			credentials: { apiKey: sim.keys.demo, baseUrl: sim.baseUrl },
		});
		expect(without.output('Image')[0].json).toMatchObject({
			status: 'failed',
			failed_at: 'budget',
		});
		expect(paidRequests(sim)).toHaveLength(0);
	});

	it("Task Wait settles a delta video at the credential's group: settled, not a range", async () => {
		const r = await runWorkflow({
			nodes: [deltaVideo(), taskWait()],
			credentials: withGroup('hd'),
		});
		expect(r.error).toBeUndefined();
		expect(cost(r.output('Wait')[0].json)).toMatchObject({
			status: 'settled',
			group_multiplier: 1.5,
		});
	});

	it("Pricing's List My Models shows the prices at the key's group", async () => {
		const run = (creds: { apiKey: string; baseUrl: string; keyGroup?: string }) =>
			runWorkflow({
				nodes: [
					{
						name: 'Pricing',
						type: new GenGatewayPricing(),
						parameters: { operation: 'listModels' },
					},
				],
				credentials: creds,
			});
		const row = (r: Awaited<ReturnType<typeof run>>) =>
			r.output('Pricing').find((i) => i.json.model === 'alpha-image-2.5')!.json;
		const lowest = row(await run({ apiKey: sim.keys.demo, baseUrl: sim.baseUrl }));
		const mine = row(await run(withGroup('hd')));
		expect(lowest).toMatchObject({ group: 'vip', group_ratio: 0.8, price_per_call: 0.03 });
		expect(mine).toMatchObject({ group: 'hd', group_ratio: 1.5, price_per_call: 0.06 });
	});

	it("Pricing's Estimate Video Cost uses the credential's group when the node gives none", async () => {
		const estimate = (creds: { apiKey: string; baseUrl: string; keyGroup?: string }) =>
			runWorkflow({
				nodes: [
					{
						name: 'Pricing',
						type: new GenGatewayPricing(),
						parameters: {
							operation: 'estimateVideoCost',
							videoModel: 'delta-video-2-0-fast-260128',
							tokens: 100000,
							referenceVideo: 'no',
						},
					},
				],
				credentials: creds,
			});
		const mine = (await estimate(withGroup('hd'))).output('Pricing')[0].json;
		expect(mine).toMatchObject({ group_ratio: 1.5, fee_basis: 'group_multiplier' });
		const none = (await estimate({ apiKey: sim.keys.demo, baseUrl: sim.baseUrl })).output(
			'Pricing',
		)[0].json;
		expect(none).toMatchObject({ fee_basis: 'at_multiplier_1' });
	});

	it("the credential's test says the group it is set to, and refuses one the gateway does not publish", async () => {
		const base = { apiKey: sim.keys.demo, baseUrl: sim.baseUrl };
		expect(await checkGatewayCredential({ ...base, keyGroup: 'vip' })).toEqual({
			status: 'OK',
			message: expect.stringMatching(/Key's Group: vip, public ratio 0\.8/),
		});
		expect(await checkGatewayCredential(base)).toMatchObject({
			status: 'OK',
			message: expect.stringMatching(/Key's Group is not set/),
		});
		expect(await checkGatewayCredential({ ...base, keyGroup: 'platinum' })).toMatchObject({
			status: 'Error',
			message: expect.stringMatching(/"platinum" has no positive ratio .*groups: .*vip/),
		});
		expect(await checkGatewayCredential({ ...base, keyGroup: '0' })).toMatchObject({
			status: 'Error',
			message: expect.stringMatching(
				/Key's Group must be the key's group name .* or its multiplier above 0/,
			),
		});
	});

	it("a Key's Group that breaks its rule fails the node naming the credential field, before any request", async () => {
		const r = await runWorkflow({
			nodes: [image()],
			input: items(1),
			credentials: withGroup('my group'),
		});
		expect(JSON.stringify(r.run.data.resultData.error ?? r.output('Image'))).toMatch(
			/Key's Group: must be/,
		);
		expect(paidRequests(sim)).toHaveLength(0);
	});
});
