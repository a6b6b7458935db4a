/**
 * n8n queue mode for real (scripts/queue-mode.ts): Redis and PostgreSQL from Debian's packages, one main and two
 * workers, 100 image tasks and 10 video tasks through the demo workflows. The simulator's ledger and request log,
 * the files and n8n's database prove nothing was lost or duplicated and the key stayed home.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { imageSize } from 'image-size';
import { startSimulator, type Simulator } from '../../simulator';
import { runQueueMode, type QueueModeReport } from '../../scripts/queue-mode';
import { ROOT, removeTemplate } from './n8n';

jest.setTimeout(900_000);

describe('queue mode: one main, two workers, Redis, PostgreSQL', () => {
	let sim: Simulator;
	let out: string;
	let report: QueueModeReport;
	const lines: string[] = [];
	beforeAll(async () => {
		sim = await startSimulator({ quiet: true, taskLatencyMs: 2000, pollAfterMs: 500, videoLatencyMs: 3000, videoBytes: 300_000 });
		out = mkdtempSync(join(tmpdir(), 'gg-queue-out-'));
		report = await runQueueMode({ sim, outDir: out, images: 100, videos: 10, waitLoops: 2, log: (l) => lines.push(l) });
	});
	afterAll(async () => {
		await sim?.stop();
		rmSync(out, { recursive: true, force: true });
		removeTemplate();
	});

	it('every webhook call became one successful execution, shared by both workers', () => {
		expect(report.problems).toEqual([]);
		expect(report.plan.calls).toEqual({ 'text-to-image': 49, 'wait-loop': 2, 'delta-video': 5, 'gamma-video': 5 });
		expect(report.executions).toHaveLength(61);
		expect(report.executions.every((e) => e.status === 'success')).toBe(true);
		expect(Object.keys(report.perWorker)).toEqual(['worker-1', 'worker-2']);
		for (const n of Object.values(report.perWorker)) expect(n).toBeGreaterThan(0);
		// each execution started once, except the parked wait-loop runs, which a worker started again on resume
		for (const e of report.executions) expect([e.workflow, e.workers.length]).toEqual([e.workflow, e.workflow === 'wait-loop' ? 2 : 1]);
		expect(report.binaryDataMode).toBe('database');
	});

	it('the long-job loop parked its executions in the database (no worker held) and finished them after resuming', () => {
		const loops = report.executions.filter((e) => e.workflow === 'wait-loop');
		expect(loops).toHaveLength(2);
		expect(report.parked.sort()).toEqual(loops.map((e) => e.id).sort());
		// the task was polled in the first round, handed back Still Running, and completed after the resume
		for (const f of report.files['wait-loop']) {
			const id = f.path.split('/').pop()!.replace(/\.png$/, '');
			const polls = sim.log.filter((l) => l.method === 'GET' && l.path.endsWith(`/${id}`)).map((l) => l.time);
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
		for (const l of sim.ledger) if ((l.kind === 'charge' || l.kind === 'reserve') && l.taskId) charged.set(l.taskId, (charged.get(l.taskId) ?? 0) + 1);
		expect(charged.size).toBe(110);
		expect([...charged.values()].every((n) => n === 1)).toBe(true);
		// one written file per charged task, named by its task ID
		const written = Object.values(report.files).flat().map((f) => f.path.split('/').pop()!.replace(/\.(png|jpe?g|webp|mp4)$/, ''));
		expect(written.sort()).toEqual([...charged.keys()].sort());
		expect(report.gateway).toMatchObject({ posts: 110, tasks: 110, chargedOnce: 110, chargedTwice: [], filesWithoutCharge: [], chargesWithoutFile: [] });
		// results were downloaded without the key
		expect(sim.log.filter((l) => l.server === 'result').length).toBeGreaterThan(0);
		expect(sim.log.filter((l) => l.server === 'result' && l.auth)).toHaveLength(0);
	});

	it('the files are real: images of the requested size, MP4 videos', () => {
		const read = (p: string) => readFileSync(join(ROOT, p));
		expect(report.files['text-to-image']).toHaveLength(98);
		for (const f of report.files['text-to-image']) expect(imageSize(read(f.path))).toMatchObject({ type: 'png', width: 1536, height: 1024 });
		expect(report.files['wait-loop']).toHaveLength(2);
		for (const f of report.files['wait-loop']) expect(imageSize(read(f.path))).toMatchObject({ width: 1024, height: 1024 });
		for (const folder of ['delta-video', 'gamma-video']) {
			expect(report.files[folder]).toHaveLength(5);
			for (const f of report.files[folder]) expect(read(f.path).subarray(4, 8).toString('latin1')).toBe('ftyp');
		}
	});

	it('the API key is nowhere in the database dump, the logs of main and workers, n8n\'s folder or the files', () => {
		expect(report.keyFound).toEqual([]);
		expect(lines.join('\n')).not.toContain(sim.keys.demo);
	});
});
