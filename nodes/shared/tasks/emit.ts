/**
 * The one wait path of Task Wait, Image Submit's Wait for Result and Video Create as an agent tool: each task is
 * queried until it ends, its results are downloaded as soon as it completes (a few at a time), and the wait returns
 * one typed outcome with its files (`TaskResult`): completed (validated binaries), failed (with its typed failure) or
 * still running (result.ts; a completed task's files: completed.ts). Each node builds its item from it once, through
 * the output contract (`itemOf`).
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { exitOf } from '../exit';
import { Limit } from '../limit';
import { ResultDownloadError } from '../media/store';
import type { GatewayTransport } from '../transport';
import { completedResult, storeImages, storeVideo, type Stored } from './completed';
import { WaitProgress } from './progress';
import { failedResult, taskKey, type EmitOptions, type TaskResult } from './result';
import { TaskWaiter, type WaitJob, type WaitOptions, type WaitOutcome } from './wait';

export { itemOf, outputOf, taskKey } from './result';

/** Download Result's items worked on at once (each image is held in memory while it is checked) */
export const DOWNLOAD_CONCURRENCY = 8;

/**
 * Results of waited tasks downloaded at once (Task Wait, Wait for Result): enough connections that a batch accepted at
 * a gateway's pace is downloaded near that pace (a 1.5 MB image with 250 ms to the first byte at 10 MB/s takes 0.4 s
 * alone: 32 at once are up to 80 a second; bench P1). Each image is held in memory while it is checked: 32 × its size.
 */
export const TASK_DOWNLOAD_CONCURRENCY = 32;

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
