import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { DOWNLOAD_VIDEO_TASK_FIELDS } from '../../shared/download/fields';
import { GatewayHttpError } from '../../shared/errors';
import type { Emitted } from '../../shared/runners/free';
import { storeVideoResult } from '../../shared/media/store';
import { normaliseVideoTask } from '../../shared/tasks/phases';
import type { GatewayTransport, OriginKind } from '../../shared/transport';
import { readFields } from '../../shared/validate';
import { isTaskNotFound } from '../../shared/tasks/wait';
import type { DownloadOptions } from './options';

export interface VideoTaskSource {
	taskId: string;
	originParam: string;
	input: IDataObject;
}

export function checkVideoTask(ctx: IExecuteFunctions, i: number): VideoTaskSource {
	const { taskId } = readFields(DOWNLOAD_VIDEO_TASK_FIELDS, { taskId: ctx.getNodeParameter('taskId', i) });
	return { taskId, originParam: ctx.getNodeParameter('origin', i) as string, input: ctx.getInputData()[i].json };
}

/** The task asked on its origin (auto: a task unknown on one configured origin is asked on the other). */
async function readTask(transport: GatewayTransport, s: VideoTaskSource): Promise<{ body: Record<string, unknown>; origin: OriginKind }> {
	const hasVideo = transport.root('video') !== transport.root('base');
	const given = s.originParam === 'base' || s.originParam === 'video' ? s.originParam : s.input.origin === 'video' || s.input.origin === 'base' ? s.input.origin : undefined;
	const origin: OriginKind = given ?? (hasVideo ? 'video' : 'base');
	try {
		return { body: (await transport.getJson<Record<string, unknown>>(`/v1/videos/${s.taskId}`, { origin })).body ?? {}, origin };
	} catch (err) {
		if (s.originParam !== 'auto' || !hasVideo || !(err instanceof GatewayHttpError) || !isTaskNotFound(err)) throw err;
		const other: OriginKind = origin === 'video' ? 'base' : 'video';
		return { body: (await transport.getJson<Record<string, unknown>>(`/v1/videos/${s.taskId}`, { origin: other })).body ?? {}, origin: other };
	}
}

/** A finished video task's file: delta from the authenticated content path, gamma from its result URL. */
export async function downloadVideoTask(ctx: IExecuteFunctions, transport: GatewayTransport, s: VideoTaskSource, o: DownloadOptions): Promise<Emitted> {
	const { body, origin } = await readTask(transport, s);
	const task = normaliseVideoTask(body);
	if (task.phase !== 'succeeded') throw new Error(`video task ${s.taskId} is ${task.rawStatus ?? 'not finished'}${task.error ? `: ${task.error}` : ''}`);
	const model = String(body.model ?? s.input.model ?? '');
	const isDelta = model.startsWith('delta-') || body.object === 'video' || s.input.family === 'delta';
	const gammaUrl = !isDelta ? task.results[0]?.url : undefined;
	if (!isDelta && !gammaUrl) throw new Error(`video task ${s.taskId} finished without a result URL`);
	const path = gammaUrl ? undefined : `/v1/videos/${s.taskId}/content`;
	if (o.urlsOnly) return { item: { json: { task_id: s.taskId, url: task.results[0]?.url ?? null, content_path: path ?? null, origin } } };
	const stored = await storeVideoResult(ctx, transport, gammaUrl ? { url: gammaUrl } : { path, origin }, s.taskId, undefined, o.video);
	return { item: { json: { task_id: s.taskId, ...stored.meta }, binary: { [o.prop]: stored.binary } } };
}
