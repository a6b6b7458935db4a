/**
 * Waits for image/video tasks and classifies each: completed, failed or still running. One TaskWaiter serves a
 * whole execution: its tasks share one query window, and a task can join as soon as it was accepted.
 */
import { videoFamilyOf } from '../models';
import { GatewayHttpError, GatewayNetworkError } from '../errors';
import { minPollIntervalMs, Poller, type PollStep } from './poller';
import { TASK_ID_CHARS } from '../rules/taskId';
import { normaliseImageTask, normaliseVideoTask, type NormalisedTask } from './phases';
import type { GatewayTransport, OriginKind } from '../transport';
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
	/** the end of this execution's wait: the overall deadline, or sooner with Max Wait per Execution */
	deadline: number;
	/** the task's overall deadline (Deadline option, counted from wait_started_at): image downloads end by it */
	finalDeadline?: number;
	/** first query right away (Task Wait) or after one interval (right after submitting) */
	initialDelayMs?: number;
	/** video tasks: this item's query interval (else the waiter's) */
	videoIntervalMs?: number;
	/** video tasks, origin auto: the other configured origin, asked once if `origin` does not know the task */
	otherOrigin?: OriginKind;
	/** kind not known from the item: asked as an image first, then as this video task if the image endpoint does not know it */
	videoFallback?: { origin: OriginKind; otherOrigin?: OriginKind };
	/** video family read from the task object when the item did not say it */
	family?: 'delta' | 'gamma';
}

/** 404, or 400 task_not_exist: the origin asked does not know the task. */
export function isTaskNotFound(err: GatewayHttpError): boolean {
	return (
		err.status === 404 || err.code === 'task_not_exist' || /task_not_exist/.test(err.gatewayMessage)
	);
}

export type WaitOutcome =
	| { state: 'completed'; task: NormalisedTask; raw: Record<string, unknown>; polls: number }
	| {
			state: 'failed';
			error: string;
			task?: NormalisedTask;
			raw?: Record<string, unknown>;
			httpStatus?: number;
			polls: number;
	  }
	| {
			state: 'running';
			task?: NormalisedTask;
			raw?: Record<string, unknown>;
			polls: number;
			lastError?: string;
	  };

export interface WaitOptions {
	maxConcurrency?: number;
	/** after each poll of a task: its polls so far and what the gateway last said of it (./progress.ts) */
	onPoll?: (job: WaitJob, polls: number, task: NormalisedTask | undefined) => void;
	videoIntervalMs?: number;
	defaultPollAfterMs?: number;
}

export const DEFAULT_QUERY_CONCURRENCY = 16;
export const DEFAULT_VIDEO_INTERVAL_MS = 4000;
export const DEFAULT_POLL_AFTER_MS = 3000;

const SAFE_PATH = new RegExp(
	`^/v1/(images/tasks|image-tasks|images/generations|images/edits|tasks)/${TASK_ID_CHARS}$`,
);

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

/** A finite, positive interval or the fallback; never below once a second. */
function interval(value: number | undefined, fallback: number): number {
	const v = value !== undefined && Number.isFinite(value) && value > 0 ? value : fallback;
	return Math.max(minPollIntervalMs(), v);
}

interface JobState {
	last?: NormalisedTask;
	raw?: Record<string, unknown>;
	lastError?: string;
	errors: number;
	polls: number;
}

export class TaskWaiter {
	private readonly poller: Poller<WaitJob, WaitOutcome>;
	private readonly states = new WeakMap<WaitJob, JobState>();

	constructor(
		private readonly transport: GatewayTransport,
		private readonly opts: WaitOptions = {},
	) {
		this.poller = new Poller<WaitJob, WaitOutcome>({
			maxConcurrency: opts.maxConcurrency ?? DEFAULT_QUERY_CONCURRENCY,
			sleep: (ms) => transport.sleep(ms),
			signal: transport.signal,
			deadlineOf: (j) => j.deadline,
			initialDelayMs: (j) =>
				j.initialDelayMs ? interval(j.initialDelayMs, DEFAULT_POLL_AFTER_MS) : 0,
			onDeadline: (j) => {
				const s = this.state(j);
				return {
					state: 'running',
					task: s.last,
					raw: s.raw,
					polls: s.polls,
					lastError: s.lastError,
				};
			},
			onError: (j, err) => {
				const s = this.state(j);
				return {
					state: 'failed',
					error: `the task's answer could not be handled: ${(err as Error)?.message ?? String(err)}`,
					task: s.last,
					raw: s.raw,
					polls: s.polls,
				};
			},
			poll: async (j) => {
				const step = await this.pollOnce(j);
				const s = this.state(j);
				opts.onPoll?.(j, s.polls, s.last);
				return step;
			},
		});
	}

	get window(): number {
		return this.poller.window;
	}

	/** Queries the task until it ends or its deadline passes. */
	wait(job: WaitJob): Promise<WaitOutcome> {
		return this.poller.run(job);
	}

	private state(j: WaitJob): JobState {
		let s = this.states.get(j);
		if (!s) this.states.set(j, (s = { errors: 0, polls: 0 }));
		return s;
	}

	private async pollOnce(j: WaitJob): Promise<PollStep<WaitOutcome>> {
		const s = this.state(j);
		s.polls++;
		const every = this.intervalOf(j, s);
		let body: Record<string, unknown>;
		try {
			const res = await this.transport.getJson<Record<string, unknown>>(
				queryPath(this.transport, j),
				{ origin: j.origin, timeout: 'query', deadline: j.deadline, maxAttempts: 1 },
			);
			body = res.body && typeof res.body === 'object' ? res.body : {};
		} catch (err) {
			const step = this.afterQueryError(j, s, err, every);
			return step === 'ask again' ? this.pollOnce(j) : step;
		}
		return this.afterAnswer(j, s, body, every);
	}

	/** The wait before the next query: a video's interval, else the task's own poll_after_ms (or the default). */
	private intervalOf(j: WaitJob, s: JobState): number {
		const { opts } = this;
		return j.kind === 'video'
			? interval(j.videoIntervalMs ?? opts.videoIntervalMs, DEFAULT_VIDEO_INTERVAL_MS)
			: interval(
					s.last?.pollAfterMs ?? j.pollAfterMs,
					interval(opts.defaultPollAfterMs, DEFAULT_POLL_AFTER_MS),
				);
	}

	/**
	 * A query that failed: asked again later (429, 5xx, a network error; a video's failed query, spec known case 4),
	 * asked at once elsewhere (the other origin, the video endpoint), or the task's end (not found, refused).
	 */
	private afterQueryError(
		j: WaitJob,
		s: JobState,
		err: unknown,
		every: number,
	): PollStep<WaitOutcome> | 'ask again' {
		if (err instanceof GatewayNetworkError && err.cancelled) throw err;
		const later = (lastError: string, retryAfterMs?: number) => {
			s.errors++;
			s.lastError = lastError;
			return {
				done: false as const,
				waitMs: Math.max(every, backoffDelay(s.errors, DEFAULT_RETRY, retryAfterMs)),
			};
		};
		if (!(err instanceof GatewayHttpError)) return later((err as Error).message);
		if (err.status === 429 || err.status >= 500)
			return { ...later(err.message, err.retryAfterMs), rateLimited: err.status === 429 };
		if (j.otherOrigin && isTaskNotFound(err)) {
			// a task stored without its origin: ask the other configured origin before declaring anything failed
			s.lastError = `${err.message} (on the ${j.origin} origin; asking the ${j.otherOrigin} origin)`;
			j.origin = j.otherOrigin;
			j.otherOrigin = undefined;
			return 'ask again';
		}
		if (j.videoFallback && isTaskNotFound(err)) {
			s.lastError = `${err.message} (as an image task; asking the video endpoint)`;
			Object.assign(j, {
				kind: 'video',
				origin: j.videoFallback.origin,
				otherOrigin: j.videoFallback.otherOrigin,
				videoFallback: undefined,
				pollPath: undefined,
				pollUrl: undefined,
			});
			return 'ask again';
		}
		if (j.kind === 'video' && !(isTaskNotFound(err) && !s.last))
			// spec, known case 4: with an ID and a failed query, keep querying the same task (never a new POST)
			return later(
				`${err.message} (HTTP ${err.status}; the same task is queried again until the deadline)`,
			);
		const notExist = err.code === 'task_not_exist' || /task_not_exist/.test(err.gatewayMessage);
		const why = notExist
			? `task not found (${err.status} task_not_exist): wrong ID, a different key, or queried on another origin than the one that created it`
			: err.status === 404
				? 'task not found (404): expired or cleaned up (terminal records are kept about 2 hours), a different key, or a wrong ID'
				: err.gatewayMessage;
		return {
			done: true,
			result: {
				state: 'failed',
				error: why,
				httpStatus: err.status,
				polls: s.polls,
				task: s.last,
				raw: s.raw,
			},
		};
	}

	/** A task object: completed, failed, or still going (queried again after its interval); unreadable is asked again. */
	private afterAnswer(
		j: WaitJob,
		s: JobState,
		body: Record<string, unknown>,
		every: number,
	): PollStep<WaitOutcome> {
		let task: NormalisedTask;
		try {
			task = j.kind === 'video' ? normaliseVideoTask(body) : normaliseImageTask(body);
		} catch (err) {
			// an answer nobody foresaw: read like an unreadable one, the same task asked again until the deadline
			s.errors++;
			s.lastError = `the task's answer could not be read: ${(err as Error)?.message ?? String(err)}`;
			return { done: false, waitMs: Math.max(every, backoffDelay(s.errors, DEFAULT_RETRY)) };
		}
		s.errors = 0;
		if (j.kind === 'video') j.family ??= familyOfTask(body);
		s.last = task;
		s.raw = body;
		if (task.phase === 'succeeded')
			return { done: true, result: { state: 'completed', task, raw: body, polls: s.polls } };
		if (task.phase === 'failed')
			return {
				done: true,
				result: {
					state: 'failed',
					error: task.error ?? 'task failed',
					task,
					raw: body,
					polls: s.polls,
				},
			};
		return { done: false, waitMs: j.kind === 'video' ? every : interval(task.pollAfterMs, every) };
	}
}

/** The family a video task object shows: the one rule (models.ts), else delta's `object: "video"`, else gamma. */
function familyOfTask(body: Record<string, unknown>): 'delta' | 'gamma' {
	return videoFamilyOf(body) ?? (body.object === 'video' ? 'delta' : 'gamma');
}
