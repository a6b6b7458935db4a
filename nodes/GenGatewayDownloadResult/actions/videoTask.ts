/**
 * A task looked up and its result downloaded: Source "Task ID" (value `videoTask`, image or video since issue 35), and
 * an item that holds only a task ID. The same wait-and-emit path as Task Wait (./shared/wait/emit.ts): the task asked
 * on its origin (an image task by its poll path; a task of unknown kind as an image, then as a video; a video unknown on
 * one configured origin, on the other), its files checked whole and named as Task Wait names them (the task ID). A task
 * that has not finished is queried for at most Wait for an Unfinished Task, then the item fails saying so.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { DOWNLOAD_VIDEO_TASK_FIELDS } from './fields';
import { ItemFailure, type Emitted } from '../../shared/runners/free';
import type { GatewayTransport } from '../../shared/transport';
import { readFields } from '../../shared/validate';
import { itemOf, type WaitAndEmit } from '../../shared/tasks/emit';
import { buildJob } from '../../shared/tasks/jobs';
import { splitFiles } from './split';
import type { DownloadOptions } from './options';

export interface TaskSource {
	taskId: string;
	/** auto (read from the item), image or video */
	kindParam: string;
	/** auto, base or video */
	originParam: string;
	/** what kind, family, origin and poll path are read from */
	item: IDataObject;
}

export function checkVideoTask(ctx: IExecuteFunctions, i: number): TaskSource {
	const { taskId } = readFields(DOWNLOAD_VIDEO_TASK_FIELDS, {
		taskId: ctx.getNodeParameter('taskId', i),
	});
	return {
		taskId,
		kindParam: ctx.getNodeParameter('taskKind', i, 'auto') as string,
		originParam: ctx.getNodeParameter('origin', i, 'auto') as string,
		item: ctx.getInputData()[i].json,
	};
}

/** What a failed wait knows about the task, for the failed item (the gateway's word, its HTTP status, billing). */
function taskFacts(fields: IDataObject): IDataObject {
	const keep = ['gateway_status', 'http_status', 'billing_status', 'note'];
	return Object.fromEntries(Object.entries(fields).filter(([k]) => keep.includes(k)));
}

/** The task's result: its files on one item (or one item per image), or the reason it has none yet. */
export async function downloadVideoTask(
	transport: GatewayTransport,
	waiter: WaitAndEmit,
	s: TaskSource,
	o: DownloadOptions,
	index: number,
): Promise<Emitted[]> {
	const now = Date.now();
	// a Task Wait item's first wait time would end this lookup's own wait before it began
	const { wait_started_at: _started, ...item } = s.item;
	const { job, meta } = buildJob(index, item, s.taskId, s.kindParam, {
		now,
		deadlineMs: o.waitMs,
		maxWaitMs: 0,
		originParam: s.originParam,
		hasVideoOrigin: transport.root('video') !== transport.root('base'),
	});
	// a download that starts near the end of the wait still gets the whole image download time
	const r = await waiter.run(
		{ ...job, finalDeadline: job.deadline + transport.timeouts.imageDownload },
		{
			binaryProperty: o.prop,
			download: !o.urlsOnly,
			family: meta.family,
			maxVideoBytes: o.video.maxBytes,
			imagesExpected: meta.imagesExpected,
		},
	);
	// Task Wait's words: failed or not found at the gateway (`task`), still running, or downloaded but unusable (`download`)
	if (r.state === 'failed')
		throw new ItemFailure(r.failure.error.message, r.failure.failedAt, taskFacts(r.fields));
	if (r.state === 'running') {
		throw new ItemFailure(
			`task ${s.taskId} has not finished (the gateway says ` +
				`${r.gatewayStatus ?? 'nothing yet'}) after ${Math.round(o.waitMs / 1000)} s: ` +
				`wait for it with GenGateway Task Wait, or raise Options → Wait for an Unfinished Task`,
			'running',
			{ gateway_status: r.gatewayStatus },
		);
	}
	const done = itemOf(r);
	const json = done.json;
	const files = Array.isArray(json.files) ? (json.files as IDataObject[]) : [];
	if (o.urlsOnly) return [{ item: { json: { ...json, urls: files.map((f) => f.url ?? null) } } }];
	return splitFiles({ json, binary: done.binary }, o);
}
