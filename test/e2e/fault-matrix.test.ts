/**
 * The rows of the fault matrix (test/reliability/scenarios.ts) whose outcome depends on n8n itself, in a real n8n
 * 2.41.1: n8n's Retry On Fail under each error setting, n8n's cancel (the workflow's Timeout Workflow), the key
 * echoed by the gateway (scanned for in n8n's output, run data and database), and the memory rows (the `n8n execute`
 * process's peak RSS under 200 MB answers, endless bodies and an endless stream). Every other row only exercises the
 * nodes' own code, which the in-process matrix (test/reliability/fault-matrix.test.ts) runs through n8n-core's
 * WorkflowExecute with the same rows and assertions; docs/ci.md names each. One workflow per scenario (Manual Trigger →
 * Code making the items → Image Submit → Task Wait, or → Chat), all imported with one n8n process, each run with
 * `n8n execute` after the scenario's faults are set on the simulator. Rows come from n8n's run data, the files in
 * its filesystem binary store and the simulator's request log; the table is printed and written to
 * out/fault-matrix-n8n.md. The cancel is n8n's own: the workflow setting `executionTimeout`.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startSimulator, type Simulator } from '../../simulator';
import { importWorkflows } from '../../scripts/demo/n8n-more';
import { mp4Problem } from '../../scripts/pipeline/judge';
import {
	ITEMS,
	POLL_MS,
	SCENARIOS,
	SCHEDULING_MARGIN_MS,
	TASK_LATENCY_MS,
	boundSeconds,
	chatRow,
	countKey,
	expectRow,
	falseSuccesses,
	imageRow,
	isFailedItem,
	renderTable,
	setTaskLatency,
	sortWaited,
	waitedRow,
	withMeasures,
	type BaseRow,
	type Item,
	type Row,
	type Scenario,
} from '../reliability/scenarios';
import { PACKAGE_NAME, ROOT } from '../../scripts/lib/repo';
import { N8N_HOME, N8N_NODE } from '../../scripts/lib/n8n/runtime';
import {
	executeWorkflow,
	nodeOutput,
	runFailure,
	type ExecuteResult,
} from '../../scripts/lib/n8n/cli';
import { importCredentials } from '../../scripts/lib/n8n/imports';
import { newState, removeState, removeTemplate } from '../../scripts/lib/n8n/state';

jest.setTimeout(600_000);

/** executionTimeout (s) of the cancel workflow: long enough for the Code node's task runner and the POSTs, on a loaded machine too (4 s was not: n8n cancelled before Task Wait started); the task takes 60 s */
const CANCEL_AFTER_S = 12;
const CRED = { id: 'ggfaultcred', name: 'Gateway' };
const wfId = (sc: Scenario) => `ggfault${String(SCENARIOS.indexOf(sc)).padStart(2, '0')}`;

/** the simulator faults whose rows measure the n8n process's memory */
const MEMORY_FAULTS = ['endless', 'oversize-json', 'sse-endless-deltas'];
/** whether a row's outcome depends on n8n itself (see the header) */
function dependsOnN8n(sc: Scenario): boolean {
	return (
		!!sc.retry ||
		!!sc.cancel ||
		sc.faults.some((f) => f.kind === 'echo-key' || MEMORY_FAULTS.includes(f.kind))
	);
}
const IN_N8N = SCENARIOS.filter(dependsOnN8n);
const model = (value: string) => ({ __rl: true, mode: 'id', value });

function toWorkflow(sc: Scenario): Record<string, unknown> {
	const ours = (name: string, type: string, parameters: Record<string, unknown>) => ({
		name,
		type: `${PACKAGE_NAME}.${type}`,
		typeVersion: 1,
		parameters,
		credentials: { genGatewayApi: CRED },
	});
	// n8n's Retry On Fail and error setting on the paid node, as the editor stores them
	const retry = (fallback?: string) => ({
		...(sc.retry ? { retryOnFail: true, maxTries: sc.retry.maxTries, waitBetweenTries: 0 } : {}),
		...((sc.retry?.onError ?? fallback) ? { onError: sc.retry?.onError ?? fallback } : {}),
	});
	const video = ours('Submit', 'genGatewayVideoCreate', {
		family: 'delta',
		model: model('delta-video-2-0-mini-260615'),
		prompt: '={{ $json.p }}',
		seconds: 5,
		resolution: '480p',
		ratio: '16:9',
		generateAudio: false,
		watermark: false,
		referenceImages: '',
	});
	const waitOptions = {
		maxWaitSeconds: sc.maxWaitSeconds ?? 0,
		...(sc.deadlineMinutes ? { deadlineMinutes: sc.deadlineMinutes } : {}),
		...(sc.maxVideoMiB ? { maxVideoMiB: sc.maxVideoMiB } : {}),
	};
	const submit =
		sc.pipeline === 'video'
			? video
			: {
					...ours('Submit', 'genGatewayImageSubmit', {
						operation: 'generate',
						mode: 'async',
						model: model('alpha-image-2.5'),
						prompt: '={{ $json.p }}',
						size: '1024x1024',
						options: {
							...(sc.submitTimeoutMs ? { submitTimeoutMs: sc.submitTimeoutMs } : {}),
							...(sc.pipeline === 'image-wait' ? { waitForResult: true } : {}),
						},
					}),
					...retry(),
				};
	const tail =
		sc.pipeline === 'chat'
			? [
					{
						...ours('Chat', 'genGatewayChat', {
							model: model('alpha-chat-4o'),
							messagesFrom: 'ui',
							messages: { values: [{ role: 'user', content: '={{ $json.p }}' }] },
							stream: true,
							options: sc.streamMaxMs ? { maxDurationMs: sc.streamMaxMs } : {},
						}),
						...retry('continueRegularOutput'),
					},
				]
			: sc.pipeline === 'image-wait'
				? [submit]
				: [
						submit,
						ours('Wait', 'genGatewayTaskWait', {
							taskId: '={{ $json.task_id }}',
							taskKind: 'auto',
							options: waitOptions,
						}),
					];
	const nodes = [
		{ name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, parameters: {} },
		{
			name: 'Items',
			type: 'n8n-nodes-base.code',
			typeVersion: 2,
			parameters: { jsCode: `return ${JSON.stringify(sc.prompts)}.map((p) => ({ json: { p } }));` },
		},
		...tail,
	].map((n, k) => ({ id: `${wfId(sc)}-${k}`, position: [k * 220, 0], ...n }));
	const connections = Object.fromEntries(
		nodes
			.slice(1)
			.map((n, k) => [nodes[k].name, { main: [[{ node: n.name, type: 'main', index: 0 }]] }]),
	);
	return {
		id: wfId(sc),
		name: `fault matrix: ${sc.name}`,
		active: false,
		nodes,
		connections,
		settings: { executionOrder: 'v1', ...(sc.cancel ? { executionTimeout: CANCEL_AFTER_S } : {}) },
	};
}

interface NodeRun {
	startTime: number;
	executionTime: number;
	error?: { message?: string };
	data?: { main?: Array<Item[] | null> };
}
type RunData = Record<string, NodeRun[]>;
const lastRun = (runData: RunData | undefined, node: string) => runData?.[node]?.at(-1);
const outputsOf = (run: NodeRun | undefined) => [0, 1, 2].map((k) => run?.data?.main?.[k] ?? []);

/**
 * The last execution of a workflow as n8n stored it in the state's database (`n8n execute` prints no run data for a
 * cancelled one). Undefined when n8n did not store its run data: on a cancel, n8n 2.41.1's `execute` command is
 * released at once (its post-execute promise is rejected) and closes the database while the cancelled run's save is
 * still under way, so on a loaded machine the row keeps the empty data it was created with.
 */
function storedExecution(
	state: string,
	workflowId: string,
): { status: string; runData: RunData } | undefined {
	const mods = join(N8N_HOME, 'app/node_modules');
	const script = `
const { Database } = require(${JSON.stringify(join(mods, 'sqlite3'))});
const { parse } = require(${JSON.stringify(join(mods, 'flatted'))});
new Database(process.argv[1]).get('select e.status, d.data from execution_entity e join execution_data d on d.executionId = e.id where e.workflowId = ? order by e.id desc limit 1', [process.argv[2]], (err, row) => {
	if (err || !row) throw err || new Error('no execution stored');
	const runData = parse(row.data)?.resultData?.runData;
	process.stdout.write(JSON.stringify(runData ? { status: row.status, runData } : null));
});`;
	return (
		JSON.parse(
			execFileSync(N8N_NODE, ['-e', script, join(state, '.n8n/database.sqlite'), workflowId], {
				encoding: 'utf8',
			}),
		) ?? undefined
	);
}

/**
 * The node, not one of this package's, in which n8n failed a run (e.g. the Code node that makes the items, whose task
 * runner is n8n's): such a run measured nothing of ours and is run once more. A failure in one of our nodes never is.
 */
function failedInOtherNode(sc: Scenario, res: ExecuteResult): string | undefined {
	if (res.code === 0) return undefined;
	const nodes = toWorkflow(sc).nodes as Array<{ name: string; type: string }>;
	const runData = (res.data?.data?.resultData?.runData ?? {}) as RunData;
	const failed = nodes.filter((n) => lastRun(runData, n.name)?.error);
	if (!failed.length || failed.some((n) => n.type.startsWith(`${PACKAGE_NAME}.`))) return undefined;
	return failed
		.map((n) => `'${n.name}' (${n.type}): ${lastRun(runData, n.name)?.error?.message ?? ''}`)
		.join('; ');
}

/** runs of a cancelled workflow before giving up on n8n storing its run data */
const CANCEL_RUNS = 3;

describe('fault matrix in real n8n', () => {
	let sim: Simulator;
	let state: string;
	const rows: Row[] = [];
	const notes: string[] = [];
	let baselineRssMiB = 0;
	const started = Date.now();

	beforeAll(async () => {
		sim = await startSimulator({
			quiet: true,
			taskLatencyMs: TASK_LATENCY_MS,
			pollAfterMs: POLL_MS,
			videoLatencyMs: 300,
			videoBytes: 200_000,
		});
		state = await newState();
		await importCredentials(state, [
			{ ...CRED, type: 'genGatewayApi', data: { apiKey: sim.keys.demo, baseUrl: sim.baseUrl } },
		]);
		await importWorkflows(state, IN_N8N.map(toWorkflow));
		// a plain run measures the n8n process's own peak memory, the base of the memory column
		baselineRssMiB =
			(await executeWorkflow(state, wfId(SCENARIOS[0]), { sampleRss: true })).peakRssMiB ?? 0;
		notes.push(
			`memory: peak RSS of each \`n8n execute\` process minus that of a plain run (${baselineRssMiB} MiB).`,
		);
	});
	afterAll(async () => {
		await sim.stop();
		removeState(state);
		removeTemplate();
		const table = renderTable(rows);
		mkdirSync(join(ROOT, 'out'), { recursive: true });
		writeFileSync(join(ROOT, 'out/fault-matrix-n8n.md'), `${table}\n\n${notes.join('\n')}\n`);
		process.stdout.write(
			`\nFault matrix in real n8n 2.41.1 (the ${rows.length} rows that depend on n8n, ${ITEMS} items per scenario, ${((Date.now() - started) / 1000).toFixed(0)} s)\n${table}\n${notes.join('\n')}\n`,
		);
	});
	beforeEach(() => sim.reset());

	it('runs the rows that depend on n8n: Retry On Fail under every error setting, the cancel, the echoed key, memory', () => {
		const onError = new Set(IN_N8N.map((sc) => sc.retry?.onError).filter(Boolean));
		expect([...onError].sort()).toEqual([
			'continueErrorOutput',
			'continueRegularOutput',
			'stopWorkflow',
		]);
		expect(IN_N8N.filter((sc) => sc.cancel)).toHaveLength(1);
		expect(
			IN_N8N.filter((sc) => sc.faults.some((f) => f.kind === 'echo-key'))
				.map((sc) => sc.pipeline)
				.sort(),
		).toEqual(['chat', 'image', 'image']);
		expect(
			IN_N8N.filter((sc) => sc.faults.some((f) => MEMORY_FAULTS.includes(f.kind))).length,
		).toBeGreaterThanOrEqual(4);
		expect(IN_N8N.length).toBeLessThan(SCENARIOS.length);
	});

	/** Completed items' files, read from n8n's filesystem binary store */
	const storedFile = async (item: Item): Promise<Buffer> => {
		const id = String((item.binary?.data as { id?: unknown } | undefined)?.id);
		const m = /^filesystem-v2:(.+)$/.exec(id);
		if (!m) throw new Error(`not in the filesystem store: ${id}`);
		return readFileSync(join(state, '.n8n/storage', m[1]));
	};

	function checkExecute(res: ExecuteResult): void {
		if (res.code !== 0 || res.data?.status !== 'success')
			throw new Error(`n8n execute failed: ${runFailure(res)}`);
	}

	/** completed videos whose stored file is not a whole MP4 */
	async function falseVideos(completed: Item[]): Promise<number> {
		let bad = 0;
		for (const item of completed) {
			try {
				if (mp4Problem(await storedFile(item))) bad++;
			} catch {
				bad++;
			}
		}
		return bad;
	}

	async function imageScenario(sc: Scenario, res: ExecuteResult): Promise<BaseRow> {
		const runData = res.data?.data?.resultData?.runData as RunData | undefined;
		let cancelledWith: string | undefined;
		let submitted: Item[];
		let waitRun: NodeRun | undefined;
		if (sc.cancel) {
			const exited = Date.now();
			const stored = storedExecution(state, wfId(sc));
			if (!stored)
				throw new Error(
					`n8n stored no run data for the cancelled run in ${CANCEL_RUNS} runs (see the notes)`,
				);
			expect(stored.status).toBe('canceled');
			submitted = outputsOf(lastRun(stored.runData, 'Submit'))[0];
			waitRun = lastRun(stored.runData, 'Wait');
			cancelledWith = waitRun?.error?.message;
			if (!waitRun)
				throw new Error(
					`n8n cancelled the run before Task Wait started: executionTimeout ${CANCEL_AFTER_S} s is too short on this machine`,
				);
			const cancelAt = waitRun.startTime + waitRun.executionTime;
			const ids = submitted.map((i) => String(i.json.task_id));
			const polls = () =>
				sim.log.filter((l) => l.method === 'GET' && ids.some((id) => l.path.endsWith(`/${id}`)));
			// Task Wait was polling when n8n cancelled it, and sent no query after that
			expect(polls().length).toBeGreaterThan(0);
			expect(polls().filter((l) => l.time > cancelAt)).toEqual([]);
			const seen = polls().length;
			await new Promise((r) => setTimeout(r, 1000));
			expect(polls()).toHaveLength(seen);
			notes.push(
				`cancel: executionTimeout ${CANCEL_AFTER_S} s; n8n ended Task Wait after ${cancelAt - waitRun!.startTime} ms of polling (${seen} queries, the last ${cancelAt - polls().at(-1)!.time} ms before, none after); the n8n process exited ${exited - cancelAt} ms later.`,
			);
		} else {
			checkExecute(res);
			submitted = nodeOutput(res, 'Submit');
			waitRun = lastRun(runData, 'Wait');
		}
		expect(submitted.filter((i) => i.json.submission_uncertain === true)).toHaveLength(
			sc.uncertain ?? 0,
		);
		const waitOutputs = sc.cancel ? [] : outputsOf(waitRun);
		let overrunMs: number | undefined;
		const bound = boundSeconds(sc);
		if (bound) {
			// from Task Wait's own deadline base (wait_started_at) to the end of its run as n8n timed it
			const base = new Set(
				waitOutputs
					.flat()
					.map((i) => i.json.wait_started_at)
					.filter((v) => typeof v === 'number'),
			);
			expect(base.size).toBeLessThanOrEqual(1);
			const [waitStartedAt] = base.size ? ([...base] as number[]) : [waitRun!.startTime];
			overrunMs = waitRun!.startTime + waitRun!.executionTime - (waitStartedAt + bound * 1000);
			notes.push(
				`${sc.name}: overrun = end of Task Wait's run (n8n's startTime + executionTime) - (its wait_started_at + ${bound} s) = ${overrunMs} ms; bound: poll interval ${POLL_MS} ms + scheduling margin ${SCHEDULING_MARGIN_MS} ms.`,
			);
		}
		const falseSuccess =
			sc.pipeline === 'video'
				? await falseVideos(waitOutputs[0] ?? [])
				: await falseSuccesses(waitOutputs[0] ?? [], storedFile);
		return imageRow(sc, {
			log: sim.log,
			submitted,
			waitOutputs,
			falseSuccess,
			overrunMs,
			cancelledWith,
		});
	}

	async function waitedScenario(sc: Scenario, res: ExecuteResult): Promise<BaseRow> {
		// money was spent: whatever the error setting, the node did not fail the execution
		checkExecute(res);
		const outputs = [nodeOutput(res, 'Submit', 0), nodeOutput(res, 'Submit', 1)];
		const falseSuccess = await falseSuccesses(sortWaited(outputs)[0], storedFile);
		const chargedTaskIds = sim.ledger
			.filter((l) => l.kind === 'charge' && l.taskId)
			.map((l) => l.taskId!);
		return waitedRow(sc, { log: sim.log, outputs, falseSuccess, chargedTaskIds });
	}

	function chatScenario(sc: Scenario, res: ExecuteResult): BaseRow {
		checkExecute(res);
		const out = nodeOutput(res, 'Chat');
		expect(out).toHaveLength(ITEMS);
		if (sc.error) {
			const failing = out[sc.errorItem ?? sc.prompts.findIndex((p) => p.includes('[cut]'))].json;
			expect(isFailedItem({ json: failing })).toBe(true);
			expect(String(failing.error_message)).toMatch(sc.error);
			expect(out.filter((o) => typeof o.json.text === 'string')).toHaveLength(ITEMS - 1);
		}
		const bound = boundSeconds(sc);
		const run = lastRun(res.data?.data?.resultData?.runData as RunData | undefined, 'Chat');
		return chatRow(sc, sim.log, out, bound && run ? run.executionTime - bound * 1000 : undefined);
	}

	/** the key in what the run left: n8n's output (run data included) and its database files */
	function keyLeaks(res: ExecuteResult): number {
		const db = ['database.sqlite', 'database.sqlite-wal']
			.map((f) => join(state, '.n8n', f))
			.filter((f) => existsSync(f));
		return (
			countKey(res.stdout + res.stderr, sim.keys.demo) +
			db.reduce((n, f) => n + countKey(readFileSync(f).toString('latin1'), sim.keys.demo), 0)
		);
	}

	it.each(IN_N8N.map((sc) => [sc.name, sc] as const))('%s', async (_name, sc) => {
		sim.fault(sc.faults);
		const restore = setTaskLatency(sim, sc.taskLatencyMs);
		let row: Row;
		try {
			let res = await executeWorkflow(state, wfId(sc), { sampleRss: true });
			for (
				let run = 1;
				sc.cancel && run < CANCEL_RUNS && !storedExecution(state, wfId(sc));
				run++
			) {
				notes.push(
					`cancel: run ${run} left no run data in n8n's database (the CLI exited before n8n saved the cancelled run); run again.`,
				);
				sim.reset();
				sim.fault(sc.faults);
				res = await executeWorkflow(state, wfId(sc), { sampleRss: true });
			}
			const other = failedInOtherNode(sc, res);
			if (other) {
				notes.push(
					`${sc.name}: n8n failed the run in its own node ${other}, not in a GenGateway node; run again.`,
				);
				sim.reset();
				sim.fault(sc.faults);
				res = await executeWorkflow(state, wfId(sc), { sampleRss: true });
			}
			const base =
				sc.pipeline === 'chat'
					? chatScenario(sc, res)
					: sc.pipeline === 'image-wait'
						? await waitedScenario(sc, res)
						: await imageScenario(sc, res);
			row = withMeasures(base, {
				keyLeaks: keyLeaks(res),
				memoryMiB: Math.max(0, (res.peakRssMiB ?? 0) - baselineRssMiB),
				log: sim.log,
			});
		} finally {
			restore();
		}
		rows.push(row);
		expectRow(row, sc);
	});
});
