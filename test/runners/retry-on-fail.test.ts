/**
 * Paid batches under n8n's own settings: every failure point of the paid nodes, with Retry On Fail on (2 to 5 tries),
 * under each error setting (Stop Workflow, Continue, Continue using error output), in n8n-core's WorkflowExecute
 * against the simulator. The gateway must see exactly one paid request per item it accepted (or may have), every
 * accepted item's task ID or answer must be in the output, and nothing that spent money may fail the node.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';
import { type FaultSpec } from '../../simulator';
import { useSimulator } from '../harness/simulator';
import { GenGatewayChat } from '../../nodes/GenGatewayChat/GenGatewayChat.node';
import { GenGatewayImageSubmit } from '../../nodes/GenGatewayImageSubmit/GenGatewayImageSubmit.node';
import { GenGatewayResponses } from '../../nodes/GenGatewayResponses/GenGatewayResponses.node';
import { GenGatewayVideoCreate } from '../../nodes/GenGatewayVideoCreate/GenGatewayVideoCreate.node';
import { cleanupBinaryData, runWorkflow, type RunResult, type TestNode } from '../harness/workflow';
import { model } from '../harness/inputs';
import { atRealTime } from '../time-scale';

const sim = useSimulator(
	{
		quiet: true,
		taskLatencyMs: 150,
		pollAfterMs: 40,
		videoLatencyMs: 200,
		syncLatencyMs: 10,
	},
	{ reset: true },
);
afterAll(async () => {
	cleanupBinaryData();
});

type Setting = NonNullable<TestNode['onError']>;
const SETTINGS: Setting[] = ['stopWorkflow', 'continueRegularOutput', 'continueErrorOutput'];

interface Case {
	name: string;
	node: (extra: Partial<TestNode>) => TestNode;
	input: Array<Record<string, unknown>>;
	faults?: FaultSpec[];
	/** items the gateway accepted, or may have: each must be paid for exactly once */
	paid: number[];
	/** items that come out failed */
	failed: number[];
	/** items that come out with submission_uncertain */
	uncertain?: number[];
	/** how an accepted item proves it is in the output */
	proof: 'task_id' | 'text';
	/** ledger entries the simulator writes, when not one per paid item (a fault answers without creating a task; a blocked prompt is not charged) */
	charges?: number;
	/** a bad item fails its checks: with Stop Workflow the node fails before anything is sent */
	badInput?: boolean;
	maxTries: number;
}

const image =
	(p: Record<string, unknown>) =>
	(extra: Partial<TestNode>): TestNode => ({
		name: 'Node',
		type: new GenGatewayImageSubmit(),
		parameters: {
			operation: 'generate',
			mode: 'async',
			model: model('alpha-image-2.5'),
			prompt: '={{ $json.p }}',
			size: '1536x1024',
			...p,
		},
		...extra,
	});
const video =
	(p: Record<string, unknown>) =>
	(extra: Partial<TestNode>): TestNode => ({
		name: 'Node',
		type: new GenGatewayVideoCreate(),
		parameters: {
			family: 'delta',
			model: model('delta-video-2-0-mini-260615'),
			prompt: '={{ $json.p }}',
			seconds: 5,
			resolution: '480p',
			ratio: '16:9',
			generateAudio: false,
			watermark: false,
			...p,
		},
		...extra,
	});
const chat =
	(p: Record<string, unknown>) =>
	(extra: Partial<TestNode>): TestNode => ({
		name: 'Node',
		type: new GenGatewayChat(),
		parameters: {
			model: model('alpha-chat-4o'),
			messagesFrom: 'ui',
			messages: { values: [{ role: 'user', content: '={{ $json.p }}' }] },
			stream: true,
			...p,
		},
		...extra,
	});
const responses =
	(p: Record<string, unknown>) =>
	(extra: Partial<TestNode>): TestNode => ({
		name: 'Node',
		type: new GenGatewayResponses(),
		parameters: { model: model('alpha-chat-4o'), input: '={{ $json.p }}', stream: true, ...p },
		...extra,
	});

const CASES: Case[] = [
	{
		badInput: true,
		name: 'Image Submit: a bad size on item 1',
		node: image({ size: '={{ $json.size }}' }),
		input: [
			{ p: 'a', size: '1536x1024' },
			{ p: 'b', size: '999x999' },
		],
		paid: [0],
		failed: [1],
		proof: 'task_id',
		maxTries: 3,
	},
	{
		badInput: true,
		name: 'Image Submit: item 0 fails its checks, item 1 is paid',
		node: image({ size: '={{ $json.size }}' }),
		input: [
			{ p: 'a', size: '16:9' },
			{ p: 'b', size: '1536x1024' },
		],
		paid: [1],
		failed: [0],
		proof: 'task_id',
		maxTries: 2,
	},
	{
		name: 'Image Submit: item 1 refused with 429 until its submit window closed',
		node: image({ mode: '={{ $json.mode }}', options: { submitTimeoutMs: 1500 } }),
		input: [
			{ p: 'a', mode: 'async' },
			{ p: 'b', mode: 'sync' },
		],
		faults: [
			{ route: 're:^POST /v1/images/generations$', kind: 'rate-limit', retryAfter: 0, times: -1 },
		],
		paid: [0],
		failed: [1],
		proof: 'task_id',
		maxTries: 4,
	},
	{
		name: 'Image Submit: a 429 burst is absorbed (refused requests go again)',
		node: image({}),
		input: [{ p: 'a' }, { p: 'b' }, { p: 'c' }],
		faults: [
			{ route: 'POST /v1/images/generations/async', kind: 'rate-limit', retryAfter: 0, times: 2 },
		],
		paid: [0, 1, 2],
		failed: [],
		proof: 'task_id',
		maxTries: 5,
	},
	{
		name: "Image Submit, Wait for Result: item 1's task fails",
		node: image({ options: { waitForResult: true } }),
		input: [{ p: 'a' }, { p: 'b [fail]' }],
		paid: [0, 1],
		failed: [1],
		proof: 'task_id',
		maxTries: 3,
	},
	{
		name: "Image Submit, Wait for Result: item 0's task fails (first place)",
		node: image({ options: { waitForResult: true } }),
		input: [{ p: 'a [fail]' }, { p: 'b' }],
		paid: [0, 1],
		failed: [0],
		proof: 'task_id',
		maxTries: 3,
	},
	{
		name: 'Image Submit, Wait for Result: a completed task without an image',
		node: image({ options: { waitForResult: true } }),
		input: [{ p: 'a [empty]' }],
		paid: [0],
		failed: [0],
		proof: 'task_id',
		maxTries: 2,
	},
	{
		name: 'Image Submit: a 202 without a task ID',
		node: image({}),
		input: [{ p: 'a' }],
		faults: [
			{
				route: 'POST /v1/images/generations/async',
				kind: 'status',
				status: 202,
				body: { status: 'processing', request_id: 'req-1' },
			},
		],
		paid: [0],
		failed: [],
		uncertain: [0],
		charges: 0,
		proof: 'task_id',
		maxTries: 3,
	},
	{
		name: 'Image Submit: a 202 whose task ID is outside A-Za-z0-9_-',
		node: image({}),
		input: [{ p: 'a' }],
		faults: [
			{
				route: 'POST /v1/images/generations/async',
				kind: 'status',
				status: 202,
				body: { task_id: 'bad id!', status: 'processing' },
			},
		],
		paid: [0],
		failed: [],
		uncertain: [0],
		charges: 0,
		proof: 'task_id',
		maxTries: 3,
	},
	{
		name: 'Image Submit, synchronous: the hosted image is gone',
		node: image({ mode: 'sync', model: model('beta-3.1-flash-image-preview') }),
		input: [{ p: 'a' }],
		faults: [{ route: 're:^GET /r/', kind: 'status', status: 404, times: -1 }],
		paid: [0],
		failed: [0],
		proof: 'task_id',
		maxTries: 3,
	},
	{
		name: 'Image Submit, native: a 200 without an image',
		node: image({ mode: 'native', model: model('beta-3.1-flash-image-preview') }),
		input: [{ p: 'ok' }, { p: 'no [block]' }],
		paid: [0, 1],
		failed: [1],
		charges: 1,
		proof: 'task_id',
		maxTries: 3,
	},
	{
		badInput: true,
		name: 'Video Create: an invalid duration on item 1',
		node: video({ seconds: '={{ $json.s }}' }),
		input: [
			{ p: 'a', s: 5 },
			{ p: 'b', s: 20 },
		],
		paid: [0],
		failed: [1],
		proof: 'task_id',
		maxTries: 3,
	},
	{
		badInput: true,
		name: 'Chat: a bad second message',
		node: chat({ messagesFrom: 'json', messagesJson: '={{ $json.m }}' }),
		input: [{ m: [{ role: 'user', content: 'hi' }] }, { m: [{ role: 'wizard', content: 'hi' }] }],
		paid: [0],
		failed: [1],
		proof: 'text',
		maxTries: 3,
	},
	{
		name: 'Chat: a stream cut after the model ran',
		node: chat({}),
		input: [{ p: 'fine' }, { p: 'cut [cut]' }],
		paid: [0, 1],
		failed: [1],
		proof: 'text',
		maxTries: 3,
	},
	{
		name: 'Chat: a stream ended by an error event, first item',
		node: chat({}),
		input: [{ p: 'x [sse-error]' }, { p: 'fine' }],
		paid: [0, 1],
		failed: [0],
		proof: 'text',
		maxTries: 5,
	},
	{
		name: 'Responses: a stream cut after the model ran',
		node: responses({}),
		input: [{ p: 'cut [cut]' }],
		paid: [0],
		failed: [0],
		proof: 'text',
		maxTries: 2,
	},
];

/** The items of every output, with the input index each is paired to. */
function outputs(r: RunResult): Array<{ output: number; index: number; item: INodeExecutionData }> {
	return r
		.outputs('Node')
		.flatMap((items, output) =>
			items.map((item) => ({ output, index: (item.pairedItem as { item: number }).item, item })),
		);
}

const paidRequests = () => sim.ledger.filter((l) => l.kind === 'charge' || l.kind === 'reserve');

describe.each(CASES)('$name', (c) => {
	it.each(SETTINGS)(
		'Retry On Fail with %s: one paid request per accepted item, every accepted item in the output',
		async (onError) => {
			for (const f of c.faults ?? []) sim.fault(f);
			const r = await runWorkflow({
				nodes: [c.node({ onError, retryOnFail: true, maxTries: c.maxTries, waitBetweenTries: 0 })],
				input: c.input.map((json) => ({ json: json as IDataObject })),
				credentials: { apiKey: sim.keys.demo, baseUrl: sim.baseUrl, videoBaseUrl: sim.altBaseUrl },
			});

			const stopsFirst = onError === 'stopWorkflow' && c.badInput;
			// money: each accepted (or possibly accepted) item was paid for exactly once, whatever n8n retried
			const paid = stopsFirst ? 0 : c.paid.length;
			expect(paidRequests()).toHaveLength(stopsFirst ? 0 : (c.charges ?? paid));
			expect(
				sim.log.filter((l) => l.method === 'POST' && (l.status < 300 || l.status === -1)),
			).toHaveLength(paid);
			if (stopsFirst || (onError === 'stopWorkflow' && c.paid.length === 0)) {
				// nothing was spent: the node fails, and with a bad item it sent nothing at all
				expect(r.error).toBeDefined();
				if (stopsFirst) expect(sim.log.filter((l) => l.method === 'POST')).toHaveLength(0);
				return;
			}
			// spent money: the node does not fail
			expect(r.error).toBeUndefined();
			const out = outputs(r);
			expect(out.map((o) => o.index).sort()).toEqual(c.input.map((_, i) => i));

			const errorOutput = onError === 'continueErrorOutput' ? 1 : -1;
			for (const o of out) {
				const failed = c.failed.includes(o.index);
				if (failed && errorOutput > 0) {
					expect(o.output).toBe(errorOutput);
					const e = o.item.json.error as Record<string, unknown>;
					expect(e).toMatchObject({
						message: expect.any(String),
						status: 'failed',
						submitted: c.paid.includes(o.index),
						failed_at: expect.any(String),
					});
					expect(Object.keys(o.item.json)).toEqual(expect.arrayContaining(['error']));
				} else if (failed) {
					expect(o.output).toBe(0);
					expect(o.item.json).toMatchObject({
						status: 'failed',
						submitted: c.paid.includes(o.index),
						error_message: expect.any(String),
					});
				} else {
					expect(o.output).toBe(0);
					expect(o.item.json.status === 'failed' || o.item.json.error !== undefined).toBe(false);
					if (c.uncertain?.includes(o.index))
						expect(o.item.json).toMatchObject({ submission_uncertain: true, status: 'uncertain' });
					else if (c.proof === 'task_id')
						expect(o.item.json.task_id ?? (o.item.json.files as unknown[])?.length).toBeTruthy();
					else expect(String(o.item.json.text).length).toBeGreaterThan(0);
				}
			}
			// the first item of the first output never carries json.error once money was spent: Retry On Fail reads it
			const first = r.outputs('Node')[0]?.[0];
			if (first) expect(first.json.error).toBeUndefined();
			// the failures are counted in an execution hint
			const hintList = r.run.data.resultData.runData.Node[0].hints ?? [];
			const hints = hintList.map((h) => h.message);
			// a failure after spend cannot be missed in the editor: the count comes as a warning
			if (c.failed.length)
				expect(hintList.find((h) => /items? failed/.test(h.message))?.type).toBe('warning');
			if (c.failed.length)
				expect(hints).toContainEqual(
					expect.stringMatching(
						new RegExp(`^${c.failed.length} of ${c.input.length} items? failed`),
					),
				);
			if (c.uncertain?.length) expect(hints.join(' ')).toMatch(/outcome is unknown/);
		},
	);
});

describe('the retry ledger', () => {
	// real time: one query per try needs the real 1 s poll floor (the task ends within the first interval)
	it(
		'when n8n does retry (every item failed after it was paid, error output), the paid request is not sent again',
		atRealTime(async () => {
			const r = await runWorkflow({
				nodes: [
					image({ options: { waitForResult: true } })({
						onError: 'continueErrorOutput',
						retryOnFail: true,
						maxTries: 3,
						waitBetweenTries: 0,
					}),
				],
				input: [{ json: { p: 'only [fail]' } }],
				credentials: { apiKey: sim.keys.demo, baseUrl: sim.baseUrl },
			});
			expect(r.error).toBeUndefined();
			// n8n ran the node three times (each try queried the task again) …
			expect(
				sim.log.filter((l) => l.method === 'GET' && l.path.startsWith('/v1/images/tasks/')),
			).toHaveLength(3);
			// … and the gateway saw one POST, one charge
			expect(sim.log.filter((l) => l.method === 'POST')).toHaveLength(1);
			expect(paidRequests()).toHaveLength(1);
			expect(r.output('Node', 1)[0].json.error).toMatchObject({
				task_id: expect.stringMatching(/^[A-Za-z0-9_-]+$/),
				submitted: true,
				failed_at: 'task',
			});
		}),
	);

	it('without Retry On Fail nothing is kept: a new execution sends again', async () => {
		const node = image({})({});
		await runWorkflow({
			nodes: [node],
			input: [{ json: { p: 'a' } }],
			credentials: { apiKey: sim.keys.demo, baseUrl: sim.baseUrl },
		});
		await runWorkflow({
			nodes: [node],
			input: [{ json: { p: 'a' } }],
			credentials: { apiKey: sim.keys.demo, baseUrl: sim.baseUrl },
		});
		expect(sim.log.filter((l) => l.method === 'POST')).toHaveLength(2);
	});
});
