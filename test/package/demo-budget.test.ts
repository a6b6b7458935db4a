/**
 * Issue 35, bullet 7: the demo's budget workflow on any gateway that follows the spec. Its group and cap come from that
 * gateway's price list (examples/budget.json names the simulator's demo group, hd, which another gateway's list need
 * not have: the cap then refused the first batch as unpriced); where the list cannot price the model per call, the
 * workflow is skipped with the reason. The two capped Image Submit nodes of the planned workflow then run in n8n
 * (in-process) against a simulator publishing another gateway's groups: the first batch is paid, the second refused.
 */
import { useSimulator } from '../harness/simulator';
import { budgetForGateway, planBudget } from '../../scripts/demo/budget';
import { loadExample } from '../../scripts/demo/workflows';
import { GenGatewayImageSubmit } from '../../nodes/GenGatewayImageSubmit/GenGatewayImageSubmit.node';
import { parsePricing, readDisplay, type PricingData } from '../../nodes/shared/money/prices';
import { cleanupBinaryData, runWorkflow } from '../harness/workflow';

type Node = { name: string; type: string; parameters: Record<string, unknown> };
type Workflow = { nodes: Node[] };

const sim = useSimulator({ quiet: true, taskLatencyMs: 60, pollAfterMs: 30 });
afterAll(async () => {
	cleanupBinaryData();
});
beforeEach(() => sim.resetPricing());

const example = () =>
	loadExample('budget', {
		outDir: '/tmp/gg-budget-out',
		inputDir: '/tmp/gg-budget-in',
	}) as unknown as Workflow;
const options = (wf: Workflow, node: string) =>
	wf.nodes.find((n) => n.name === node)!.parameters.options as Record<string, unknown>;
const gateway = () => ({ baseUrl: sim.baseUrl, apiKey: sim.keys.demo });
/** another gateway's published groups: no hd (the demo key is still charged in it, unpublished) */
const withoutHd = () =>
	sim.setPricing({
		usable_group: { hd: null },
		group_ratio: { hd: null },
		hidden_group_ratio: { hd: 1.5 },
	});
const pricingOf = async (): Promise<PricingData> =>
	parsePricing(await (await fetch(`${sim.baseUrl}/api/pricing`)).json());

describe('planBudget', () => {
	it("the simulator's own list: the example as it is (hd, ¤100000 between two and four images of ¤30000)", async () => {
		const plan = await budgetForGateway(example(), gateway());
		expect(plan).toMatchObject({ notes: [] });
		if ('skip' in plan) throw new Error(plan.skip);
		for (const node of ['First batch', 'Second batch'])
			expect(options(plan.wf, node)).toMatchObject({ groupName: 'hd', maxExpectedSpend: 100000 });
	});

	it('a gateway whose list has no hd: the cheapest public group enabling the model, and a cap from its price', async () => {
		withoutHd();
		const plan = await budgetForGateway(example(), gateway());
		if ('skip' in plan) throw new Error(plan.skip);
		// alpha-image-2.5: model_price 0.04 × vip 0.8 × 500000 = ¤16000 an image; the cap holds 2 and refuses 4
		for (const node of ['First batch', 'Second batch'])
			expect(options(plan.wf, node)).toMatchObject({ groupName: 'vip', maxExpectedSpend: 48000 });
		expect(plan.notes).toEqual([
			"Group Name vip (ratio 0.8) from the gateway's price list instead of the example's hd",
			'Max Expected Spend ¤48000: alpha-image-2.5 costs ¤16000 an image in vip, so the first batch (2 images) fits and the second does not',
		]);
	});

	it("GATEWAY_DEMO_GROUP names the key's group when the list has a ratio for it", async () => {
		const plan = await budgetForGateway(example(), gateway(), 'default');
		if ('skip' in plan) throw new Error(plan.skip);
		expect(options(plan.wf, 'First batch')).toMatchObject({
			groupName: 'default',
			maxExpectedSpend: 60000,
		});
	});

	it('skipped, saying why, where the list cannot price the model per call or the key cannot call it', async () => {
		const pricing = await pricingOf();
		const display = readDisplay({});
		const perToken: PricingData = {
			...pricing,
			data: pricing.data.map((e) =>
				e.model_name === 'alpha-image-2.5' ? { ...e, quota_type: 0, model_ratio: 1 } : e,
			),
		};
		expect(planBudget(example(), perToken, display, undefined)).toEqual({
			skip: "the gateway's price list gives alpha-image-2.5 no fixed price per call (per token), so a cap cannot be set before the calls",
		});
		expect(
			planBudget(
				example(),
				{ ...pricing, data: pricing.data.filter((e) => e.model_name !== 'alpha-image-2.5') },
				display,
				undefined,
			),
		).toEqual({ skip: "the gateway's price list does not list alpha-image-2.5" });
		expect(planBudget(example(), pricing, display, ['alpha-chat-4o'])).toEqual({
			skip: 'the key cannot call alpha-image-2.5 (GET /v1/models does not list it)',
		});
		expect(planBudget(example(), undefined, display, undefined)).toEqual({
			skip: "the gateway's price list (/api/pricing) could not be read, so no cap for alpha-image-2.5 can be set",
		});
		expect(planBudget(example(), { ...pricing, group_ratio: {} }, display, undefined)).toEqual({
			skip: "the gateway's price list names no group with a positive ratio that enables alpha-image-2.5",
		});
	});
});

it("the planned budget workflow's two capped batches on a gateway without hd: the first is paid, the second refused before any request", async () => {
	withoutHd();
	const plan = await budgetForGateway(example(), gateway());
	if ('skip' in plan) throw new Error(plan.skip);
	const node = (name: string, wait: boolean) => {
		const p = plan.wf.nodes.find((n) => n.name === name)!.parameters;
		return {
			name,
			type: new GenGatewayImageSubmit(),
			parameters: {
				...p,
				prompt: '={{ $json.prompt }}',
				options: { ...(p.options as object), waitForResult: wait },
			},
			...(name === 'Second batch' ? { onError: 'continueRegularOutput' as const } : {}),
		};
	};
	const input = [
		{ json: { prompt: 'a paper boat on a pond' } },
		{ json: { prompt: 'a paper plane over a city' } },
	];
	const r = await runWorkflow({
		nodes: [node('First batch', false), node('Second batch', false)],
		input,
		credentials: { apiKey: sim.keys.demo, baseUrl: sim.baseUrl },
	});
	expect(
		r
			.output('First batch')
			.map((i) => [i.json.status, (i.json.cost as { status: string; quota: number }).quota]),
	).toEqual([
		['submitted', 16000],
		['submitted', 16000],
	]);
	expect(
		r.output('Second batch').map((i) => [i.json.status, i.json.failed_at, i.json.submitted]),
	).toEqual([
		['failed', 'budget', false],
		['failed', 'budget', false],
	]);
	expect(sim.log.filter((l) => l.method === 'POST')).toHaveLength(2);
});
