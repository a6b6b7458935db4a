/**
 * n8n queue mode for real (scripts/queue-mode.ts): Redis and PostgreSQL from Debian's packages, one main and two
 * workers, 100 image tasks and 10 video tasks through the demo workflows. The simulator's ledger and request log,
 * the files and n8n's database prove nothing was lost or duplicated and the key stayed home.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { imageSize } from 'image-size';
import { startSimulator, type Simulator } from '../../simulator';
import { CREDENTIAL_ID } from '../../scripts/demo/workflows';
import { executionsIn } from '../../scripts/queue/check';
import { startCluster } from '../../scripts/queue/cluster';
import { until } from '../../scripts/queue/services';
import { asWebhookWorkflow } from '../../scripts/queue/workflows';
import { runQueueMode, type QueueModeReport } from '../../scripts/queue-mode';
import { ROOT } from '../../scripts/lib/repo';
import { removeTemplate } from '../../scripts/lib/n8n/state';

jest.setTimeout(900_000);

describe('queue mode: one main, two workers, Redis, PostgreSQL', () => {
	let sim: Simulator;
	let out: string;
	let report: QueueModeReport;
	const lines: string[] = [];
	beforeAll(async () => {
		// an image task takes 6 s: the wait-loop's Task Wait (Max Wait 1 s) must still find it running on a loaded worker, so that
		// its execution is parked (with 2 s, one CI run's worker reached the task after it had finished)
		sim = await startSimulator({
			quiet: true,
			taskLatencyMs: 6000,
			pollAfterMs: 500,
			videoLatencyMs: 3000,
			videoBytes: 300_000,
		});
		out = mkdtempSync(join(tmpdir(), 'gg-queue-out-'));
		report = await runQueueMode({
			sim,
			outDir: out,
			images: 100,
			videos: 10,
			waitLoops: 2,
			log: (l) => lines.push(l),
		});
	});
	afterAll(async () => {
		await sim?.stop();
		rmSync(out, { recursive: true, force: true });
		removeTemplate();
	});

	it('every webhook call became one successful execution, shared by both workers', () => {
		expect(report.problems).toEqual([]);
		expect(report.plan.calls).toEqual({
			'text-to-image': 49,
			'wait-loop': 2,
			'delta-video': 5,
			'gamma-video': 5,
		});
		expect(report.executions).toHaveLength(61);
		expect(report.executions.every((e) => e.status === 'success')).toBe(true);
		expect(Object.keys(report.perWorker)).toEqual(['worker-1', 'worker-2']);
		for (const n of Object.values(report.perWorker)) expect(n).toBeGreaterThan(0);
		// each execution started once, except the parked wait-loop runs, which a worker started again on resume
		for (const e of report.executions)
			expect([e.workflow, e.workers.length]).toEqual([
				e.workflow,
				e.workflow === 'wait-loop' ? 2 : 1,
			]);
		expect(report.binaryDataMode).toBe('database');
	});

	it('the long-job loop parked its executions in the database (no worker held) and finished them after resuming', () => {
		const loops = report.executions.filter((e) => e.workflow === 'wait-loop');
		expect(loops).toHaveLength(2);
		expect(report.parked.sort()).toEqual(loops.map((e) => e.id).sort());
		// the task was polled in the first round, handed back Still Running, and completed after the resume
		for (const f of report.files['wait-loop']) {
			const id = f.path
				.split('/')
				.pop()!
				.replace(/\.[a-z0-9]+$/, '');
			const polls = sim.log
				.filter((l) => l.method === 'GET' && l.path.endsWith(`/${id}`))
				.map((l) => l.time);
			expect(polls.length).toBeGreaterThanOrEqual(2);
			expect(polls[polls.length - 1] - polls[0]).toBeGreaterThanOrEqual(60_000);
		}
	});

	it('the gateway saw one paid POST and one charge per task: 100 images, 10 videos', () => {
		const posts = sim.log.filter((l) => l.method === 'POST');
		expect(posts.filter((l) => l.path === '/v1/images/generations/async')).toHaveLength(100);
		expect(posts.filter((l) => l.path === '/v1/videos' && l.server === 'alt')).toHaveLength(10);
		expect(posts).toHaveLength(110);
		expect(posts.every((l) => l.auth && l.status < 300)).toBe(true);
		const charged = new Map<string, number>();
		for (const l of sim.ledger)
			if ((l.kind === 'charge' || l.kind === 'reserve') && l.taskId)
				charged.set(l.taskId, (charged.get(l.taskId) ?? 0) + 1);
		expect(charged.size).toBe(110);
		expect([...charged.values()].every((n) => n === 1)).toBe(true);
		// one written file per charged task, named by its task ID
		const written = Object.values(report.files)
			.flat()
			.map((f) =>
				f.path
					.split('/')
					.pop()!
					.replace(/\.(png|jpe?g|webp|mp4)$/, ''),
			);
		expect(written.sort()).toEqual([...charged.keys()].sort());
		expect(report.gateway).toMatchObject({
			posts: 110,
			tasks: 110,
			chargedOnce: 110,
			chargedTwice: [],
			filesWithoutCharge: [],
			chargesWithoutFile: [],
		});
		// results were downloaded without the key
		expect(sim.log.filter((l) => l.server === 'result').length).toBeGreaterThan(0);
		expect(sim.log.filter((l) => l.server === 'result' && l.auth)).toHaveLength(0);
	});

	it('the files are real: images of the requested size, MP4 videos', () => {
		const read = (p: string) => readFileSync(join(ROOT, p));
		expect(report.files['text-to-image']).toHaveLength(98);
		for (const f of report.files['text-to-image'])
			expect(imageSize(read(f.path))).toMatchObject({ type: 'png', width: 1536, height: 1024 });
		expect(report.files['wait-loop']).toHaveLength(2);
		for (const f of report.files['wait-loop'])
			expect(imageSize(read(f.path))).toMatchObject({ width: 1024, height: 1024 });
		for (const folder of ['delta-video', 'gamma-video']) {
			expect(report.files[folder]).toHaveLength(5);
			for (const f of report.files[folder])
				expect(read(f.path).subarray(4, 8).toString('latin1')).toBe('ftyp');
		}
	});

	it("the API key is nowhere in the database dump, the logs of main and workers, n8n's folder or the files", () => {
		expect(report.keyFound).toEqual([]);
		expect(lines.join('\n')).not.toContain(sim.keys.demo);
	});
});

describe('queue mode: a worker killed while its executions wait on the gateway', () => {
	it('n8n fails its jobs as stalled and never re-runs them on the other worker: no paid POST is sent twice', async () => {
		const sim = await startSimulator({ quiet: true, taskLatencyMs: 15_000, pollAfterMs: 500 });
		const out = mkdtempSync(join(tmpdir(), 'gg-queue-crash-'));
		const workflow = asWebhookWorkflow('text-to-image', { outDir: out, inputDir: out });
		mkdirSync(join(out, 'text-to-image'));
		// shorter job locks and stalled-job checks than n8n's defaults (60 s, 30 s), to keep the wait short
		const env = {
			QUEUE_WORKER_LOCK_DURATION: '6000',
			QUEUE_WORKER_LOCK_RENEW_TIME: '2000',
			QUEUE_WORKER_STALLED_INTERVAL: '3000',
		};
		const credentials = [
			{
				id: CREDENTIAL_ID,
				name: 'GenGateway account',
				type: 'genGatewayApi',
				data: { apiKey: sim.keys.demo, baseUrl: sim.baseUrl },
			},
		];
		const cluster = await startCluster(
			{ workers: 2, concurrency: 5, credentials, workflows: [workflow], fileAccess: [out], env },
			() => undefined,
		);
		try {
			const runs = 6;
			await Promise.all(
				Array.from({ length: runs }, (_, k) => cluster.trigger(workflow.path, { run: k })),
			);
			const posts = () => sim.log.filter((l) => l.method === 'POST');
			const started = (w: number) =>
				[...cluster.workers[w].output().matchAll(/Worker started execution (\d+)/g)].map(
					(m) => m[1],
				);
			await until(
				'all tasks submitted and all runs started',
				() => posts().length === runs * 2 && started(0).length + started(1).length === runs,
				60_000,
			);
			const victim = started(0).length >= started(1).length ? 0 : 1;
			const lost = started(victim);
			expect(lost.length).toBeGreaterThan(0);
			// every task is created and the executions are polling it: kill the worker (and its task runner) outright
			process.kill(-cluster.workers[victim].child.pid!, 'SIGKILL');
			// n8n's stalled-job check fails the dead worker's jobs, and their executions end as errors
			const survivor = cluster.workers[1 - victim];
			const others = started(1 - victim);
			const status = (ids: string[]) =>
				executionsIn(cluster.pg, new Map())
					.filter((e) => ids.includes(e.id))
					.map((e) => e.status);
			const failedAsStalled = () =>
				lost.every((id) =>
					cluster.main.output().includes(`job stalled more than maxStalledCount (execution ${id})`),
				);
			await until(
				"the dead worker's jobs failed as stalled, the others done",
				() =>
					failedAsStalled() &&
					status(lost).every((s) => s === 'error') &&
					status(others).every((s) => s === 'success'),
				150_000,
			);
			// nothing of the victim's was handed to the survivor, no POST was sent again, every task was charged once
			expect(
				[...survivor.output().matchAll(/Worker started execution (\d+)/g)]
					.map((m) => m[1])
					.filter((id) => lost.includes(id)),
			).toEqual([]);
			expect(posts()).toHaveLength(runs * 2);
			const charges = sim.ledger.filter((l) => l.kind === 'charge');
			expect(charges).toHaveLength(runs * 2);
			expect(new Set(charges.map((l) => l.taskId)).size).toBe(runs * 2);
			const lostStatus = status(lost);
			process.stdout.write(
				`killed worker's executions ${lost.join(', ')}: ${lostStatus.join(', ')}; POSTs ${posts().length} for ${runs * 2} tasks\n`,
			);
		} finally {
			await cluster.stop();
			await sim.stop();
			rmSync(out, { recursive: true, force: true });
		}
	});
});
