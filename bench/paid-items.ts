/**
 * P1: a batch of N prompts through Image Submit → Task Wait, the node code users run, in n8n-core's WorkflowExecute
 * (and once in a real n8n), against the simulator with realistic knobs: a submission accepted after 0.8 s, each task
 * finishing 20 s later (poll_after_ms 3000), 1.5 MB PNGs served at 80 Mbit/s per connection with 250 ms to the first
 * byte; with and without a gateway that answers 429 + Retry-After beyond 4 concurrent submissions.
 *
 * Floor = one item's own path: submit + task + one poll interval + one download, plus ceil(N / limit) × submit when
 * the gateway limits concurrent submissions. Baseline: the common pattern, each item submitted and waited for before
 * the next (measured on a few items, scaled to N).
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
};

export interface PaidItemsRow {
	n: number;
	/** concurrent submissions the gateway accepts (429 beyond); undefined = no limit */
	limit?: number;
	wallMs: number;
	floorMs: number;
	completed: number;
	/** accepted (2xx) POSTs per item: must be 1 */
	acceptedPerItem: number;
	refused429: number;
	/** the one-at-a-time pattern for N items (measured on a few, scaled) */
	oneAtATimeMs: number;
	where: 'n8n-core' | 'real n8n';
}

export function floorMs(n: number, limit?: number): number {
	const download = KNOBS.resultTtfbMs + (KNOBS.imageBytes / KNOBS.resultBandwidth) * 1000;
	const one = KNOBS.submitLatencyMs + KNOBS.taskLatencyMs + KNOBS.pollAfterMs + download;
	return one + (limit ? Math.ceil(n / limit) * KNOBS.submitLatencyMs : 0);
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

async function simulator(limit?: number): Promise<Simulator> {
	return startSimulator({
		quiet: true,
		imageFormat: 'png',
		...KNOBS,
		...(limit ? { maxConcurrentSubmits: limit } : {}),
	} as Parameters<typeof startSimulator>[0]);
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
	sizes = [10, 100, 500],
	limits: Array<number | undefined> = [undefined, 4],
	baselineItems = 2,
	realN = 100,
): Promise<PaidItemsRow[]> {
	const rows: PaidItemsRow[] = [];
	let perItemMs = 0;
	try {
		const base = await simulator();
		try {
			perItemMs = await oneAtATime(base, baselineItems);
		} finally {
			await base.stop();
		}
		for (const limit of limits) {
			for (const n of sizes) {
				const sim = await simulator(limit);
				try {
					const { wallMs, completed } = await inProcess(sim, n);
					const c = counts(sim);
					rows.push({
						n,
						limit,
						wallMs,
						floorMs: floorMs(n, limit),
						completed,
						acceptedPerItem: c.accepted / n,
						refused429: c.refused,
						oneAtATimeMs: perItemMs * n,
						where: 'n8n-core',
					});
					process.stdout.write(
						`  N=${n}${limit ? ` limit ${limit}` : ''}: ${(wallMs / 1000).toFixed(1)} s (floor ${(floorMs(n, limit) / 1000).toFixed(1)} s)\n`,
					);
				} finally {
					await sim.stop();
					removeBinaryStore();
				}
			}
		}
		for (const limit of limits) {
			const sim = await simulator(limit);
			try {
				const { wallMs, completed } = await inRealN8n(sim, realN);
				const c = counts(sim);
				rows.push({
					n: realN,
					limit,
					wallMs,
					floorMs: floorMs(realN, limit),
					completed,
					acceptedPerItem: c.accepted / realN,
					refused429: c.refused,
					oneAtATimeMs: perItemMs * realN,
					where: 'real n8n',
				});
				process.stdout.write(
					`  real n8n N=${realN}${limit ? ` limit ${limit}` : ''}: ${(wallMs / 1000).toFixed(1)} s\n`,
				);
			} finally {
				await sim.stop();
			}
		}
	} finally {
		removeBinaryStore();
	}
	return rows;
}
