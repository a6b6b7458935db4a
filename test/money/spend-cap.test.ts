/**
 * Issue 25, bullet 2: Max Expected Spend refuses before spending. In-process n8n against the simulator: the cap at,
 * just under and just over the limit; across two paid nodes of one workflow (the second refuses when the first spent
 * the budget); under each error setting, with Retry On Fail; unpriced models; and the simulator's ledger showing no
 * paid request whenever the cap refuses.
 */
import {
	NodeConnectionTypes,
	type IConnections,
	type IExecuteFunctions,
	type INodeType,
	type INodeTypeDescription,
	type IWorkflowExecutionCustomData,
} from 'n8n-workflow';
import { useSimulator } from '../harness/simulator';
import { cleanupBinaryData, runWorkflow, type RunResult, type TestNode } from '../harness/workflow';
import {
	chat,
	cost,
	creds,
	customData,
	deltaVideo,
	hints,
	image,
	items,
	paidRequests,
	posts,
	responses,
} from './support';

const sim = useSimulator({
	quiet: true,
	taskLatencyMs: 100,
	pollAfterMs: 40,
	videoLatencyMs: 150,
	syncLatencyMs: 10,
	seed: 4,
});
afterAll(async () => {
	cleanupBinaryData();
});
beforeEach(() => {
	sim.reset();
	sim.setStatus({});
});

type Setting = NonNullable<TestNode['onError']>;
const SETTINGS: Setting[] = ['stopWorkflow', 'continueRegularOutput', 'continueErrorOutput'];
const runError = (r: RunResult) =>
	r.run.data.resultData.error as { message: string; description?: string } | undefined;

/** The node refused under its error setting: the run fails (Stop Workflow) or every item is a budget failure that sent nothing. */
function expectRefused(r: RunResult, node: string, onError: Setting, n: number) {
	if (onError === 'stopWorkflow') {
		expect(runError(r)?.message).toMatch(
			/^Max Expected Spend \$[\d.]+ \(¤\d+\) refused the batch before any paid request/,
		);
		return;
	}
	expect(r.error).toBeUndefined();
	const failed =
		onError === 'continueErrorOutput'
			? r.output(node, 1).map((i) => i.json.error as Record<string, unknown>)
			: r.output(node);
	expect(failed).toHaveLength(n);
	if (onError === 'continueErrorOutput') expect(r.output(node, 0)).toHaveLength(0);
	for (const f of failed) {
		const json =
			onError === 'continueErrorOutput' ? f : (f as { json: Record<string, unknown> }).json;
		expect(json).toMatchObject({ status: 'failed', failed_at: 'budget', submitted: false });
		if (onError === 'continueRegularOutput')
			expect(json).toMatchObject({
				error_message: expect.stringMatching(/^Max Expected Spend/),
				prompt: expect.any(String),
			});
		else expect(json.message).toMatch(/^Max Expected Spend/);
		expect(json.cost).toBeUndefined();
	}
}

// the demo key is in group hd (1.5): alpha-image-2.5 is model_price 0.04 × 1.5 × 500000 = ¤30000 an image
const HD = { groupName: 'hd' };

describe('one node: at, just under and just over the limit (2 images × ¤30000 = ¤60000)', () => {
	it.each([
		['at the limit (¤60000)', 60000],
		['just over the expected total (¤60001)', 60001],
	])('cap %s: sent, each item once', async (_, cap) => {
		const r = await runWorkflow({
			nodes: [image({ ...HD, maxExpectedSpend: cap })],
			input: items(2),
			credentials: creds(sim),
		});
		expect(r.error).toBeUndefined();
		expect(paidRequests(sim)).toHaveLength(2);
		expect(customData(r).gengateway_spent).toBe('60000');
		expect(sim.charged({ key: 'demo' })).toBe(60000);
	});

	it('cap just under (¤59999), Stop Workflow: the node fails naming the cap, the price, the spent-so-far and the per-item price; nothing is sent', async () => {
		const r = await runWorkflow({
			nodes: [image({ ...HD, maxExpectedSpend: 59999 })],
			input: items(2),
			credentials: creds(sim),
		});
		const e = runError(r)!;
		expect(e.message).toBe(
			'Max Expected Spend $0.12 (¤59999) refused the batch before any paid request: the price of $0.12 (¤60000) + spent so far $0.00 (¤0) = $0.12 (¤60000) is over the cap',
		);
		expect(e.description).toMatch(
			/^Nothing was sent to the gateway\. Price: alpha-image-2\.5: \$0\.06 \(¤30000\) per item\./,
		);
		expect(posts(sim)).toHaveLength(0);
		expect(paidRequests(sim)).toHaveLength(0);
	});

	describe.each(SETTINGS)('cap just under, %s, with Retry On Fail (3 tries)', (onError) => {
		it('every item refused with failed_at budget and submitted false, keeping its prompt; zero paid requests at the simulator', async () => {
			const r = await runWorkflow({
				nodes: [
					image(
						{ ...HD, maxExpectedSpend: 59999 },
						{},
						{ onError, retryOnFail: true, maxTries: 3, waitBetweenTries: 0 },
					),
				],
				input: items(2),
				credentials: creds(sim),
			});
			expectRefused(r, 'Image', onError, 2);
			expect(posts(sim)).toHaveLength(0);
			expect(paidRequests(sim)).toHaveLength(0);
			expect(customData(r).gengateway_spent).toBeUndefined();
		});
	});

	it('the 429 refusals of an item do not count twice (they created nothing): at the limit, both items go and the record says ¤60000', async () => {
		sim.fault({
			route: 'POST /v1/images/generations/async',
			kind: 'rate-limit',
			retryAfter: 0,
			times: 2,
		});
		const r = await runWorkflow({
			nodes: [image({ ...HD, maxExpectedSpend: 60000 })],
			input: items(2),
			credentials: creds(sim),
		});
		expect(r.error).toBeUndefined();
		expect(posts(sim).length).toBeGreaterThan(2);
		expect(paidRequests(sim)).toHaveLength(2);
		expect(customData(r).gengateway_spent).toBe('60000');
	});

	it('the price list cannot be read: every item counts as unpriced, so the cap refuses (fail closed) unless Allow Unpriced Models is on', async () => {
		sim.fault({ route: 'GET /api/pricing', kind: 'status', status: 503, times: -1 });
		const refused = await runWorkflow({
			nodes: [image({ maxExpectedSpend: 1_000_000 })],
			credentials: creds(sim),
		});
		expect(runError(refused)?.message).toMatch(/1 call\(s\) have no price before they are sent/);
		expect(runError(refused)?.description).toMatch(/price list could not be read/);
		expect(posts(sim)).toHaveLength(0);
		const allowed = await runWorkflow({
			nodes: [image({ maxExpectedSpend: 1_000_000, allowUnpriced: true })],
			credentials: creds(sim),
		});
		expect(allowed.error).toBeUndefined();
		expect(paidRequests(sim)).toHaveLength(1);
		expect(cost(allowed.output('Image')[0].json)).toMatchObject({ status: 'unknown', quota: null });
	});

	it.each([
		[
			{ maxExpectedSpend: -5 },
			/^Max Expected Spend \(¤ Quota Units\): must be a positive number of ¤/,
		],
		[
			{ maxSpend: 'lots' },
			/^Max Expected Spend: must be a positive amount in the display currency/,
		],
	])(
		'a bad cap %j is refused naming the field and its rule before any request',
		async (options, message) => {
			const r = await runWorkflow({ nodes: [image(options)], credentials: creds(sim) });
			expect(r.error).toMatch(message);
			expect(sim.log).toHaveLength(0);
		},
	);
});

describe('the cap in the display currency (as the Pricing node shows it), ¤ still accepted', () => {
	it.each([
		['$0.05 refuses one ¤30000 image', '0.05', false],
		['$0.06 lets it through', '0.06', true],
		['¤30000 lets it through', '¤30000', true],
		['¤29999 refuses it', '29999 ¤', false],
	])('%s', async (_, maxSpend, sent) => {
		const r = await runWorkflow({ nodes: [image({ ...HD, maxSpend })], credentials: creds(sim) });
		expect(paidRequests(sim)).toHaveLength(sent ? 1 : 0);
		if (!sent)
			expect(runError(r)?.message).toMatch(/^Max Expected Spend \$0\.0[56]\d* \(¤\d+\) refused/);
	});

	it("CNY: the cap is read at the site's exchange rate (¥1 = ¤500000 / 7.3)", async () => {
		sim.setStatus({ quota_display_type: 'CNY', usd_exchange_rate: 7.3 });
		// ¥0.43 = ¤29452 < ¤30000: refused; ¥0.44 = ¤30136: sent
		const refused = await runWorkflow({
			nodes: [image({ ...HD, maxSpend: '0.43' })],
			credentials: creds(sim),
		});
		expect(runError(refused)?.message).toMatch(/^Max Expected Spend ¥0\.4\d* \(¤29452\) refused/);
		await runWorkflow({ nodes: [image({ ...HD, maxSpend: '0.44' })], credentials: creds(sim) });
		expect(paidRequests(sim)).toHaveLength(1);
		sim.setStatus({});
	});
});

describe('two paid nodes in one workflow: the second refuses when the first spent the budget', () => {
	const first = () => image(HD, {}, { name: 'First' });
	const second = (cap: number, extra: Partial<TestNode> = {}) =>
		image({ ...HD, maxExpectedSpend: cap }, {}, { name: 'Second', ...extra });

	it('two items through both: the first spent ¤60000; the second (¤60000 expected) fits a cap of ¤120000 exactly', async () => {
		const r = await runWorkflow({
			nodes: [first(), second(120000)],
			input: items(2),
			credentials: creds(sim),
		});
		expect(r.error).toBeUndefined();
		expect(paidRequests(sim)).toHaveLength(4);
		expect(customData(r).gengateway_spent).toBe('120000');
	});

	describe.each(SETTINGS)('the second node with %s and Retry On Fail', (onError) => {
		it('one item each; a cap of ¤45000: the second refuses: the message counts what the first spent; the ledger holds the first node only', async () => {
			const r = await runWorkflow({
				nodes: [
					first(),
					second(45000, { onError, retryOnFail: true, maxTries: 2, waitBetweenTries: 0 }),
				],
				input: items(1),
				credentials: creds(sim),
			});
			expectRefused(r, 'Second', onError, 1);
			if (onError === 'stopWorkflow')
				expect(runError(r)!.message).toMatch(
					/the price of \$0\.06 \(¤30000\) \+ spent so far \$0\.06 \(¤30000\) = \$0\.12 \(¤60000\) is over the cap/,
				);
			else expect(JSON.stringify(r.outputs('Second'))).toContain('spent so far $0.06 (¤30000)');
			expect(paidRequests(sim)).toHaveLength(1);
			expect(posts(sim)).toHaveLength(1);
			expect(customData(r).gengateway_spent).toBe('30000');
		});
	});

	it("two nodes whose names share their first 40 characters are two places: the second counts the first one's spend", async () => {
		const a = image(
			{ groupRatio: 0.8 },
			{},
			{ name: 'GenGateway Image Submit - product catalogue hero' },
		);
		const b = image(
			{ groupRatio: 0.8, maxExpectedSpend: 20000 },
			{},
			{
				name: 'GenGateway Image Submit - product catalogue thumbnails',
				onError: 'continueRegularOutput',
			},
		);
		const r = await runWorkflow({ nodes: [a, b], credentials: creds(sim) });
		// ¤16000 spent by the first + ¤16000 for the second is over ¤20000
		expect(
			r.output('GenGateway Image Submit - product catalogue thumbnails')[0].json,
		).toMatchObject({ status: 'failed', failed_at: 'budget' });
		expect(paidRequests(sim)).toHaveLength(1);
		expect(customData(r).gengateway_spent).toBe('16000');
	});
});

describe("every item's money options, checked before any request; the batch held to the strictest cap", () => {
	const perItem = (caps: Array<string | number>, extra: Record<string, unknown> = {}) => ({
		nodes: [
			image(
				{ ...HD, maxExpectedSpend: '={{ $json.cap }}', ...extra },
				{},
				{ onError: 'continueRegularOutput' as const },
			),
		],
		input: caps.map((cap, i) => ({ json: { p: `item ${i}`, cap } })),
		credentials: creds(sim),
	});

	it('a bad cap on item 2 refuses the whole batch, naming the item and the field; nothing is sent', async () => {
		const r = await runWorkflow(perItem([1_000_000, 1_000_000, 'lots']));
		expect(posts(sim)).toHaveLength(0);
		for (const it of r.output('Image'))
			expect(it.json).toMatchObject({
				status: 'failed',
				failed_at: 'validation',
				error_message: expect.stringMatching(
					/Max Expected Spend \(¤ Quota Units\): must be a positive number/,
				),
			});
		expect(String(r.output('Image')[0].json.error_message)).toMatch(/^item 2: /);
	});

	it('an empty cap on item 1 does not switch off the ¤100 cap of items 2–4: all four refused', async () => {
		const r = await runWorkflow(perItem(['', 100, 100, 100]));
		expect(posts(sim)).toHaveLength(0);
		expect(r.output('Image').map((i) => i.json.failed_at)).toEqual([
			'budget',
			'budget',
			'budget',
			'budget',
		]);
	});
});

describe('a cap that holds for any group the price list describes', () => {
	it('without Group Name or Multiplier each image counts at the highest published ratio (hd 1.5), not the cheapest (vip 0.8): two images do not pass ¤32000', async () => {
		const r = await runWorkflow({
			nodes: [image({ maxExpectedSpend: 32000 })],
			input: items(2),
			credentials: creds(sim),
		});
		expect(runError(r)?.message).toMatch(/the price of \$0\.12 \(¤60000\)/);
		expect(runError(r)?.description).toMatch(
			/range: multiplier not known; the cap counts the highest/,
		);
		expect(posts(sim)).toHaveLength(0);
		// and what it lets through is never charged above it
		const ok = await runWorkflow({
			nodes: [image({ maxExpectedSpend: 60000 })],
			input: items(2),
			credentials: creds(sim),
		});
		expect(ok.error).toBeUndefined();
		expect(sim.charged({ key: 'demo' })).toBeLessThanOrEqual(60000);
		expect(Number(customData(ok).gengateway_spent)).toBeGreaterThanOrEqual(
			sim.charged({ key: 'demo' }),
		);
		expect(cost(ok.output('Image')[0].json)).toMatchObject({
			status: 'range',
			quota_low: 16000,
			quota: 30000,
			group_multiplier_range: [0.8, 1.5],
		});
	});

	it('a published group with ratio 0 never makes a call free for the cap', async () => {
		sim.setPricing({
			group_ratio: { free: 0 },
			usable_group: { free: 'Free' },
			enable: { free: ['alpha-image-2.5'] },
		});
		try {
			const r = await runWorkflow({
				nodes: [image({ maxExpectedSpend: 29999 })],
				credentials: creds(sim),
			});
			expect(runError(r)?.message).toMatch(/the price of \$0\.06 \(¤30000\)/);
			const named = await runWorkflow({
				nodes: [image({ maxExpectedSpend: 1_000_000, groupName: 'free' })],
				credentials: creds(sim),
			});
			expect(cost(named.output('Image')[0].json)).toMatchObject({ status: 'range', group: 'free' });
		} finally {
			sim.resetPricing();
		}
	});

	it('a key in a group that is not publicly selectable is still bounded by the highest published ratio', async () => {
		sim.setPricing({ group_ratio: { partner: 1.2 }, enable: { partner: ['alpha-image-2.5'] } });
		const partner = sim.addKey({ name: 'partner', group: 'partner' });
		try {
			const r = await runWorkflow({
				nodes: [image({ maxExpectedSpend: 60000 })],
				input: items(2),
				credentials: { apiKey: partner, baseUrl: sim.baseUrl },
			});
			expect(r.error).toBeUndefined();
			expect(sim.charged({ key: 'partner' })).toBe(48000);
			expect(Number(customData(r).gengateway_spent)).toBeGreaterThanOrEqual(48000);
		} finally {
			sim.resetPricing();
		}
	});
});

describe('models with no price before the call', () => {
	it.each([
		['Chat (per token)', chat({ maxExpectedSpend: 1_000_000 }), 'Chat'],
		['Responses (per token)', responses({ maxExpectedSpend: 1_000_000 }), 'Responses'],
		['delta Video Create (per video token)', deltaVideo({ maxExpectedSpend: 1_000_000 }), 'Video'],
	])('%s: over the cap unless Allow Unpriced Models is on', async (_, node, name) => {
		const refused = await runWorkflow({ nodes: [node], credentials: creds(sim) });
		expect(runError(refused)?.message).toMatch(
			/1 call\(s\) have no price before they are sent and Allow Unpriced Models is off/,
		);
		expect(posts(sim)).toHaveLength(0);

		const allowed = {
			...node,
			parameters: {
				...node.parameters,
				options: { ...(node.parameters!.options as object), allowUnpriced: true },
			},
		};
		const r = await runWorkflow({ nodes: [allowed], credentials: creds(sim) });
		expect(r.error).toBeUndefined();
		expect(paidRequests(sim)).toHaveLength(1);
		expect(cost(r.output(name)[0].json).status).toEqual(
			expect.stringMatching(/^(range|expected|estimate|unknown)$/),
		);
	});
});

describe('Quote Only: every item checked and priced, nothing sent', () => {
	it('one quoted item per input with its cost; the hint gives the total; a second run without it sends', async () => {
		const r = await runWorkflow({
			nodes: [image({ ...HD, quoteOnly: true })],
			input: items(3),
			credentials: creds(sim),
		});
		expect(r.error).toBeUndefined();
		expect(posts(sim)).toHaveLength(0);
		expect(
			r
				.output('Image')
				.map((i) => [i.json.status, (i.json.cost as Record<string, unknown>).quota, i.json.prompt]),
		).toEqual([
			['quoted', 30000, 'item 0'],
			['quoted', 30000, 'item 1'],
			['quoted', 30000, 'item 2'],
		]);
		expect(hints(r, 'Image').join(' ')).toMatch(
			/Quote Only: nothing was sent\. 3 item\(s\) can cost \$0\.18 \(¤90000\)\./,
		);
		// every quoted item carries the batch's total and its currency (an approval step reads any of them)
		for (const it of r.output('Image'))
			expect(it.json.quote_total).toEqual({
				items: 3,
				quota: 90000,
				amount: 0.18,
				currency: 'USD',
				symbol: '$',
				kind: 'exact',
				items_without_price: 0,
				text: '$0.18 (¤90000)',
			});
		expect(customData(r).gengateway_spent).toBeUndefined();
	});

	it('a quote over the cap is refused like the batch would be', async () => {
		const r = await runWorkflow({
			nodes: [image({ ...HD, quoteOnly: true, maxExpectedSpend: 50000 })],
			input: items(2),
			credentials: creds(sim),
		});
		expect(runError(r)?.message).toMatch(/^Max Expected Spend/);
		expect(posts(sim)).toHaveLength(0);
	});
});

describe('Retry On Fail: a re-run of the node never counts its spend twice', () => {
	it('a spent item on the error output makes n8n run the node 3 times; it is paid and recorded once, and the next node sees ¤30000', async () => {
		const connections: IConnections = {
			First: { main: [[], [{ node: 'Second', type: 'main', index: 0 }]] },
		};
		const first = image(
			{ ...HD, waitForResult: true },
			{},
			{
				name: 'First',
				onError: 'continueErrorOutput',
				retryOnFail: true,
				maxTries: 3,
				waitBetweenTries: 0,
			},
		);
		const r = await runWorkflow({
			nodes: [first, image({ ...HD, maxExpectedSpend: 60000 }, {}, { name: 'Second' })],
			connections,
			input: [{ json: { p: 'a [fail]' } }],
			credentials: creds(sim),
		});
		expect(r.error).toBeUndefined();
		// First's task once, Second's once
		expect(paidRequests(sim)).toHaveLength(2);
		expect(r.output('Second')[0].json).toMatchObject({ status: 'submitted' });
		expect(customData(r).gengateway_spent).toBe('60000');
	});
});

/** A node of the user's that fills the execution's custom data with its own ten keys (n8n keeps no more). */
class FillCustomData implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Fill',
		name: 'fillCustomData',
		group: ['transform'],
		version: 1,
		description: 'sets ten custom data keys',
		defaults: { name: 'Fill' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		properties: [],
	};
	async execute(this: IExecuteFunctions) {
		const data = (
			this.getWorkflowDataProxy(0).$execution as { customData: IWorkflowExecutionCustomData }
		).customData;
		for (let k = 0; k < 10; k++) data.set(`mine_${k}`, 'x');
		return [this.getInputData()];
	}
}

describe("n8n's custom data already full (10 keys of the user's)", () => {
	it('the cap refuses (what the execution spent cannot be known); without a cap the node runs and its hint says the record was not kept', async () => {
		const fill: TestNode = { name: 'Fill', type: new FillCustomData() };
		const refused = await runWorkflow({
			nodes: [fill, image({ maxExpectedSpend: 1_000_000 })],
			credentials: creds(sim),
		});
		expect(runError(refused)?.message).toMatch(
			/custom data already holds 10 keys without gengateway_spent/,
		);
		expect(posts(sim)).toHaveLength(0);

		const r = await runWorkflow({ nodes: [fill, image()], credentials: creds(sim) });
		expect(r.error).toBeUndefined();
		expect(paidRequests(sim)).toHaveLength(1);
		expect(Object.keys(customData(r))).toHaveLength(10);
		expect(hints(r, 'Image')).toContainEqual(expect.stringMatching(/record could not be kept/));
	});
});
