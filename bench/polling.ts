/**
 * P2: Task Wait's polling against the simulator (tasks submitted beforehand, so only the polling is measured):
 * polls per task vs the ideal ceil(L / poll_after_ms) + 1; shortest interval vs poll_after_ms and Retry-After.
 */
import { request } from 'undici';
import { startSimulator, type Simulator } from '../simulator';
import { normaliseBaseUrl } from '../nodes/shared/transport/baseUrl';
import { GatewayTransport } from '../nodes/shared/transport';
import { TaskWaiter, type WaitJob } from '../nodes/shared/tasks/wait';

async function submitMany(sim: Simulator, n: number): Promise<string[]> {
	const ids: string[] = [];
	const batch = 50;
	for (let k = 0; k < n; k += batch) {
		const res = await Promise.all(
			Array.from({ length: Math.min(batch, n - k) }, () =>
				request(`${sim.baseUrl}/v1/images/generations/async`, {
					method: 'POST',
					headers: { authorization: `Bearer ${sim.keys.demo}`, 'content-type': 'application/json' },
					body: JSON.stringify({ model: 'alpha-image-2', prompt: 'bench', size: '512x512' }),
				}).then((r) => r.body.json() as Promise<{ task_id: string }>),
			),
		);
		ids.push(...res.map((r) => r.task_id));
	}
	return ids;
}

function transportFor(sim: Simulator): GatewayTransport {
	return new GatewayTransport({ apiKey: sim.keys.demo, base: normaliseBaseUrl(sim.baseUrl) });
}

/** What Task Wait does: every task at once, each at its poll_after_ms, then the downloads. */
async function concurrentWait(sim: Simulator, ids: string[]): Promise<number> {
	const t = transportFor(sim);
	const start = Date.now();
	const jobs: WaitJob[] = ids.map((taskId, index) => ({
		index,
		taskId,
		kind: 'image',
		origin: 'base',
		deadline: start + 10 * 60_000,
	}));
	// one waiter for all tasks, each task through wait(): what Task Wait's WaitAndEmit runs
	const waiter = new TaskWaiter(t, { maxConcurrency: 16 });
	const out = await Promise.all(jobs.map((j) => waiter.wait(j)));
	await Promise.all(
		out.map(async (o) => {
			if (o.state !== 'completed') throw new Error(`task not completed: ${o.state}`);
			const res = await t.download(o.task.results[0].url!, { withKey: false });
			for await (const chunk of res.body) void chunk;
		}),
	);
	return Date.now() - start;
}

export interface PollingRow {
	n: number;
	latencyMs: number;
	pollsPerTask: number;
	idealPolls: number;
	shortestIntervalMs: number;
}

function pollStats(sim: Simulator, ids: string[]): { perTask: number; shortest: number } {
	const byTask = new Map<string, number[]>();
	for (const l of sim.log) {
		if (l.method !== 'GET' || !l.taskId || !ids.includes(l.taskId)) continue;
		(byTask.get(l.taskId) ?? byTask.set(l.taskId, []).get(l.taskId)!).push(l.time);
	}
	let total = 0;
	let shortest = Infinity;
	for (const times of byTask.values()) {
		total += times.length;
		for (let k = 1; k < times.length; k++) shortest = Math.min(shortest, times[k] - times[k - 1]);
	}
	return { perTask: total / Math.max(1, byTask.size), shortest };
}

/** P2: N tasks submitted at once, waited by the Task Wait engine; polls per task and their spacing. */
export async function benchPolling(
	sizes = [10, 100, 500],
	latencyMs = 10_000,
	pollAfterMs = 3000,
): Promise<PollingRow[]> {
	const rows: PollingRow[] = [];
	for (const n of sizes) {
		const sim = await startSimulator({
			quiet: true,
			taskLatencyMs: latencyMs,
			pollAfterMs,
			imageFormat: 'png',
		});
		try {
			const ids = await submitMany(sim, n);
			await concurrentWait(sim, ids);
			const stats = pollStats(sim, ids);
			rows.push({
				n,
				latencyMs,
				pollsPerTask: stats.perTask,
				idealPolls: Math.ceil(latencyMs / pollAfterMs) + 1,
				shortestIntervalMs: stats.shortest,
			});
		} finally {
			await sim.stop();
		}
	}
	return rows;
}

/** P2 with 429 + Retry-After on polls: the shortest gap after a 429 against the Retry-After asked for. */
export async function benchRetryAfter(
	retryAfterSec = 2,
): Promise<{ retryAfterMs: number; shortestAfter429Ms: number }> {
	const sim = await startSimulator({ quiet: true, taskLatencyMs: 6000, pollAfterMs: 500 });
	try {
		const ids = await submitMany(sim, 20);
		sim.fault({
			route: 're:^GET /v1/images/tasks/',
			kind: 'rate-limit',
			retryAfter: retryAfterSec,
			times: 15,
		});
		await concurrentWait(sim, ids);
		let shortest = Infinity;
		const byTask = new Map<string, Array<{ time: number; status: number }>>();
		for (const l of sim.log)
			if (l.method === 'GET' && l.taskId)
				(byTask.get(l.taskId) ?? byTask.set(l.taskId, []).get(l.taskId)!).push({
					time: l.time,
					status: l.status,
				});
		for (const polls of byTask.values())
			for (let k = 1; k < polls.length; k++)
				if (polls[k - 1].status === 429)
					shortest = Math.min(shortest, polls[k].time - polls[k - 1].time);
		// 429s are answered before the task ID is known to the log; count by path instead
		const by429 = sim.log
			.filter((l) => l.status === 429)
			.map((l) => ({ path: l.path, time: l.time }));
		for (const r of by429) {
			const next = sim.log.find((l) => l.path === r.path && l.time > r.time && l.method === 'GET');
			if (next) shortest = Math.min(shortest, next.time - r.time);
		}
		return { retryAfterMs: retryAfterSec * 1000, shortestAfter429Ms: shortest };
	} finally {
		await sim.stop();
	}
}
