/**
 * `npm run queue-mode`: the demo workflows in n8n's queue mode (scripts/queue/cluster.ts: private Redis and
 * PostgreSQL on loopback, one `n8n start`, two `n8n worker`), against the embedded gateway simulator or any
 * gateway given by GATEWAY_*. Starts text-to-image (2 images a run), wait-loop (1 image, parked by a 65 s Wait
 * and resumed), delta-video and gamma-video through their production webhooks, waits for every execution in the
 * database, then checks that nothing was lost or duplicated: every execution a success, each started by one
 * worker (a parked run: again on resume), one written file per task, one paid POST and one charge per task, the
 * work shared by the workers, and the API key nowhere in the database dump, n8n's folder, logs or the files.
 *
 *   npx tsx scripts/queue-mode.ts [--images 100] [--videos 10] [--wait-loops 2] [--workers 2] [--concurrency 10] [--out DIR]
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import type { Simulator } from '../simulator';
import { scriptGateway } from './gateway';
import { ROOT } from './lib/repo';
import { ensureN8n } from './lib/n8n/runtime';
import { removeTemplate } from './lib/n8n/state';
import { CREDENTIAL_ID } from './demo/workflows';
import {
	collectExecutions,
	executionsIn,
	gatewayView,
	keyPlaces,
	problemsOf,
	writtenFiles,
	type GatewayView,
	type QueueExecution,
} from './queue/check';
import { BINARY_DATA_MODE, startCluster } from './queue/cluster';
import type { SummaryFile } from './demo/summary';
import { asWebhookWorkflow, queuePlan, type QueuePlan } from './queue/workflows';

export interface QueueModeOptions {
	/** image tasks (default 100): `waitLoops` through wait-loop, the rest two a run through text-to-image */
	images?: number;
	/** video tasks, half delta-video, half gamma-video (default 10) */
	videos?: number;
	/** wait-loop runs (default 2) */
	waitLoops?: number;
	workers?: number;
	/** executions per worker at once (default 10) */
	concurrency?: number;
	outDir?: string;
	/** a simulator to run against instead of starting one (tests) */
	sim?: Simulator;
	log?: (line: string) => void;
}

export interface QueueModeReport {
	plan: QueuePlan;
	executions: QueueExecution[];
	/** executions started per worker */
	perWorker: Record<string, number>;
	/** wait-loop executions seen parked (status `waiting`) in the database while no worker held them */
	parked: string[];
	files: Record<string, SummaryFile[]>;
	/** places where the API key was found (must stay empty) */
	keyFound: string[];
	/** the simulator's view, when the run used one */
	gateway?: GatewayView;
	/** what went wrong, in words (empty when nothing was lost or duplicated) */
	problems: string[];
	/** from the first webhook call to the last execution finished */
	ms: number;
	binaryDataMode: string;
}

export async function runQueueMode(opts: QueueModeOptions = {}): Promise<QueueModeReport> {
	const log = opts.log ?? ((s: string) => process.stdout.write(`${s}\n`));
	const plan = queuePlan(opts.images ?? 100, opts.videos ?? 10, opts.waitLoops ?? 2);
	const outDir = opts.outDir ?? join(ROOT, 'out/queue-mode');
	const inputDir = join(outDir, 'input');

	ensureN8n();
	const gateway = await scriptGateway(opts.sim, 500_000);
	const { baseUrl, videoBaseUrl, apiKey, sim } = gateway;
	log(`[queue] ${gateway.describe}`);

	rmSync(outDir, { recursive: true, force: true });
	for (const dir of [inputDir, ...Object.keys(plan.calls).map((f) => join(outDir, f))])
		mkdirSync(dir, { recursive: true });
	const workflows = Object.keys(plan.calls).map((folder) =>
		asWebhookWorkflow(folder, { outDir, inputDir }),
	);
	const folderOf = new Map(workflows.map((w) => [String(w.json.id), w.folder]));
	try {
		const cluster = await startCluster(
			{
				workers: opts.workers ?? 2,
				concurrency: opts.concurrency ?? 10,
				credentials: [
					{
						id: CREDENTIAL_ID,
						name: 'GenGateway account',
						type: 'genGatewayApi',
						data: { apiKey, baseUrl, videoBaseUrl },
					},
				],
				workflows,
				fileAccess: [outDir, inputDir],
			},
			log,
		);
		try {
			const fired = Date.now();
			const calls = workflows.flatMap((w) =>
				Array.from({ length: plan.calls[w.folder] }, (_, k) => cluster.trigger(w.path, { run: k })),
			);
			await Promise.all(calls);
			log(`[queue] ${calls.length} webhook calls accepted; the workers run them`);
			const parked = new Set<string>();
			let last = '';
			for (const end = Date.now() + 15 * 60_000; ;) {
				const ex = executionsIn(cluster.pg, folderOf);
				for (const e of ex) if (e.status === 'waiting') parked.add(e.id);
				const done = ex.filter((e) => !['new', 'running', 'waiting'].includes(e.status)).length;
				const line = `[queue] ${done}/${calls.length} executions finished${ex.some((e) => e.status === 'waiting') ? `, ${ex.filter((e) => e.status === 'waiting').length} parked by a long Wait` : ''}`;
				if (line !== last) log((last = line));
				if (ex.length >= calls.length && done === ex.length) break;
				if (Date.now() > end) throw new Error(`executions not finished after 15 minutes: ${line}`);
				await new Promise((r) => setTimeout(r, 500));
			}
			const ms = Date.now() - fired;
			await cluster.stopN8n();

			const { executions, perWorker } = collectExecutions(cluster.pg, folderOf, cluster.workers);
			const files = writtenFiles(outDir, plan);
			const gateway = sim ? gatewayView(sim, Object.values(files).flat()) : undefined;
			const keyFound = keyPlaces(apiKey, {
				dump: cluster.pg.dump(),
				processes: [cluster.main, ...cluster.workers],
				stateDir: cluster.state,
				outDir,
			});
			const report = {
				plan,
				executions,
				perWorker,
				parked: [...parked],
				files,
				keyFound,
				gateway,
				ms,
				binaryDataMode: BINARY_DATA_MODE,
			};
			return { ...report, problems: problemsOf(report) };
		} finally {
			await cluster.stop();
		}
	} finally {
		await gateway.stop();
	}
}

export function summarise(r: QueueModeReport): string {
	const count = (xs: string[]) =>
		Object.entries(xs.reduce<Record<string, number>>((m, x) => ((m[x] = (m[x] ?? 0) + 1), m), {}))
			.map(([k, n]) => `${k} ${n}`)
			.join(', ');
	const files = Object.values(r.files).flat();
	return [
		`executions: ${r.executions.length} (${count(r.executions.map((e) => e.workflow))}); status: ${count(r.executions.map((e) => e.status))}`,
		`started per worker: ${Object.entries(r.perWorker)
			.map(([w, n]) => `${w} ${n}`)
			.join(', ')}; wait-loop runs parked in the database and resumed: ${r.parked.length}`,
		`files: ${Object.entries(r.files)
			.map(([w, f]) => `${w} ${f.length}`)
			.join(
				', ',
			)}${files.length ? ` (under ${relative(process.cwd(), join(ROOT, files[0].path, '../..')) || '.'})` : ''}`,
		...(r.gateway
			? [
					`gateway: ${r.gateway.posts} paid POSTs, ${r.gateway.tasks} tasks charged, ${r.gateway.chargedOnce} of them exactly once`,
				]
			: []),
		`binary data mode: ${r.binaryDataMode}; API key found in: ${r.keyFound.length ? r.keyFound.join(', ') : 'nothing (database dump, logs, n8n folder, files)'}`,
		`every execution finished ${(r.ms / 1000).toFixed(1)} s after the first webhook call`,
		r.problems.length
			? `PROBLEMS:\n- ${r.problems.join('\n- ')}`
			: 'nothing lost, nothing duplicated',
	].join('\n');
}

function parseArgs(argv: string[]): QueueModeOptions {
	const o: QueueModeOptions = {};
	const usage =
		'usage: npm run queue-mode -- [--images 100] [--videos 10] [--wait-loops 2] [--workers 2] [--concurrency 10] [--out DIR]';
	const num = (flag: string, v: string | undefined) => {
		const n = Number(v);
		if (v === undefined || !Number.isInteger(n) || n < 0)
			throw new Error(`${flag} needs a whole number, got "${v ?? ''}"; ${usage}`);
		return n;
	};
	for (let k = 0; k < argv.length; k++) {
		const a = argv[k];
		if (a === '--images') o.images = num(a, argv[++k]);
		else if (a === '--videos') o.videos = num(a, argv[++k]);
		else if (a === '--wait-loops') o.waitLoops = num(a, argv[++k]);
		else if (a === '--workers') o.workers = num(a, argv[++k]);
		else if (a === '--concurrency') o.concurrency = num(a, argv[++k]);
		else if (a === '--out') o.outDir = resolve(argv[++k]);
		else throw new Error(`unknown argument ${a}; ${usage}`);
	}
	return o;
}

if (require.main === module) {
	(async () => {
		const r = await runQueueMode(parseArgs(process.argv.slice(2)));
		process.stdout.write(`\n${summarise(r)}\n`);
		return r.problems.length === 0;
	})()
		.catch((err) => {
			console.error(`[queue] ${(err as Error).message}`);
			return false;
		})
		.then((ok) => {
			removeTemplate();
			process.exit(ok ? 0 : 1);
		});
}
