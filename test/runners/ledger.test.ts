/**
 * Issue 32, bullet 8: the ledger knows a paid call by its place (node, run, item), not by the order the items reach
 * the gateway or the order its answers come back. In n8n-core's WorkflowExecute against the simulator, behind the
 * money properties' recording proxy (every POST with its prompt, its gateway request ID and its answer):
 *
 * - item 0 refused by its checks, item 1 paid and its task failed, Continue (using error output), Retry On Fail 3:
 *   n8n runs the node three times (every item failed, so the first output item is an error), the gateway sees 1 POST;
 * - the same with item 2 paid as well and the answers out of order (item 1's submission held by the gateway, item 2
 *   answered first): 2 POSTs, and each item's failure names the task its own prompt created.
 */
import type { IExecuteFunctions, INodeExecutionData, INodeType } from 'n8n-workflow';
import { useSimulator } from '../harness/simulator';
import { GenGatewayImageSubmit } from '../../nodes/GenGatewayImageSubmit/GenGatewayImageSubmit.node';
import { cleanupBinaryData, runWorkflow, type RunResult } from '../harness/workflow';
import { model } from '../harness/inputs';
import { RecordingProxy } from '../property/money-proxy';

const sim = useSimulator({ quiet: true, taskLatencyMs: 60, pollAfterMs: 20, syncLatencyMs: 1 });
const proxy = new RecordingProxy();
let base: string;
beforeAll(async () => {
	base = await proxy.start(sim.baseUrl);
});
afterAll(async () => {
	await proxy.stop();
	cleanupBinaryData();
});
beforeEach(() => {
	sim.reset();
	proxy.reset();
});

/** Image Submit (async, Wait for Result) with its executions counted: n8n's tries of the run included. */
function imageNode(tries: { n: number }): INodeType {
	const node = new GenGatewayImageSubmit();
	return {
		description: node.description,
		methods: node.methods,
		async execute(this: IExecuteFunctions) {
			tries.n++;
			return node.execute.call(this);
		},
	} as INodeType;
}

async function run(
	input: Array<{ p: string; size: string }>,
	tries: { n: number },
): Promise<RunResult> {
	return runWorkflow({
		nodes: [
			{
				name: 'Image',
				type: imageNode(tries),
				parameters: {
					operation: 'generate',
					mode: 'async',
					model: model('alpha-image-2.5'),
					prompt: '={{ $json.p }}',
					size: '={{ $json.size }}',
					options: { waitForResult: true, groupName: 'hd' },
				},
				onError: 'continueErrorOutput',
				retryOnFail: true,
				maxTries: 3,
				// n8n waits 1 s between tries when this is 0 (`|| 1000`)
				waitBetweenTries: 1,
			},
		],
		input: input.map((json) => ({ json })),
		credentials: { apiKey: sim.keys.demo, baseUrl: base },
	});
}

const paidPosts = () =>
	proxy.exchanges.filter(
		(e) => e.method === 'POST' && e.path.startsWith('/v1/images/generations/async'),
	);
/** the task each prompt created, from the gateway's own answers */
const taskOfPrompt = () =>
	new Map(
		paidPosts().map((e) => [
			(JSON.parse(e.body) as { prompt: string }).prompt,
			(JSON.parse(e.answer) as { task_id: string }).task_id,
		]),
	);
const errorOf = (item: INodeExecutionData) => item.json.error as Record<string, unknown>;
const paired = (item: INodeExecutionData) => (item.pairedItem as { item: number }).item;

describe('the ledger knows a paid call by its place', () => {
	it('item 0 refused by its checks, item 1 paid and its task failed, error output, Retry On Fail 3: n8n runs the node 3 times, 1 POST', async () => {
		const tries = { n: 0 };
		const r = await run(
			[
				{ p: 'item 0', size: '16:9' },
				{ p: 'item 1 [fail]', size: '1536x1024' },
			],
			tries,
		);
		expect(r.error).toBeUndefined();
		expect(tries.n).toBe(3);
		expect(paidPosts()).toHaveLength(1);
		expect(sim.ledger.filter((l) => l.kind === 'charge')).toHaveLength(1);
		const failed = r.output('Image', 1);
		expect(failed.map(paired).sort()).toEqual([0, 1]);
		const byItem = new Map(failed.map((i) => [paired(i), errorOf(i)]));
		expect(byItem.get(0)).toMatchObject({ failed_at: 'validation', submitted: false });
		expect(byItem.get(1)).toMatchObject({
			failed_at: 'task',
			submitted: true,
			task_id: taskOfPrompt().get('item 1 [fail]'),
		});
		expect(r.output('Image', 0)).toHaveLength(0);
		expect(r.run.data.resultData.metadata?.gengateway_spent).toBe('30000');
	});

	it('the same with item 2 paid too and the answers out of order (item 2 answered first): 2 POSTs, each item keeps its own task', async () => {
		// the gateway holds the first submission to arrive (item 1's, sent first) until item 2's was answered
		sim.fault({
			route: 'POST /v1/images/generations/async',
			kind: 'delay',
			delayMs: 300,
			times: 1,
		});
		const tries = { n: 0 };
		const r = await run(
			[
				{ p: 'item 0', size: '16:9' },
				{ p: 'item 1 [fail]', size: '1536x1024' },
				{ p: 'item 2 [fail]', size: '1536x1024' },
			],
			tries,
		);
		expect(r.error).toBeUndefined();
		expect(tries.n).toBe(3);
		const posts = paidPosts();
		expect(posts).toHaveLength(2);
		// the answers did come back out of order
		const ended = (prompt: string) =>
			posts.find((e) => JSON.parse(e.body).prompt === prompt)!.ended!;
		expect(ended('item 2 [fail]')).toBeLessThan(ended('item 1 [fail]'));
		const tasks = taskOfPrompt();
		const byItem = new Map(r.output('Image', 1).map((i) => [paired(i), errorOf(i)]));
		expect(byItem.get(0)).toMatchObject({ failed_at: 'validation', submitted: false });
		expect(byItem.get(1)).toMatchObject({ failed_at: 'task', task_id: tasks.get('item 1 [fail]') });
		expect(byItem.get(2)).toMatchObject({ failed_at: 'task', task_id: tasks.get('item 2 [fail]') });
		expect(tasks.get('item 1 [fail]')).not.toBe(tasks.get('item 2 [fail]'));
		expect(r.run.data.resultData.metadata?.gengateway_spent).toBe('60000');
	});
});
