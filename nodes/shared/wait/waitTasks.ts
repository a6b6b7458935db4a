/** Waits for many image/video tasks at once and classifies each: completed, failed or still running. */
import { GatewayHttpError, GatewayNetworkError } from '../errors';
import { pollAll, type PollStep } from '../poller';
import { normaliseImageTask, normaliseVideoTask, type NormalisedTask } from '../status';
import type { GatewayTransport, OriginKind } from '../transport/http';
import { backoffDelay, DEFAULT_RETRY } from '../transport/retry';

export interface WaitJob {
	index: number;
	taskId: string;
	kind: 'image' | 'video';
	origin: OriginKind;
	/** server-given relative poll path (image tasks) */
	pollPath?: string;
	pollUrl?: string;
	pollAfterMs?: number;
	deadline: number;
	/** first query right away (Task Wait) or after one interval (right after submitting) */
	initialDelayMs?: number;
}

export type WaitOutcome =
	| { state: 'completed'; task: NormalisedTask; raw: Record<string, unknown>; polls: number }
	| { state: 'failed'; error: string; task?: NormalisedTask; raw?: Record<string, unknown>; httpStatus?: number; polls: number }
	| { state: 'running'; task?: NormalisedTask; raw?: Record<string, unknown>; polls: number; lastError?: string };

export interface WaitOptions {
	maxConcurrency?: number;
	videoIntervalMs?: number;
	defaultPollAfterMs?: number;
}

const SAFE_PATH = /^\/v1\/(images\/tasks|image-tasks|images\/generations|images\/edits|tasks)\/[A-Za-z0-9_-]{1,200}$/;

/** Where to query a task: a safe relative poll path, a poll_url only on a trusted origin, else the standard path. */
export function queryPath(transport: GatewayTransport, job: WaitJob): string {
	if (job.kind === 'video') return `/v1/videos/${job.taskId}`;
	if (job.pollPath && SAFE_PATH.test(job.pollPath)) return job.pollPath;
	if (job.pollUrl && transport.trustedKind(job.pollUrl)) {
		const p = new URL(job.pollUrl).pathname;
		if (SAFE_PATH.test(p)) return p;
	}
	return `/v1/images/tasks/${job.taskId}`;
}

export async function waitForTasks(transport: GatewayTransport, jobs: WaitJob[], opts: WaitOptions = {}): Promise<WaitOutcome[]> {
	const state = new Map<WaitJob, { last?: NormalisedTask; raw?: Record<string, unknown>; lastError?: string; errors: number; polls: number }>();
	for (const j of jobs) state.set(j, { errors: 0, polls: 0 });
	return pollAll<WaitJob, WaitOutcome>({
		jobs,
		maxConcurrency: opts.maxConcurrency ?? 16,
		sleep: (ms) => transport.sleep(ms),
		signal: transport.signal,
		deadlineOf: (j) => j.deadline,
		initialDelayMs: (j) => j.initialDelayMs ?? 0,
		onDeadline: (j) => {
			const s = state.get(j)!;
			return { state: 'running', task: s.last, raw: s.raw, polls: s.polls, lastError: s.lastError };
		},
		poll: async (j): Promise<PollStep<WaitOutcome>> => {
			const s = state.get(j)!;
			s.polls++;
			const interval = j.kind === 'video' ? (opts.videoIntervalMs ?? 4000) : (s.last?.pollAfterMs ?? j.pollAfterMs ?? opts.defaultPollAfterMs ?? 3000);
			let body: Record<string, unknown>;
			try {
				const res = await transport.getJson<Record<string, unknown>>(queryPath(transport, j), { origin: j.origin, timeout: 'query', deadline: j.deadline, maxAttempts: 1 });
				body = res.body && typeof res.body === 'object' ? res.body : {};
			} catch (err) {
				if (err instanceof GatewayNetworkError && err.cancelled) throw err;
				if (err instanceof GatewayHttpError && (err.status === 429 || err.status >= 500)) {
					s.errors++;
					s.lastError = err.message;
					const wait = Math.max(interval, backoffDelay(s.errors, DEFAULT_RETRY, err.retryAfterMs));
					return { done: false, waitMs: wait, rateLimited: err.status === 429 };
				}
				if (err instanceof GatewayHttpError) {
					const why =
						err.status === 404
							? 'task not found (404): expired or cleaned up (terminal records are kept about 2 hours), a different key, or a wrong ID'
							: err.code === 'task_not_exist' || /task_not_exist/.test(err.gatewayMessage)
								? `task not found (${err.status} task_not_exist): wrong ID, or queried on another origin than the one that created it`
								: err.gatewayMessage;
					return { done: true, result: { state: 'failed', error: why, httpStatus: err.status, polls: s.polls, task: s.last, raw: s.raw } };
				}
				s.errors++;
				s.lastError = (err as Error).message;
				return { done: false, waitMs: Math.max(interval, backoffDelay(s.errors, DEFAULT_RETRY)) };
			}
			s.errors = 0;
			const task = j.kind === 'video' ? normaliseVideoTask(body) : normaliseImageTask(body);
			s.last = task;
			s.raw = body;
			if (task.phase === 'succeeded') return { done: true, result: { state: 'completed', task, raw: body, polls: s.polls } };
			if (task.phase === 'failed') return { done: true, result: { state: 'failed', error: task.error ?? 'task failed', task, raw: body, polls: s.polls } };
			const next = j.kind === 'video' ? interval : (task.pollAfterMs ?? interval);
			return { done: false, waitMs: Math.max(50, next) };
		},
	});
}
