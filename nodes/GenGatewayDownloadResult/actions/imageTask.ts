import type { IBinaryData, IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { DOWNLOAD_IMAGE_TASK_FIELDS } from '../../shared/download/fields';
import type { Emitted } from '../../shared/runners/free';
import { storeImageResult } from '../../shared/media/store';
import { normaliseImageTask, type ResultRef } from '../../shared/tasks/phases';
import type { GatewayTransport } from '../../shared/transport';
import { readFields, refuse } from '../../shared/validate';
import type { DownloadOptions } from './options';

export interface ImageSource {
	refs: ResultRef[];
	taskId?: string;
}

export function checkImageTask(ctx: IExecuteFunctions, i: number): ImageSource {
	const task = normaliseImageTask(readFields(DOWNLOAD_IMAGE_TASK_FIELDS, { task: ctx.getNodeParameter('task', i) }).task);
	if (!task.results.length) refuse([{ field: 'Task Object', rule: 'holds no results (data / result.data is empty): nothing to download' }]);
	return { refs: task.results, taskId: task.taskId };
}

/** Every image of the source, each checked whole: on one item (data, data_1, …) or one item per image. */
export async function downloadImages(ctx: IExecuteFunctions, transport: GatewayTransport, s: ImageSource, o: DownloadOptions): Promise<Emitted[]> {
	const taskId = s.taskId ?? null;
	if (o.urlsOnly) return [{ item: { json: { task_id: taskId, urls: s.refs.map((r) => r.url ?? null), has_b64: s.refs.some((r) => !!r.b64) } } }];
	const stored = [];
	for (const [k, ref] of s.refs.entries()) stored.push(await storeImageResult(ctx, transport, ref, `${s.taskId ?? 'image'}${k ? `_${k}` : ''}`));
	if (o.splitImages) return stored.map((f) => ({ item: { json: { task_id: taskId, ...f.meta } as IDataObject, binary: { [o.prop]: f.binary } } }));
	const binary: Record<string, IBinaryData> = {};
	stored.forEach((f, k) => (binary[k ? `${o.prop}_${k}` : o.prop] = f.binary));
	return [{ item: { json: { task_id: taskId, files: stored.map((f, k) => ({ ...f.meta, binaryProperty: k ? `${o.prop}_${k}` : o.prop })) }, binary } }];
}
