/**
 * P1: a batch of N prompts through Image Submit → Task Wait, the node code users run, in n8n-core's WorkflowExecute
 * (and once in a real n8n), against the simulator with realistic knobs: a submission answered 0.8 s after the gateway
 * starts it, each task finishing 20 s later (poll_after_ms 3000), 1.5 MB PNGs served at 10 MB/s per connection with
 * 250 ms to the first byte; two gateways: one that starts 50 submissions a second (the rest wait in its queue, so its
 * answers slow down when it is given more), and one that answers 429 + Retry-After beyond 4 concurrent submissions.
 *
 * Floor (see floorMs): the time the gateway itself needs to accept N submissions at its pace or limit, then the last
 * one's task, one poll interval and one download. Baseline: the common pattern, each item submitted and waited for
 * before the next (measured on a few items, scaled to N).
 */
import type { INodeExecutionData } from 'n8n-workflow';
import { startSimulator, type Simulator } from '../simulator';
import { removeBinaryStore, runChain, type ChainNode } from './n8n-core';
import { PACKAGE_NAME } from '../scripts/lib/repo';
import { executeWorkflow } from '../scripts/lib/n8n/cli';
import { importCredentials, importWorkflow } from '../scripts/lib/n8n/imports';
import { newState, removeState } from '../scripts/lib/n8n/state';

// the built package (npm run bench builds it first): the code users install, not the sources beside it
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { GenGatewayImageSubmit, GenGatewayTaskWait } =
	require('../dist') as typeof import('../index');

export const KNOBS = {
	submitLatencyMs: 800,
	taskLatencyMs: 20_000,
	pollAfterMs: 3000,
	resultTtfbMs: 250,
	/** 80 Mbit/s per connection */
	resultBandwidth: 10_000_000,
	imageBytes: 1_500_000,
	submitRetryAfterSec: 1,
	/** the paced gateway: submissions it starts a second (the others wait in its queue) */
	submitsPerSecond: 50,
};

/** A gateway of the benchmark: its acceptance pace (submissions started a second) or its concurrency limit (429 beyond). */
export interface Gateway {
	perSecond?: number;
	limit?: number;
}

export const gatewayName = (g: Gateway) =>
	[g.perSecond ? `${g.perSecond}/s` : '', g.limit ? `limit ${g.limit}` : '']
		.filter(Boolean)
		.join(', ') || 'unlimited';

export interface PaidItemsRow {
	n: number;
	gateway: Gateway;
	wallMs: number;
	floorMs: number;
	completed: number;
	/** accepted (2xx) POSTs per item: must be 1 */
	acceptedPerItem: number;
	refused429: number;
	/** the one-at-a-time pattern for N items (measured on a few, scaled) */
	oneAtATimeMs: number;
	where: 'n8n-core' | 'real n8n';
	/** submissions in flight at the gateway (answered or waiting in its queue) while the batch was sent: the window seen from outside */
	window: { max: number; mean: number };
	/** when the last submission and the first and last download reached the gateway, s from its first POST */
	phases: ReturnType<typeof phases>;
}

/**
 * The floor: the gateway accepts the N submissions no faster than its pace ((N − 1) / pace + one submission's 0.8 s)
 * or its concurrency limit (ceil(N / limit) rounds of 0.8 s); the last one's task takes 20 s, is seen at most one poll
 * interval (3 s) later, and its 1.5 MB PNG downloads at 10 MB/s after 250 ms to the first byte. Everything else (our
 * own windows, polls, downloads of the other items, CPU) is ours to hide.
 */
export function floorMs(n: number, g: Gateway): number {
	const download = KNOBS.resultTtfbMs + (KNOBS.imageBytes / KNOBS.resultBandwidth) * 1000;
	const paced = g.perSecond ? ((n - 1) / g.perSecond) * 1000 + KNOBS.submitLatencyMs : 0;
	const limited = g.limit ? Math.ceil(n / g.limit) * KNOBS.submitLatencyMs : 0;
	const accepted = Math.max(paced, limited, KNOBS.submitLatencyMs);
	return accepted + KNOBS.taskLatencyMs + KNOBS.pollAfterMs + download;
}

const model = (value: string) => ({ __rl: true, mode: 'id', value });
const submitParams = {
	operation: 'generate',
	mode: 'async',
	model: model('alpha-image-2.5'),
	prompt: '={{ $json.p }}',
	size: '1024x1024',
	options: {},
};
const waitParams = { taskId: '={{ $json.task_id }}', taskKind: 'auto', options: {} };

async function simulator(g: Gateway = {}): Promise<Simulator> {
	return startSimulator({
		quiet: true,
		imageFormat: 'png',
		...KNOBS,
		submitsPerSecond: g.perSecond ?? Infinity,
		...(g.limit ? { maxConcurrentSubmits: g.limit } : {}),
	} as Parameters<typeof startSimulator>[0]);
}

/** Samples the gateway's submissions in flight every 20 ms from its first POST to its last answer to one. */
function watchWindow(sim: Simulator): () => { max: number; mean: number } {
	const samples: number[] = [];
	const t = setInterval(() => {
		if (sim.state.submitsInFlight > 0 || samples.length) samples.push(sim.state.submitsInFlight);
	}, 20);
	return () => {
		clearInterval(t);
		// up to the last sample that saw a submission in flight (Task Wait's part is not the window's)
		let end = samples.length;
		while (end > 0 && samples[end - 1] === 0) end--;
		const used = samples.slice(0, end);
		return {
			max: sim.state.submitsInFlightPeak,
			mean: used.length ? used.reduce((a, b) => a + b, 0) / used.length : 0,
		};
	};
}

/** When things reached the gateway, from its first POST: the last submission, the first and last download (s). */
function phases(sim: Simulator): {
	lastSubmit: number;
	firstPoll: number;
	firstDownload: number;
	lastDownload: number;
} {
	const posts = sim.log.filter((l) => l.method === 'POST').map((l) => l.time);
	const polls = sim.log
		.filter((l) => l.method === 'GET' && l.server === 'gateway' && /tasks\//.test(l.path))
		.map((l) => l.time);
	const downloads = sim.log.filter((l) => l.server === 'result').map((l) => l.time);
	const min = (xs: number[]) => xs.reduce((a, b) => Math.min(a, b), Infinity);
	const max = (xs: number[]) => xs.reduce((a, b) => Math.max(a, b), -Infinity);
	const t0 = min(posts);
	const s = (t: number) => (t - t0) / 1000;
	return {
		lastSubmit: s(max(posts)),
		firstPoll: s(min(polls)),
		firstDownload: s(min(downloads)),
		lastDownload: s(max(downloads)),
	};
}

function counts(sim: Simulator) {
	const posts = sim.log.filter((l) => l.method === 'POST');
	return {
		accepted: posts.filter((l) => l.status >= 200 && l.status < 300).length,
		refused: posts.filter((l) => l.status === 429).length,
	};
}

const prompts = (n: number) =>
	Array.from({ length: n }, (_, k) => ({ json: { p: `bench prompt ${k}` } }));
const credential = (sim: Simulator) => ({
	type: 'genGatewayApi',
	data: { apiKey: sim.keys.demo, baseUrl: sim.baseUrl },
});

/** Image Submit → Task Wait in n8n-core on N items. */
async function inProcess(
	sim: Simulator,
	n: number,
): Promise<{ wallMs: number; completed: number }> {
	const nodes: ChainNode[] = [
		{ name: 'Submit', type: new GenGatewayImageSubmit(), parameters: submitParams },
		{ name: 'Wait', type: new GenGatewayTaskWait(), parameters: waitParams },
	];
	const t0 = Date.now();
	const r = await runChain(nodes, prompts(n), credential(sim));
	const wallMs = Date.now() - t0;
	if (r.error) throw new Error(`the batch failed: ${r.error}`);
	return {
		wallMs,
		completed: r.output('Wait', 0).filter((i: INodeExecutionData) => i.binary?.data).length,
	};
}

/** The common pattern: each item submitted and waited for (Image Submit with Wait for Result) before the next. */
async function oneAtATime(sim: Simulator, items: number): Promise<number> {
	const t0 = Date.now();
	for (let k = 0; k < items; k++) {
		const r = await runChain(
			[
				{
					name: 'Submit',
					type: new GenGatewayImageSubmit(),
					parameters: { ...submitParams, options: { waitForResult: true } },
				},
			],
			prompts(1),
			credential(sim),
		);
		if (r.output('Submit')[0]?.json.status !== 'completed')
			throw new Error('one-at-a-time item did not complete');
	}
	return (Date.now() - t0) / items;
}

/** The same batch in a real n8n: Manual Trigger → Code (N prompts) → Image Submit → Task Wait, timed from n8n's run data. */
async function inRealN8n(
	sim: Simulator,
	n: number,
): Promise<{ wallMs: number; completed: number }> {
	const state = await newState();
	try {
		const cred = { id: 'ggbenchcred', name: 'Gateway' };
		await importCredentials(state, [
			{ ...cred, type: 'genGatewayApi', data: { apiKey: sim.keys.demo, baseUrl: sim.baseUrl } },
		]);
		const ours = (name: string, type: string, parameters: Record<string, unknown>) => ({
			name,
			type: `${PACKAGE_NAME}.${type}`,
			typeVersion: 1,
			parameters,
			credentials: { genGatewayApi: cred },
		});
		const nodes = [
			{ name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, parameters: {} },
			{
				name: 'Prompts',
				type: 'n8n-nodes-base.code',
				typeVersion: 2,
				parameters: {
					jsCode: `return Array.from({ length: ${n} }, (_, k) => ({ json: { p: 'bench prompt ' + k } }));`,
				},
			},
			ours('Submit', 'genGatewayImageSubmit', submitParams),
			ours('Wait', 'genGatewayTaskWait', waitParams),
		].map((x, k) => ({ id: `b${k}`, position: [k * 200, 0], ...x }));
		const connections = Object.fromEntries(
			nodes
				.slice(1)
				.map((x, k) => [nodes[k].name, { main: [[{ node: x.name, type: 'main', index: 0 }]] }]),
		);
		await importWorkflow(state, {
			id: 'ggbenchbatch',
			name: 'bench batch',
			active: false,
			nodes,
			connections,
			settings: { executionOrder: 'v1' },
		});
		const res = await executeWorkflow(state, 'ggbenchbatch', { timeoutMs: 20 * 60_000 });
		const runData = res.data?.data?.resultData?.runData as
			| Record<
					string,
					Array<{
						startTime: number;
						executionTime: number;
						data?: { main?: Array<Array<{ binary?: unknown }> | null> };
					}>
			  >
			| undefined;
		const submit = runData?.Submit?.[0];
		const wait = runData?.Wait?.[0];
		if (res.code !== 0 || !submit || !wait)
			throw new Error(`n8n execute failed (${res.code}): ${res.stderr.slice(-1500)}`);
		return {
			wallMs: wait.startTime + wait.executionTime - submit.startTime,
			completed: (wait.data?.main?.[0] ?? []).filter((i) => i.binary).length,
		};
	} finally {
		removeState(state);
	}
}

export async function benchPaidItems(
	sizes = [10, 100, 500, 2000],
	gateways: Array<{ gateway: Gateway; sizes?: number[] }> = [
		{ gateway: { perSecond: KNOBS.submitsPerSecond } },
		{ gateway: { limit: 4 }, sizes: [10, 100, 500] },
	],
	baselineItems = 2,
	realN = 100,
): Promise<PaidItemsRow[]> {
	const rows: PaidItemsRow[] = [];
	let perItemMs = 0;
	const row = (
		sim: Simulator,
		n: number,
		gateway: Gateway,
		r: { wallMs: number; completed: number },
		window: { max: number; mean: number },
		where: PaidItemsRow['where'],
	): PaidItemsRow => {
		const c = counts(sim);
		const out: PaidItemsRow = {
			n,
			gateway,
			wallMs: r.wallMs,
			floorMs: floorMs(n, gateway),
			completed: r.completed,
			acceptedPerItem: c.accepted / n,
			refused429: c.refused,
			oneAtATimeMs: perItemMs * n,
			where,
			window,
			phases: phases(sim),
		};
		process.stdout.write(
			`  ${where} N=${n} gateway ${gatewayName(gateway)}: ${(r.wallMs / 1000).toFixed(1)} s (floor ${(out.floorMs / 1000).toFixed(1)} s, ${(r.wallMs / out.floorMs).toFixed(2)} ×), ${r.completed}/${n} completed, ${out.acceptedPerItem.toFixed(2)} accepted POSTs per item, ${c.refused} × 429, in flight at the gateway max ${window.max} mean ${window.mean.toFixed(1)}; last submission sent at ${out.phases.lastSubmit.toFixed(1)} s, first poll ${out.phases.firstPoll.toFixed(1)} s, downloads ${out.phases.firstDownload.toFixed(1)}–${out.phases.lastDownload.toFixed(1)} s\n`,
		);
		return out;
	};
	try {
		if (baselineItems > 0) {
			const base = await simulator();
			try {
				perItemMs = await oneAtATime(base, baselineItems);
			} finally {
				await base.stop();
			}
		}
		for (const g of gateways) {
			for (const n of g.sizes ?? sizes) {
				const sim = await simulator(g.gateway);
				try {
					const stop = watchWindow(sim);
					const r = await inProcess(sim, n);
					rows.push(row(sim, n, g.gateway, r, stop(), 'n8n-core'));
				} finally {
					await sim.stop();
					removeBinaryStore();
				}
			}
		}
		if (realN)
			for (const g of gateways) {
				const sim = await simulator(g.gateway);
				try {
					const stop = watchWindow(sim);
					const r = await inRealN8n(sim, realN);
					rows.push(row(sim, realN, g.gateway, r, stop(), 'real n8n'));
				} finally {
					await sim.stop();
				}
			}
	} finally {
		removeBinaryStore();
	}
	return rows;
}
