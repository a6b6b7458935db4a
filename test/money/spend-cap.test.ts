/**
 * Issue 25, bullet 2: Max Expected Spend refuses before spending. In-process n8n against the simulator: the cap at,
 * just under and just over the limit; across two paid nodes of one workflow (the second refuses when the first spent
 * the budget); under each error setting, with Retry On Fail; unpriced models; and the simulator's ledger showing no
 * paid request whenever the cap refuses.
 */
import { NodeConnectionTypes, type IConnections, type IExecuteFunctions, type INodeType, type INodeTypeDescription, type IWorkflowExecutionCustomData } from 'n8n-workflow';
import { startSimulator, type Simulator } from '../../simulator';
import { cleanupBinaryData, runWorkflow, type RunResult, type TestNode } from '../harness/workflow';
import { chat, cost, creds, customData, deltaVideo, hints, image, items, paidRequests, posts, responses } from './support';

let sim: Simulator;
beforeAll(async () => {
	sim = await startSimulator({ quiet: true, taskLatencyMs: 100, pollAfterMs: 40, videoLatencyMs: 150, syncLatencyMs: 10, seed: 4 });
});
afterAll(async () => {
	await sim.stop();
	cleanupBinaryData();
});
beforeEach(() => sim.reset());

type Setting = NonNullable<TestNode['onError']>;
const SETTINGS: Setting[] = ['stopWorkflow', 'continueRegularOutput', 'continueErrorOutput'];
const runError = (r: RunResult) => r.run.data.resultData.error as { message: string; description?: string } | undefined;

/** The node refused under its error setting: the run fails (Stop Workflow) or every item is a budget failure that sent nothing. */
function expectRefused(r: RunResult, node: string, onError: Setting, n: number) {
	if (onError === 'stopWorkflow') {
		expect(runError(r)?.message).toMatch(/^Max Expected Spend \(¤\) \d+ refused the batch before any paid request/);
		return;
	}
	expect(r.error).toBeUndefined();
	const failed = onError === 'continueErrorOutput' ? r.output(node, 1).map((i) => i.json.error as Record<string, unknown>) : r.output(node);
	expect(failed).toHaveLength(n);
	if (onError === 'continueErrorOutput') expect(r.output(node, 0)).toHaveLength(0);
	for (const f of failed) {
		const json = onError === 'continueErrorOutput' ? f : (f as { json: Record<string, unknown> }).json;
		expect(json).toMatchObject({ failed_at: 'budget', submitted: false });
		if (onError === 'continueRegularOutput') expect(json).toMatchObject({ status: 'failed', error_message: expect.stringMatching(/^Max Expected Spend/) });
		else expect(json.message).toMatch(/^Max Expected Spend/);
		expect(json.cost).toBeUndefined();
	}
}

describe('one node: at, just under and just over the limit (2 images × ¤16000 = ¤32000)', () => {
	it.each([
		['at the limit (¤32000)', 32000],
		['just over the expected total (¤32001)', 32001],
	])('cap %s: sent, each item once', async (_, cap) => {
		const r = await runWorkflow({ nodes: [image({ maxExpectedSpend: cap })], input: items(2), credentials: creds(sim) });
		expect(r.error).toBeUndefined();
		expect(paidRequests(sim)).toHaveLength(2);
		expect(customData(r).gengateway_spent).toBe('32000');
	});

	it('cap just under (¤31999), Stop Workflow: the node fails naming the cap, the expected total, the spent-so-far and the per-item price; nothing is sent', async () => {
		const r = await runWorkflow({ nodes: [image({ maxExpectedSpend: 31999 })], input: items(2), credentials: creds(sim) });
		const e = runError(r)!;
		expect(e.message).toBe(
			'Max Expected Spend (¤) 31999 refused the batch before any paid request: expected $0.064 (¤32000) + spent so far $0 (¤0) = $0.064 (¤32000) is over the cap $0.063998 (¤31999)',
		);
		expect(e.description).toMatch(/^Nothing was sent to the gateway\. Per item: alpha-image-2\.5: \$0\.032 \(¤16000\) per item\./);
		expect(posts(sim)).toHaveLength(0);
		expect(paidRequests(sim)).toHaveLength(0);
	});

	describe.each(SETTINGS)('cap just under, %s, with Retry On Fail (3 tries)', (onError) => {
		it('every item refused with failed_at budget and submitted false; zero paid requests at the simulator', async () => {
			const r = await runWorkflow({ nodes: [image({ maxExpectedSpend: 31999 }, {}, { onError, retryOnFail: true, maxTries: 3, waitBetweenTries: 0 })], input: items(2), credentials: creds(sim) });
			expectRefused(r, 'Image', onError, 2);
			expect(posts(sim)).toHaveLength(0);
			expect(paidRequests(sim)).toHaveLength(0);
			expect(customData(r).gengateway_spent).toBeUndefined();
		});
	});

	it('the 429 refusals of an item do not count twice (they created nothing): at the limit, both items go and the record says ¤32000', async () => {
		sim.fault({ route: 'POST /v1/images/generations/async', kind: 'rate-limit', retryAfter: 0, times: 2 });
		const r = await runWorkflow({ nodes: [image({ maxExpectedSpend: 32000 })], input: items(2), credentials: creds(sim) });
		expect(r.error).toBeUndefined();
		expect(posts(sim).length).toBeGreaterThan(2);
		expect(paidRequests(sim)).toHaveLength(2);
		expect(customData(r).gengateway_spent).toBe('32000');
	});

	it('the price list cannot be read: every item counts as unpriced, so the cap refuses (fail closed) unless Allow Unpriced Models is on', async () => {
		sim.fault({ route: 'GET /api/pricing', kind: 'status', status: 503, times: -1 });
		const refused = await runWorkflow({ nodes: [image({ maxExpectedSpend: 1_000_000 })], credentials: creds(sim) });
		expect(runError(refused)?.message).toMatch(/1 item\(s\) have no price before the call/);
		expect(runError(refused)?.description).toMatch(/price list could not be read/);
		expect(posts(sim)).toHaveLength(0);
		const allowed = await runWorkflow({ nodes: [image({ maxExpectedSpend: 1_000_000, allowUnpriced: true })], credentials: creds(sim) });
		expect(allowed.error).toBeUndefined();
		expect(paidRequests(sim)).toHaveLength(1);
		expect(cost(allowed.output('Image')[0].json)).toMatchObject({ status: 'unknown', quota: null });
	});

	it('a bad cap is refused naming the field and its rule before any request', async () => {
		const r = await runWorkflow({ nodes: [image({ maxExpectedSpend: -5 })], credentials: creds(sim) });
		expect(r.error).toMatch(/^Max Expected Spend \(¤\): must be a positive number of ¤/);
		expect(sim.log).toHaveLength(0);
	});
});

describe('two paid nodes in one workflow: the second refuses when the first spent the budget', () => {
	const first = () => image({}, {}, { name: 'First' });
	const second = (cap: number, extra: Partial<TestNode> = {}) => image({ maxExpectedSpend: cap }, {}, { name: 'Second', ...extra });

	it('two items through both: the first spent ¤32000; the second (¤32000 expected) fits a cap of ¤64000 exactly', async () => {
		const r = await runWorkflow({ nodes: [first(), second(64000)], input: items(2), credentials: creds(sim) });
		expect(r.error).toBeUndefined();
		expect(paidRequests(sim)).toHaveLength(4);
		expect(customData(r).gengateway_spent).toBe('64000');
	});

	describe.each(SETTINGS)('the second node with %s and Retry On Fail', (onError) => {
		it('one item each; a cap of ¤24000: the second refuses: the message counts what the first spent; the ledger holds the first node only', async () => {
			const r = await runWorkflow({ nodes: [first(), second(24000, { onError, retryOnFail: true, maxTries: 2, waitBetweenTries: 0 })], input: items(1), credentials: creds(sim) });
			expectRefused(r, 'Second', onError, 1);
			if (onError === 'stopWorkflow') expect(runError(r)!.message).toMatch(/expected \$0\.032 \(¤16000\) \+ spent so far \$0\.032 \(¤16000\) = \$0\.064 \(¤32000\) is over the cap \$0\.048 \(¤24000\)/);
			else expect(JSON.stringify(r.outputs('Second'))).toContain('spent so far $0.032 (¤16000)');
			expect(paidRequests(sim)).toHaveLength(1);
			expect(posts(sim)).toHaveLength(1);
			expect(customData(r).gengateway_spent).toBe('16000');
		});
	});
});

describe('models with no price before the call', () => {
	it.each([
		['Chat (per token)', chat({ maxExpectedSpend: 1_000_000 }), 'Chat'],
		['Responses (per token)', responses({ maxExpectedSpend: 1_000_000 }), 'Responses'],
		['delta Video Create (per video token)', deltaVideo({ maxExpectedSpend: 1_000_000 }), 'Video'],
		['Image Submit with an empty Group Multiplier (multiplier unknown)', image({ maxExpectedSpend: 1_000_000, groupRatio: '' }), 'Image'],
	])('%s: over the cap unless Allow Unpriced Models is on', async (_, node, name) => {
		const refused = await runWorkflow({ nodes: [node], credentials: creds(sim) });
		expect(runError(refused)?.message).toMatch(/1 item\(s\) have no price before the call and Allow Unpriced Models is off/);
		expect(posts(sim)).toHaveLength(0);

		const allowed = { ...node, parameters: { ...node.parameters, options: { ...(node.parameters!.options as object), allowUnpriced: true } } };
		const r = await runWorkflow({ nodes: [allowed], credentials: creds(sim) });
		expect(r.error).toBeUndefined();
		expect(paidRequests(sim)).toHaveLength(1);
		expect(cost(r.output(name)[0].json).status).toEqual(expect.stringMatching(/^(expected|unknown|at_multiplier_1)$/));
	});
});

describe('Retry On Fail: a re-run of the node never counts its spend twice', () => {
	it('a spent item on the error output makes n8n run the node 3 times; it is paid and recorded once, and the next node sees ¤16000', async () => {
		const connections: IConnections = { First: { main: [[], [{ node: 'Second', type: 'main', index: 0 }]] } };
		const first = image({ waitForResult: true }, {}, { name: 'First', onError: 'continueErrorOutput', retryOnFail: true, maxTries: 3, waitBetweenTries: 0 });
		const r = await runWorkflow({ nodes: [first, image({ maxExpectedSpend: 32000 }, {}, { name: 'Second' })], connections, input: [{ json: { p: 'a [fail]' } }], credentials: creds(sim) });
		expect(r.error).toBeUndefined();
		// each try of the node reads the price list once (a transport per try): three tries
		expect(sim.log.filter((l) => l.path === '/api/pricing')).toHaveLength(4);
		// First's task once, Second's once
		expect(paidRequests(sim)).toHaveLength(2);
		expect(r.output('Second')[0].json).toMatchObject({ status: 'submitted' });
		expect(customData(r).gengateway_spent).toBe('32000');
		expect(JSON.parse(customData(r).gengateway_nodes)).toEqual({ 'First#0': [16000, 0], 'Second#0': [16000, 0] });
	});
});

/** A node of the user's that fills the execution's custom data with its own ten keys (n8n keeps no more). */
class FillCustomData implements INodeType {
	description: INodeTypeDescription = { displayName: 'Fill', name: 'fillCustomData', group: ['transform'], version: 1, description: 'sets ten custom data keys', defaults: { name: 'Fill' }, inputs: [NodeConnectionTypes.Main], outputs: [NodeConnectionTypes.Main], properties: [] };
	async execute(this: IExecuteFunctions) {
		const data = (this.getWorkflowDataProxy(0).$execution as { customData: IWorkflowExecutionCustomData }).customData;
		for (let k = 0; k < 10; k++) data.set(`mine_${k}`, 'x');
		return [this.getInputData()];
	}
}

describe("n8n's custom data already full (10 keys of the user's)", () => {
	it('the cap refuses (what the execution spent cannot be known); without a cap the node runs and its hint says the record was not kept', async () => {
		const fill: TestNode = { name: 'Fill', type: new FillCustomData() };
		const refused = await runWorkflow({ nodes: [fill, image({ maxExpectedSpend: 1_000_000 })], credentials: creds(sim) });
		expect(runError(refused)?.message).toMatch(/custom data already holds 10 keys without gengateway_spent/);
		expect(posts(sim)).toHaveLength(0);

		const r = await runWorkflow({ nodes: [fill, image()], credentials: creds(sim) });
		expect(r.error).toBeUndefined();
		expect(paidRequests(sim)).toHaveLength(1);
		expect(Object.keys(customData(r))).toHaveLength(10);
		expect(hints(r, 'Image')).toContainEqual(expect.stringMatching(/record could not be kept/));
	});
});

