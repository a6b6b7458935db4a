import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { createTransport } from '../../shared/credentials';
import { uncertainItem, userFields } from '../../shared/items/shapes';
import { runFreeItems, type Emitted } from '../../shared/runners/free';
import type { SpendEntry } from '../../shared/money/record';
import { recordSettled } from '../../shared/money/settle';
import { itemOf, outputOf, taskKey, WaitAndEmit } from '../../shared/tasks/emit';
import { buildJob, type JobMeta } from '../../shared/tasks/jobs';
import { readWaitOptions, type WaitOptionValues } from './options';
import type { WaitJob } from '../../shared/tasks/wait';

type Checked = { job: WaitJob; meta: JobMeta; o: WaitOptionValues } | { routed: Emitted };

/**
 * The earliest deadlines by task, made once when the first item runs (every item is checked by then): one pass over
 * the jobs, not one per item (2000 items compared each with each held Task Wait ~20 s before its first query). Items
 * naming the same task share one wait: it ends at the earliest of their deadlines.
 */
function groupDeadlines(
	jobs: WaitJob[],
): (job: WaitJob) => { deadline: number; finalDeadline: number } {
	let byTask: Map<string, { deadline: number; finalDeadline: number }> | undefined;
	return (job) => {
		if (!byTask) {
			byTask = new Map();
			for (const j of jobs) {
				const key = taskKey(j);
				const had = byTask.get(key);
				const final = j.finalDeadline ?? j.deadline;
				byTask.set(key, {
					deadline: Math.min(had?.deadline ?? Infinity, j.deadline),
					finalDeadline: Math.min(had?.finalDeadline ?? Infinity, final),
				});
			}
		}
		return byTask.get(taskKey(job))!;
	};
}

/** Item `i`'s task as a wait job, or its routing when there is nothing to poll (an uncertain submission without an ID). */
function checkItem(
	ctx: IExecuteFunctions,
	i: number,
	item: IDataObject,
	now: number,
	hasVideoOrigin: boolean,
): Checked {
	const taskIdParam = ctx.getNodeParameter('taskId', i, '') as unknown;
	if (
		item.submission_uncertain === true &&
		(taskIdParam === null || taskIdParam === undefined || taskIdParam === '')
	) {
		// nothing to poll, and it must not be submitted again
		const reason = `submission outcome unknown and no task ID: ${String(item.reason ?? '')}`.trim();
		return { routed: { output: 1, item: { json: uncertainItem({ task_id: null }, reason) } } };
	}
	const o = readWaitOptions(ctx, i);
	const { job, meta } = buildJob(
		i,
		item,
		taskIdParam,
		ctx.getNodeParameter('taskKind', i) as string,
		{
			now,
			deadlineMs: o.deadlineMs,
			maxWaitMs: o.maxWaitMs,
			originParam: ctx.getNodeParameter('videoOrigin', i, 'auto') as string,
			hasVideoOrigin,
		},
	);
	return { job: { ...job, videoIntervalMs: o.videoIntervalMs }, meta, o };
}

/** What the waiter is told to do with a finished task of this item: download, where, what to carry. */
function emitOptionsOf(meta: JobMeta, o: WaitOptionValues, asTool: boolean) {
	return {
		binaryProperty: o.binaryPropertyName,
		download: o.download && !asTool,
		group: o.group,
		maxVideoBytes: o.maxVideoBytes,
		model: meta.model,
		family: meta.family,
		withReferenceVideo: meta.withReferenceVideo,
		imagesExpected: meta.imagesExpected,
		carry: {
			wait_started_at: meta.waitStartedAt,
			wait_started_at_iso: new Date(meta.waitStartedAt).toISOString(),
			...(meta.family ? { family: meta.family } : {}),
		},
	};
}

/** Task Wait: every task is queried until it ends (or its wait is handed back) and comes out of exactly one output. */
export async function waitForTasks(ctx: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const transport = await createTransport(ctx);
	const items = ctx.getInputData();
	const asTool = typeof ctx.isToolExecution === 'function' && ctx.isToolExecution();
	const now = Date.now();
	const hasVideoOrigin = transport.root('video') !== transport.root('base');
	let waiter: WaitAndEmit | undefined;
	// one entry per task: items naming the same task share its settled fee
	const settled = new Map<string, { origin: string; entry: SpendEntry; cost: IDataObject }>();
	const jobs: WaitJob[] = [];
	const groupDeadline = groupDeadlines(jobs);
	const out = await runFreeItems<Checked>(ctx, transport, {
		outputs: 3,
		failedOutput: 1,
		check(i) {
			const checked = checkItem(ctx, i, items[i].json, now, hasVideoOrigin);
			if ('job' in checked) jobs.push(checked.job);
			return checked;
		},
		// every task is queried at once; the waiter bounds the queries in flight
		concurrency: () => Number.MAX_SAFE_INTEGER,
		async run(checked, i): Promise<Emitted> {
			if ('routed' in checked) return checked.routed;
			const { job, meta, o } = checked;
			waiter ??= new WaitAndEmit(ctx, transport, { maxConcurrency: o.concurrency });
			const r = await waiter.run({ ...job, ...groupDeadline(job) }, emitOptionsOf(meta, o, asTool));
			if (r.state === 'completed' && r.settled) settled.set(r.settled.taskId, r.settled);
			// Keep Input Fields carries the user's own fields, never the state words of the input's state
			return {
				output: outputOf(r),
				item: itemOf(r, o.keepInputFields ? userFields(items[i].json) : {}),
			};
		},
	});
	// how long the wait took and how many polls it made, in the node's hint
	(waiter as WaitAndEmit | undefined)?.finish();
	await recordSettled(ctx, transport, settled);
	return out;
}
