/**
 * Fault-injection matrix (in-process n8n workflows against the simulator). Prints a table of scenarios with:
 * POSTs per item (must be 1), requests carrying the key to a non-gateway origin (0), redirects followed (0),
 * items in = items out with task_id kept, deadline overrun (≤ one poll interval), false successes (0).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { imageSize } from 'image-size';
import type { INodeExecutionData } from 'n8n-workflow';
import { startSimulator, type FaultSpec, type Simulator } from '../../simulator';
import { GenGatewayChat } from '../../nodes/GenGatewayChat/GenGatewayChat.node';
import { GenGatewayImageSubmit } from '../../nodes/GenGatewayImageSubmit/GenGatewayImageSubmit.node';
import { GenGatewayTaskWait } from '../../nodes/GenGatewayTaskWait/GenGatewayTaskWait.node';
import { cleanupBinaryData, runWorkflow, type RunResult } from '../harness/workflow';

jest.setTimeout(300_000);

const ITEMS = 3;
const POLL_MS = 60;
interface Row {
	scenario: string;
	postsPerItem: number;
	keyOffOrigin: number;
	redirectsFollowed: number;
	itemsInOut: string;
	taskIdsKept: boolean;
	deadlineOverrunMs: number | '-';
	falseSuccess: number;
	outcome: string;
}

let sim: Simulator;
const rows: Row[] = [];
beforeAll(async () => {
	sim = await startSimulator({ quiet: true, taskLatencyMs: 150, pollAfterMs: POLL_MS });
});
afterAll(async () => {
	await sim.stop();
	cleanupBinaryData();
	const head = '| scenario | POSTs/item | key off-origin | redirects followed | items in→out | task_id kept | deadline overrun | false success | outcome |';
	const table = [head, '|---|---:|---:|---:|---:|:---:|---:|---:|---|', ...rows.map((r) => `| ${r.scenario} | ${r.postsPerItem} | ${r.keyOffOrigin} | ${r.redirectsFollowed} | ${r.itemsInOut} | ${r.taskIdsKept ? 'yes' : 'NO'} | ${r.deadlineOverrunMs} | ${r.falseSuccess} | ${r.outcome} |`)].join('\n');
	mkdirSync(join(__dirname, '../../out'), { recursive: true });
	writeFileSync(join(__dirname, '../../out/fault-matrix.md'), `${table}\n`);
	process.stdout.write(`\nFault matrix (${ITEMS} items per scenario)\n${table}\n`);
});

const model = (value: string) => ({ __rl: true, mode: 'id', value });
const creds = () => ({ apiKey: sim.keys.demo, baseUrl: sim.baseUrl });

async function imagePipeline(maxWaitSeconds = 0, submitTimeoutMs?: number): Promise<{ r: RunResult; ms: number }> {
	const start = Date.now();
	const r = await runWorkflow({
		nodes: [
			{ name: 'Submit', type: new GenGatewayImageSubmit(), parameters: { operation: 'generate', mode: 'async', model: model('alpha-image-2.5'), prompt: '={{ $json.p }}', size: '1024x1024', options: submitTimeoutMs ? { submitTimeoutMs } : {} } },
			{ name: 'Wait', type: new GenGatewayTaskWait(), parameters: { taskId: '={{ $json.task_id }}', taskKind: 'auto', options: { maxWaitSeconds } } },
		],
		input: Array.from({ length: ITEMS }, (_, k) => ({ json: { p: `item ${k}` } })),
		credentials: creds(),
	});
	return { r, ms: Date.now() - start };
}

function falseSuccesses(items: INodeExecutionData[], r: RunResult): Promise<number> {
	return Promise.all(
		items.map(async (i) => {
			if (!i.binary?.data) return 1;
			const buf = await r.binaryBuffer(i);
			try {
				return imageSize(buf).width ? 0 : 1;
			} catch {
				return 1;
			}
		}),
	).then((a) => a.reduce((s: number, x) => s + x, 0));
}

async function record(scenario: string, r: RunResult, opts: { submitNode?: string; waitNode?: string; overrun?: number } = {}): Promise<Row> {
	const submitted = r.output(opts.submitNode ?? 'Submit');
	const outs = opts.waitNode === '' ? [submitted] : r.outputs(opts.waitNode ?? 'Wait');
	const all = outs.flat();
	const posts = sim.log.filter((l) => l.method === 'POST').length;
	const ids = new Map(submitted.map((s, k) => [k, s.json.task_id]));
	const kept = all.every((o) => {
		const k = (o.pairedItem as { item: number }).item;
		return !ids.get(k) || o.json.task_id === ids.get(k);
	});
	const row: Row = {
		scenario,
		postsPerItem: posts / ITEMS,
		keyOffOrigin: sim.log.filter((l) => l.server !== 'gateway' && l.server !== 'alt' && l.auth).length,
		redirectsFollowed: sim.log.filter((l) => l.path.startsWith('/elsewhere') || l.path.startsWith('/steal')).length,
		itemsInOut: `${ITEMS}→${all.length}`,
		taskIdsKept: kept,
		deadlineOverrunMs: opts.overrun ?? '-',
		falseSuccess: opts.waitNode === '' ? 0 : await falseSuccesses(outs[0] ?? [], r),
		outcome: outs.map((o, k) => `${['ok', 'failed', 'running'][k]} ${o.length}`).join(', '),
	};
	rows.push(row);
	return row;
}

function expectClean(row: Row, postsPerItem = 1) {
	expect(row.postsPerItem).toBeLessThanOrEqual(postsPerItem);
	expect(row.keyOffOrigin).toBe(0);
	expect(row.redirectsFollowed).toBe(0);
	expect(row.itemsInOut).toBe(`${ITEMS}→${ITEMS}`);
	expect(row.taskIdsKept).toBe(true);
	expect(row.falseSuccess).toBe(0);
}

const scenarios: Array<[string, FaultSpec[], (row: Row) => void]> = [
	['429 with Retry-After on polls', [{ route: 're:^GET /v1/images/tasks/', kind: 'rate-limit', retryAfter: 1, times: 4 }], (r) => expect(r.outcome).toBe('ok 3, failed 0, running 0')],
	['429 without Retry-After, empty body', [{ route: 're:^GET /v1/images/tasks/', kind: 'rate-limit', emptyBody: true, times: 4 }], (r) => expect(r.outcome).toBe('ok 3, failed 0, running 0')],
	['5xx burst on polls', [{ route: 're:^GET /v1/images/tasks/', kind: 'status', status: 503, times: 5 }], (r) => expect(r.outcome).toBe('ok 3, failed 0, running 0')],
	['reset before task creation', [{ route: 'POST /v1/images/generations/async', kind: 'reset-before' }], (r) => expect(r.outcome).toBe('ok 2, failed 1, running 0')],
	['reset after task creation', [{ route: 'POST /v1/images/generations/async', kind: 'reset-after' }], (r) => expect(r.outcome).toBe('ok 2, failed 1, running 0')],
	['expired task', [{ route: 'POST /v1/images/generations/async', kind: 'expire' }], (r) => expect(r.outcome).toBe('ok 2, failed 1, running 0')],
	['foreign poll_url', [{ route: 'POST /v1/images/generations/async', kind: 'foreign-poll-url', times: 3 }], (r) => expect(r.outcome).toBe('ok 3, failed 0, running 0')],
	['redirect to a foreign origin on a poll', [{ route: 're:^GET /v1/images/tasks/', kind: 'redirect', times: 1 }], (r) => expect(r.outcome).toBe('ok 2, failed 1, running 0')],
	['empty result', [{ route: 'POST /v1/images/generations/async', kind: 'empty-result' }], (r) => expect(r.outcome).toBe('ok 2, failed 1, running 0')],
	['HTML instead of an image', [{ route: 're:^GET /r/', kind: 'html-result' }], (r) => expect(r.outcome).toBe('ok 2, failed 1, running 0')],
	['truncated download', [{ route: 're:^GET /r/', kind: 'truncate' }], (r) => expect(r.outcome).toMatch(/^ok [23], failed [01], running 0$/)],
	['malformed JSON on a poll', [{ route: 're:^GET /v1/images/tasks/', kind: 'malformed-json', times: 2 }], (r) => expect(r.outcome).toBe('ok 3, failed 0, running 0')],
];

describe('fault matrix', () => {
	beforeEach(() => sim.reset());

	it.each(scenarios)('%s', async (name, faults, check) => {
		sim.fault(faults);
		const { r } = await imagePipeline();
		expect(r.error).toBeUndefined();
		const row = await record(name, r);
		expectClean(row);
		check(row);
	});

	it('timeout on submit (gateway slower than the client)', async () => {
		sim.fault({ route: 'POST /v1/images/generations/async', kind: 'delay', delayMs: 1500 });
		const { r } = await imagePipeline(0, 400);
		const row = await record('submit timeout', r);
		expectClean(row);
		expect(r.output('Submit').filter((i) => i.json.submission_uncertain)).toHaveLength(1);
	});

	it('deadline: Still Running is handed back within one poll interval of the deadline', async () => {
		const slow = sim.state.opts as { taskLatencyMs: number };
		const before = slow.taskLatencyMs;
		slow.taskLatencyMs = 5000;
		try {
			const started = Date.now();
			const sub = await runWorkflow({ nodes: [{ name: 'Submit', type: new GenGatewayImageSubmit(), parameters: { operation: 'generate', mode: 'async', model: model('alpha-image-2.5'), prompt: 'x', size: '1024x1024' } }], input: Array.from({ length: ITEMS }, () => ({ json: {} })), credentials: creds() });
			void started;
			const t0 = Date.now();
			const r = await runWorkflow({ nodes: [{ name: 'Wait', type: new GenGatewayTaskWait(), parameters: { taskId: '={{ $json.task_id }}', taskKind: 'auto', options: { maxWaitSeconds: 0.5 } } }], input: sub.output('Submit'), credentials: creds() });
			const overrun = Date.now() - t0 - 500;
			const row = await record('deadline reached', { ...r, output: (n: string, o?: number) => (n === 'Submit' ? sub.output('Submit') : r.output(n, o)) } as RunResult, { overrun });
			expectClean(row);
			expect(row.outcome).toBe('ok 0, failed 0, running 3');
			expect(overrun).toBeLessThanOrEqual(POLL_MS + 250);
		} finally {
			slow.taskLatencyMs = before;
		}
	});

	it('cancel during a wait: polling stops, nothing is resubmitted', async () => {
		const slow = sim.state.opts as { taskLatencyMs: number };
		const before = slow.taskLatencyMs;
		slow.taskLatencyMs = 60_000;
		try {
			const r = await runWorkflow({
				nodes: [
					{ name: 'Submit', type: new GenGatewayImageSubmit(), parameters: { operation: 'generate', mode: 'async', model: model('alpha-image-2.5'), prompt: 'x', size: '1024x1024' } },
					{ name: 'Wait', type: new GenGatewayTaskWait(), parameters: { taskId: '={{ $json.task_id }}', taskKind: 'auto', options: {} } },
				],
				input: Array.from({ length: ITEMS }, () => ({ json: {} })),
				credentials: creds(),
				cancelAfterMs: 400,
			});
			const polls = sim.log.filter((l) => l.method === 'GET').length;
			await new Promise((res) => setTimeout(res, 300));
			expect(sim.log.filter((l) => l.method === 'GET').length).toBe(polls);
			rows.push({ scenario: 'cancel during a wait', postsPerItem: sim.log.filter((l) => l.method === 'POST').length / ITEMS, keyOffOrigin: 0, redirectsFollowed: 0, itemsInOut: `${ITEMS}→cancelled`, taskIdsKept: true, deadlineOverrunMs: '-', falseSuccess: 0, outcome: r.run.status });
			expect(sim.log.filter((l) => l.method === 'POST')).toHaveLength(ITEMS);
		} finally {
			slow.taskLatencyMs = before;
		}
	});

	it('SSE cut mid-stream: an error, never a truncated answer; one POST', async () => {
		const r = await runWorkflow({
			nodes: [{ name: 'Chat', type: new GenGatewayChat(), parameters: { model: model('alpha-chat-4o'), messagesFrom: 'ui', messages: { values: [{ role: 'user', content: '={{ $json.p }}' }] }, stream: true }, onError: 'continueRegularOutput' }],
			input: Array.from({ length: ITEMS }, (_, k) => ({ json: { p: k === 1 ? 'cut [cut]' : `fine ${k}` } })),
			credentials: creds(),
		});
		const out = r.output('Chat');
		expect(out).toHaveLength(ITEMS);
		expect(String(out[1].json.error)).toMatch(/ended before \[DONE\]|broke off/);
		expect(out.filter((o) => typeof o.json.text === 'string')).toHaveLength(2);
		rows.push({ scenario: 'SSE cut mid-stream (chat)', postsPerItem: sim.log.filter((l) => l.method === 'POST').length / ITEMS, keyOffOrigin: 0, redirectsFollowed: 0, itemsInOut: `${ITEMS}→${out.length}`, taskIdsKept: true, deadlineOverrunMs: '-', falseSuccess: 0, outcome: 'ok 2, error 1' });
		expect(sim.log.filter((l) => l.method === 'POST')).toHaveLength(ITEMS);
	});
});
