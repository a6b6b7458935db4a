/**
 * The one wait path of Task Wait, Image Submit's Wait for Result and Video Create as an agent tool: each task is
 * queried until it ends, its results are downloaded as soon as it completes (a few at a time), and the wait returns
 * one typed outcome with its files (`TaskResult`): completed (validated binaries), failed (with its typed failure) or
 * still running. Each node builds its item from it once, through the output contract (`itemOf`).
 */
import type { IBinaryData, IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { exitOf } from '../exit';
import { completedItem, failedItem, runningItem, uncertainItem } from '../items/shapes';
import type { FailedAt } from '../items/vocabulary';
import { Limit } from '../limit';
import type { GroupChoice } from '../money/cost';
import type { SpendEntry } from '../money/record';
import { settleVideo, type Settled } from '../money/settle';
import {
	ResultDownloadError,
	storeImageResult,
	storeVideoResult,
	type StoredResult,
} from '../media/store';
import type { GatewayTransport } from '../transport';
import { storeDeltaVideo } from '../video/content';
import { partialImagesWarning } from '../items/shapes';
import {
	DEFAULT_VIDEO_INTERVAL_MS,
	TaskWaiter,
	type WaitJob,
	type WaitOptions,
	type WaitOutcome,
} from './wait';
import { WaitProgress } from './progress';
import type { NormalisedTask } from './phases';

/** Download Result's items worked on at once (each image is held in memory while it is checked) */
export const DOWNLOAD_CONCURRENCY = 8;

/**
 * Results of waited tasks downloaded at once (Task Wait, Wait for Result): enough connections that a batch accepted at
 * a gateway's pace is downloaded near that pace (a 1.5 MB image with 250 ms to the first byte at 10 MB/s takes 0.4 s
 * alone: 32 at once are up to 80 a second; bench P1). Each image is held in memory while it is checked: 32 × its size.
 */
export const TASK_DOWNLOAD_CONCURRENCY = 32;

export interface EmitOptions {
	binaryProperty: string;
	/** download results into binary data (false: URLs only, e.g. when run as an AI-agent tool) */
	download: boolean;
	/** what the user said about the key's group multiplier (Task Wait's options); undefined: not known */
	group?: GroupChoice;
	model?: string;
	family?: 'delta' | 'gamma';
	withReferenceVideo?: boolean;
	/** largest video accepted, in bytes (default: the results module's 2 GiB) */
	maxVideoBytes?: number;
	/** fields carried from the input item (e.g. wait_started_at) */
	carry?: IDataObject;
	/** image tasks: the `n` asked for; fewer images delivered is said on the Completed item */
	imagesExpected?: number;
}

export interface WaitFailure {
	error: Error;
	failedAt: FailedAt;
}

/** A settled delta fee: its entry for the execution's money record (one per task). */
export interface Settlement {
	taskId: string;
	origin: string;
	entry: SpendEntry;
	cost: IDataObject;
}

/**
 * What a wait ended in, read once: the state, the fields that state says about the task (task_id, kind, origin,
 * model, polls, files, fee …, without `status`), the gateway's word, the stored files, the typed failure.
 */
export type TaskResult =
	| {
			state: 'completed';
			fields: IDataObject;
			gatewayStatus: string | null;
			binary?: Record<string, IBinaryData>;
			settled?: Settlement;
	  }
	| { state: 'failed'; fields: IDataObject; failure: WaitFailure; uncertain: boolean }
	| { state: 'running'; fields: IDataObject; gatewayStatus: string | null };

/** The output of Task Wait a result goes to: Completed (0), Failed (1), Still Running (2). */
export const outputOf = (r: TaskResult): 0 | 1 | 2 =>
	r.state === 'completed' ? 0 : r.state === 'failed' ? 1 : 2;

/** The item of a result, built once through the output contract; `facts` (the node's own fields) come first. */
export function itemOf(r: TaskResult, facts: IDataObject = {}): INodeExecutionData {
	const fields = { ...facts, ...r.fields };
	if (r.state === 'completed')
		return r.binary && Object.keys(r.binary).length
			? { json: completedItem(fields, r.gatewayStatus), binary: r.binary }
			: { json: completedItem(fields, r.gatewayStatus) };
	if (r.state === 'running') return { json: runningItem(fields, r.gatewayStatus, {}) };
	if (r.uncertain) return { json: uncertainItem(fields, r.failure.error.message) };
	return { json: failedItem(fields, r.failure.failedAt, { error: r.failure.error.message }) };
}

/** A failed result, from the same words. */
export function failedResult(
	fields: IDataObject,
	failedAt: FailedAt,
	error: string,
	extra: IDataObject = {},
	uncertain = false,
): TaskResult {
	return {
		state: 'failed',
		fields: { ...fields, ...extra },
		failure: { error: new Error(error), failedAt },
		uncertain,
	};
}

function propName(base: string, k: number): string {
	return k === 0 ? base : `${base}_${k}`;
}

/**
 * The task an item names, as a wait knows it: its origin and its ID, whatever else the item says (a full Image Submit
 * item, the gateway's task object, a bare task ID of unknown kind). Items naming the same task on the same origin share
 * one wait (one query per interval) and, when they ask for the same output, one download.
 */
export function taskKey(
	job: WaitJob,
	opts?: Pick<EmitOptions, 'binaryProperty' | 'download'>,
): string {
	return JSON.stringify([
		job.origin,
		job.taskId,
		opts?.binaryProperty ?? null,
		opts?.download ?? null,
	]);
}

export class WaitAndEmit {
	private readonly waiter: TaskWaiter;
	private readonly downloads = new Limit(TASK_DOWNLOAD_CONCURRENCY);
	private partialHinted = false;
	/** one wait (and download) per task and output: every other item naming it shares the first one's */
	private readonly shared = new Map<string, Promise<TaskResult>>();
	private readonly polls = new Map<string, Promise<WaitOutcome>>();

	/** how the wait goes, told while it goes (./progress.ts) */
	private readonly progress: WaitProgress;

	constructor(
		private readonly ctx: IExecuteFunctions,
		private readonly transport: GatewayTransport,
		waitOpts: WaitOptions = {},
	) {
		const exit = exitOf(ctx);
		this.progress = new WaitProgress(
			{ report: (t) => exit.progress(t), summary: (t) => exit.hint(t, 'info') },
			ctx.getNode().name,
		);
		this.waiter = new TaskWaiter(transport, {
			...waitOpts,
			onPoll: (job, polls, task) => this.progress.polled(job, job.taskId, polls, task),
		});
	}

	/**
	 * One task's wait and results. Whatever this task's handling throws (but a cancellation) is this task's failure
	 * alone. An item naming a task another item of this run already waits for gets a copy of that item's outcome (its
	 * own carried fields, the same stored files): one query per interval and one download per task.
	 */
	async run(job: WaitJob, opts: EmitOptions): Promise<TaskResult> {
		const key = taskKey(job, opts);
		let shared = this.shared.get(key);
		if (!shared) this.shared.set(key, (shared = this.runOnce(job, opts)));
		const r = await shared;
		const fields = { ...r.fields, ...(opts.carry ?? {}) };
		return r.state === 'completed'
			? { ...r, fields, ...(r.binary ? { binary: { ...r.binary } } : {}) }
			: { ...r, fields };
	}

	/** The node's waits are over: its hint says how long it waited and how many polls it made. */
	finish(): void {
		this.progress.finish();
	}

	private async runOnce(job: WaitJob, opts: EmitOptions): Promise<TaskResult> {
		try {
			const pollKey = taskKey(job);
			let polling = this.polls.get(pollKey);
			if (!polling) {
				this.progress.begin(job, job.taskId);
				this.polls.set(pollKey, (polling = this.waiter.wait(job)));
			}
			const outcome = await polling;
			this.progress.ended(job, job.taskId, outcome.polls);
			if (outcome.state !== 'completed' || !opts.download)
				return this.hinted(await emitOutcome(this.ctx, this.transport, job, outcome, opts));
			return this.hinted(
				await this.downloads.run(() => emitOutcome(this.ctx, this.transport, job, outcome, opts)),
			);
		} catch (err) {
			if (this.transport.signal?.aborted) throw err;
			return unexpectedFailure(job, err);
		}
	}

	/** One execution hint for items that arrived with fewer images than asked. */
	private hinted(r: TaskResult): TaskResult {
		if (r.fields.images_expected !== undefined && !this.partialHinted) {
			this.partialHinted = true;
			exitOf(this.ctx).hint(
				'Some image tasks completed with fewer images than asked (n > 1): see images_expected, images_received and warning on those items.',
				'warning',
			);
		}
		return r;
	}
}

/** Why a task came out Still Running: its deadline passed, or Max Wait per Execution handed it back early. */
function runningNote(job: WaitJob): IDataObject {
	if (
		job.finalDeadline !== undefined &&
		job.deadline < job.finalDeadline &&
		Date.now() < job.finalDeadline
	) {
		return {
			handed_back: 'max_wait',
			deadline_at: new Date(job.finalDeadline).toISOString(),
			note: 'Still running: handed back by Max Wait per Execution so no worker is held. Loop it through a Wait node back into Task Wait; its deadline is kept.',
		};
	}
	return {
		handed_back: 'deadline',
		note:
			'Still running at the deadline. The task was not cancelled (there is no cancel ' +
			'API): wait (e.g. n8n Wait node) and run Task Wait again with this task_id.',
	};
}

function unexpectedFailure(job: WaitJob, err: unknown): TaskResult {
	return failedResult(
		{ task_id: job.taskId, kind: job.kind, origin: job.origin },
		'task',
		`handling this task's answer failed: ${(err as Error)?.message ?? String(err)}`,
		{
			note: 'The task may have completed and be billed: wait for it again with this task_id, or download it with Download Result.',
		},
	);
}

/**
 * The delta-video fee and cost from the task's usage: `settled` at the key's multiplier when the user gave it, else
 * labelled `at_multiplier_1`. Never a failure of the item (its video is delivered): a fee that cannot be computed says why.
 */
async function feeOf(
	transport: GatewayTransport,
	raw: Record<string, unknown>,
	opts: EmitOptions,
): Promise<Settled | { fee: IDataObject }> {
	try {
		return await settleVideo(transport, raw, {
			model: opts.model,
			withReferenceVideo: opts.withReferenceVideo,
			group: opts.group ?? {},
		});
	} catch (err) {
		return { fee: { status: 'not_computed', reason: (err as Error).message } };
	}
}

/** The facts every item of this task carries, whatever its state. */
function commonFields(job: WaitJob, outcome: WaitOutcome, opts: EmitOptions): IDataObject {
	const family = opts.family ?? job.family;
	return {
		task_id: job.taskId,
		kind: job.kind,
		origin: job.origin,
		...(opts.model ? { model: opts.model } : {}),
		...(family ? { family } : {}),
		...(opts.carry ?? {}),
		polls: outcome.polls,
	};
}

/** The files of a completed task, stored (validated binaries) when downloading, else their addresses. */
interface Stored {
	files: IDataObject[];
	binary: Record<string, IBinaryData>;
}

/** A completed image task's images: each downloaded and decoded, or (no download) its address. */
async function storeImages(
	ctx: IExecuteFunctions,
	transport: GatewayTransport,
	job: WaitJob,
	task: NormalisedTask,
	opts: EmitOptions,
): Promise<Stored> {
	const out: Stored = { files: [], binary: {} };
	for (const [k, ref] of task.results.entries()) {
		if (!opts.download) {
			out.files.push({ url: ref.url ?? null, has_b64: !!ref.b64 });
			continue;
		}
		// a download under way outlives a Max Wait window, not the task's overall deadline (nor the image download timeout)
		const untilFinal = Math.max(1, (job.finalDeadline ?? job.deadline) - Date.now());
		const stored: StoredResult = await storeImageResult(
			ctx,
			transport,
			ref,
			`${job.taskId}${k ? `_${k}` : ''}`,
			job.deadline,
			{ maxDurationMs: Math.min(untilFinal, transport.timeouts.imageDownload) },
		);
		out.binary[propName(opts.binaryProperty, k)] = stored.binary;
		out.files.push({ ...stored.meta, binaryProperty: propName(opts.binaryProperty, k) });
	}
	return out;
}

/** A completed video task's video: downloaded and checked as MP4 (gamma by its URL, delta from /content), or its address. */
async function storeVideo(
	ctx: IExecuteFunctions,
	transport: GatewayTransport,
	job: WaitJob,
	task: NormalisedTask,
	opts: EmitOptions,
): Promise<Stored> {
	const family = opts.family ?? job.family;
	if (family === 'gamma' && !task.results[0]?.url)
		throw new Error('video task completed without a result URL');
	if (!opts.download)
		return {
			files: [
				{
					url: task.results[0]?.url ?? null,
					content_path: family === 'gamma' ? null : `/v1/videos/${job.taskId}/content`,
				},
			],
			binary: {},
		};
	const stored =
		family === 'gamma'
			? await storeVideoResult(
					ctx,
					transport,
					{ url: task.results[0]?.url },
					job.taskId,
					job.deadline + 10 * 60_000,
					{ maxBytes: opts.maxVideoBytes },
				)
			: await storeDeltaVideo(
					ctx,
					transport,
					{
						taskId: job.taskId,
						origin: job.origin,
						deadline: job.deadline,
						intervalMs: job.videoIntervalMs ?? DEFAULT_VIDEO_INTERVAL_MS,
					},
					{ maxBytes: opts.maxVideoBytes },
				);
	return {
		files: [{ ...stored.meta, binaryProperty: opts.binaryProperty }],
		binary: { [opts.binaryProperty]: stored.binary },
	};
}

/** A completed task's item: its files, and for a delta video its usage and settled fee (the spend record's entry). */
async function completedResult(
	transport: GatewayTransport,
	job: WaitJob,
	outcome: Extract<WaitOutcome, { state: 'completed' }>,
	opts: EmitOptions,
	common: IDataObject,
	{ files, binary }: Stored,
): Promise<TaskResult> {
	const task = outcome.task;
	const fields: IDataObject = {
		...common,
		files,
		request_id: task.requestId ?? null,
		billing_status: task.billingStatus ?? null,
	};
	const done = {
		state: 'completed' as const,
		fields,
		gatewayStatus: task.rawStatus ?? null,
		...(Object.keys(binary).length ? { binary } : {}),
	};
	if (job.kind === 'image')
		Object.assign(fields, partialImagesWarning(opts.imagesExpected, files.length));
	if (job.kind !== 'video') return done;
	fields.progress = task.progress ?? 100;
	fields.usage = (task.usage as IDataObject) ?? null;
	if ((opts.family ?? job.family) !== 'delta' || !opts.model) return done;
	const settled = await feeOf(transport, outcome.raw, opts);
	fields.fee = settled.fee;
	if (!('cost' in settled)) return done;
	fields.cost = settled.cost;
	return {
		...done,
		settled: { taskId: job.taskId, origin: job.origin, entry: settled.entry, cost: settled.cost },
	};
}

/** What a wait's outcome becomes: a running item, a failed one (the task, or its download), or a completed one. */
export async function emitOutcome(
	ctx: IExecuteFunctions,
	transport: GatewayTransport,
	job: WaitJob,
	outcome: WaitOutcome,
	opts: EmitOptions,
): Promise<TaskResult> {
	const common = commonFields(job, outcome, opts);
	if (outcome.state === 'running') {
		const word = outcome.task?.rawStatus;
		return {
			state: 'running',
			gatewayStatus: typeof word === 'string' && word ? word : null,
			fields: {
				...common,
				progress: outcome.task?.progress ?? null,
				...(outcome.lastError ? { last_error: outcome.lastError } : {}),
				...runningNote(job),
			},
		};
	}
	if (outcome.state === 'failed') {
		// a task the gateway failed with its submission outcome unknown (submission_uncertain) may be billed: uncertain
		return failedResult(
			common,
			'task',
			outcome.error,
			{
				...(outcome.httpStatus ? { http_status: outcome.httpStatus } : {}),
				gateway_status: outcome.task?.rawStatus ?? null,
				billing_status: outcome.task?.billingStatus ?? null,
			},
			outcome.task?.submissionUncertain === true,
		);
	}
	const task = outcome.task;
	let stored: Stored;
	try {
		stored =
			job.kind === 'image'
				? await storeImages(ctx, transport, job, task, opts)
				: await storeVideo(ctx, transport, job, task, opts);
	} catch (err) {
		// a download that kept failing says so (and to download later); anything else is a file that is not usable
		const error =
			err instanceof ResultDownloadError
				? err.message
				: `the task reported success but its result is not usable: ${(err as Error).message}`;
		return failedResult(common, 'download', error, {
			...(err instanceof ResultDownloadError ? { download_later: true } : {}),
			gateway_status: task.rawStatus ?? null,
			billing_status: task.billingStatus ?? null,
			result_urls: task.results.map((r) => r.url ?? null),
		});
	}
	return completedResult(transport, job, outcome, opts, common, stored);
}
