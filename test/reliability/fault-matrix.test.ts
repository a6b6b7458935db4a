/**
 * Fault-injection matrix (in-process n8n workflows against the simulator) over the scenarios of ./scenarios.ts,
 * which test/e2e/fault-matrix.test.ts runs in a real n8n. Prints a table of scenarios with: POSTs per item (must
 * be 1), requests carrying the key to a non-gateway origin (0), redirects followed (0), items in = items out with
 * task_id kept, deadline overrun (≤ one poll interval), false successes (0); writes it to out/fault-matrix.md.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { INodeExecutionData } from 'n8n-workflow';
import { useSimulator } from '../harness/simulator';
import { GenGatewayChat } from '../../nodes/GenGatewayChat/GenGatewayChat.node';
import { GenGatewayImageSubmit } from '../../nodes/GenGatewayImageSubmit/GenGatewayImageSubmit.node';
import { GenGatewayTaskWait } from '../../nodes/GenGatewayTaskWait/GenGatewayTaskWait.node';
import { GenGatewayVideoCreate } from '../../nodes/GenGatewayVideoCreate/GenGatewayVideoCreate.node';
import { mp4Problem } from '../../scripts/pipeline/judge';
import { cleanupBinaryData, runWorkflow, type RunResult, type TestNode } from '../harness/workflow';
import {
	ITEMS,
	POLL_MS,
	SCENARIOS,
	TASK_LATENCY_MS,
	boundSeconds,
	chatRow,
	countKey,
	expectRow,
	falseSuccesses,
	imageRow,
	isFailedItem,
	renderTable,
	rssSampler,
	setTaskLatency,
	sortWaited,
	waitedRow,
	withMeasures,
	type BaseRow,
	type Row,
	type Scenario,
} from './scenarios';

jest.setTimeout(300_000);

const sim = useSimulator({
	quiet: true,
	taskLatencyMs: TASK_LATENCY_MS,
	pollAfterMs: POLL_MS,
	videoLatencyMs: 300,
	videoBytes: 200_000,
});
const rows: Row[] = [];
beforeAll(async () => {
	// one plain run first, so the first row's memory is not the loading of n8n-core and the nodes
	await runWorkflow({
		nodes: [submitNode(SCENARIOS[0]), waitNode(SCENARIOS[0])],
		input: [{ json: { p: 'warm-up' } }],
		credentials: creds(),
	});
});
afterAll(async () => {
	cleanupBinaryData();
	const table = renderTable(rows);
	mkdirSync(join(__dirname, '../../out'), { recursive: true });
	writeFileSync(join(__dirname, '../../out/fault-matrix.md'), `${table}\n`);
	process.stdout.write(`\nFault matrix (${ITEMS} items per scenario)\n${table}\n`);
});

const model = (value: string) => ({ __rl: true, mode: 'id', value });
const creds = () => ({ apiKey: sim.keys.demo, baseUrl: sim.baseUrl });
const input = (sc: Scenario) => sc.prompts.map((p) => ({ json: { p } }));
const retry = (sc: Scenario, fallback?: TestNode['onError']): Partial<TestNode> => ({
	onError: sc.retry?.onError ?? fallback,
	...(sc.retry ? { retryOnFail: true, maxTries: sc.retry.maxTries, waitBetweenTries: 0 } : {}),
});
const videoNode = (): TestNode => ({
	name: 'Submit',
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
		referenceImages: '',
	},
});
const submitNode = (sc: Scenario): TestNode =>
	sc.pipeline === 'video'
		? videoNode()
		: {
				name: 'Submit',
				type: new GenGatewayImageSubmit(),
				parameters: {
					operation: 'generate',
					mode: 'async',
					model: model('alpha-image-2.5'),
					prompt: '={{ $json.p }}',
					size: '1024x1024',
					options: {
						...(sc.submitTimeoutMs ? { submitTimeoutMs: sc.submitTimeoutMs } : {}),
						...(sc.pipeline === 'image-wait' ? { waitForResult: true } : {}),
					},
				},
				...retry(sc),
			};
const waitNode = (sc: Scenario): TestNode => ({
	name: 'Wait',
	type: new GenGatewayTaskWait(),
	parameters: {
		taskId: '={{ $json.task_id }}',
		taskKind: 'auto',
		options: {
			maxWaitSeconds: sc.maxWaitSeconds ?? 0,
			...(sc.deadlineMinutes ? { deadlineMinutes: sc.deadlineMinutes } : {}),
			...(sc.maxVideoMiB ? { maxVideoMiB: sc.maxVideoMiB } : {}),
		},
	},
});
/** everything the run produced: items, errors, hints (the key must appear nowhere in it) */
const keyLeaks = (r: RunResult) => countKey(JSON.stringify(r.run), sim.keys.demo);
let leaks = 0;
/** completed videos whose stored file is not a whole MP4 */
async function falseVideos(
	r: RunResult,
	completed: Array<{ json: Record<string, unknown> }>,
): Promise<number> {
	let bad = 0;
	for (const item of completed) {
		try {
			if (mp4Problem(await r.binaryBuffer(item as INodeExecutionData))) bad++;
		} catch {
			bad++;
		}
	}
	return bad;
}
const gets = () => sim.log.filter((l) => l.method === 'GET').length;

async function imageScenario(sc: Scenario): Promise<BaseRow> {
	let overrunMs: number | undefined;
	let submit: RunResult;
	let r: RunResult;
	const bound = boundSeconds(sc);
	if (bound) {
		// submitted in a run of its own, so the measured time is Task Wait's alone
		submit = await runWorkflow({ nodes: [submitNode(sc)], input: input(sc), credentials: creds() });
		const t0 = Date.now();
		r = await runWorkflow({
			nodes: [waitNode(sc)],
			input: submit.output('Submit'),
			credentials: creds(),
		});
		overrunMs = Date.now() - t0 - bound * 1000;
		leaks += keyLeaks(submit);
	} else {
		// the cancel comes once every item's task was accepted and Task Wait polls (not after a fixed time: on a loaded
		// machine a timer could fire while a paid POST is in flight, and that item would rightly come out uncertain)
		let watch: NodeJS.Timeout | undefined;
		const onStart = (p: { cancel: () => void }) => {
			watch = setInterval(() => {
				const accepted = sim.log.filter((l) => l.method === 'POST' && l.status < 300).length;
				if (
					accepted >= sc.prompts.length &&
					sim.log.some((l) => l.method === 'GET' && l.path.startsWith('/v1/images/tasks/'))
				) {
					clearInterval(watch);
					p.cancel();
				}
			}, 20);
		};
		try {
			r = await runWorkflow({
				nodes: [submitNode(sc), waitNode(sc)],
				input: input(sc),
				credentials: creds(),
				...(sc.cancel ? { onStart } : {}),
			});
		} finally {
			clearInterval(watch);
		}
		submit = r;
	}
	let cancelledWith: string | undefined;
	if (sc.cancel) {
		const waitRuns = r.run.data.resultData.runData.Wait;
		cancelledWith = waitRuns?.[waitRuns.length - 1].error?.message;
		// polling stopped: no query after the cancel (a query already on its way when the cancel came may still arrive
		// on a loaded machine: counted once those have landed, then nothing more for longer than a poll interval)
		await new Promise((res) => setTimeout(res, 200));
		const polls = gets();
		expect(polls).toBeGreaterThan(0);
		await new Promise((res) => setTimeout(res, 300));
		expect(gets()).toBe(polls);
	} else {
		expect(r.error).toBeUndefined();
	}
	const submitted = submit.output('Submit');
	expect(submitted.filter((i) => i.json.submission_uncertain === true)).toHaveLength(
		sc.uncertain ?? 0,
	);
	const waitOutputs = r.outputs('Wait');
	leaks += keyLeaks(r);
	const falseSuccess =
		sc.pipeline === 'video'
			? await falseVideos(r, waitOutputs[0] ?? [])
			: await falseSuccesses(waitOutputs[0] ?? [], (i) => r.binaryBuffer(i as INodeExecutionData));
	return imageRow(sc, {
		log: sim.log,
		submitted,
		waitOutputs,
		falseSuccess,
		overrunMs,
		cancelledWith,
	});
}

async function waitedScenario(sc: Scenario): Promise<BaseRow> {
	const r = await runWorkflow({ nodes: [submitNode(sc)], input: input(sc), credentials: creds() });
	leaks += keyLeaks(r);
	// money was spent: whatever the error setting, the node does not fail
	expect(r.error).toBeUndefined();
	const outputs = r.outputs('Submit');
	const falseSuccess = await falseSuccesses(sortWaited(outputs)[0], (i) =>
		r.binaryBuffer(i as INodeExecutionData),
	);
	const chargedTaskIds = sim.ledger
		.filter((l) => l.kind === 'charge' && l.taskId)
		.map((l) => l.taskId!);
	return waitedRow(sc, { log: sim.log, outputs, falseSuccess, chargedTaskIds });
}

async function chatScenario(sc: Scenario): Promise<BaseRow> {
	const t0 = Date.now();
	const r = await runWorkflow({
		nodes: [
			{
				name: 'Chat',
				type: new GenGatewayChat(),
				parameters: {
					model: model('alpha-chat-4o'),
					messagesFrom: 'ui',
					messages: { values: [{ role: 'user', content: '={{ $json.p }}' }] },
					stream: true,
					options: sc.streamMaxMs ? { maxDurationMs: sc.streamMaxMs } : {},
				},
				...retry(sc, 'continueRegularOutput'),
			},
		],
		input: input(sc),
		credentials: creds(),
	});
	const bound = boundSeconds(sc);
	const overrunMs = bound ? Date.now() - t0 - bound * 1000 : undefined;
	leaks += keyLeaks(r);
	expect(r.error).toBeUndefined();
	const out = r.output('Chat');
	expect(out).toHaveLength(ITEMS);
	if (sc.error) {
		const failing = out[sc.errorItem ?? sc.prompts.findIndex((p) => p.includes('[cut]'))].json;
		expect(isFailedItem({ json: failing })).toBe(true);
		expect(String(failing.error_message)).toMatch(sc.error);
		expect(out.filter((o) => typeof o.json.text === 'string')).toHaveLength(ITEMS - 1);
	}
	return chatRow(sc, sim.log, out, overrunMs);
}

describe('fault matrix', () => {
	beforeEach(() => sim.reset());

	it.each(SCENARIOS.map((sc) => [sc.name, sc] as const))('%s', async (_name, sc) => {
		sim.fault(sc.faults);
		const restore = setTaskLatency(sim, sc.taskLatencyMs);
		leaks = 0;
		const memory = rssSampler();
		let row: Row;
		try {
			const base =
				sc.pipeline === 'chat'
					? await chatScenario(sc)
					: sc.pipeline === 'image-wait'
						? await waitedScenario(sc)
						: await imageScenario(sc);
			row = withMeasures(base, { keyLeaks: leaks, memoryMiB: memory.stop(), log: sim.log });
		} finally {
			memory.stop();
			restore();
		}
		rows.push(row);
		expectRow(row, sc);
	});
});
