/**
 * Source "Item From a GenGateway Node" (the default, value `imageTask`): whatever item the package's nodes put out, or a
 * task object the gateway returned, read for what it holds — result addresses to download again under the names the
 * first download gave them, or a task ID whose task is looked up (./videoTask.ts).
 */
import type { IBinaryData, IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { DOWNLOAD_IMAGE_TASK_FIELDS } from './fields';
import { isObj, type Obj } from '../../shared/jsonObject';
import type { Emitted } from '../../shared/runners/free';
import { storeImageResult, storeVideoResult, type StoredResult } from '../../shared/media/store';
import { videoFamilyOf } from '../../shared/models';
import { taskIdIn } from '../../shared/rules/taskId';
import { normaliseImageTask, type ResultRef } from '../../shared/tasks/phases';
import type { GatewayTransport } from '../../shared/transport';
import { readFields, refuse } from '../../shared/validate';
import type { DownloadOptions } from './options';
import { splitFiles } from './split';
import type { TaskSource } from './videoTask';

/** A result address (or Base64) and the file name it is stored under, without its extension (the bytes decide that). */
export interface NamedRef extends ResultRef {
	name: string;
}

/** Results to download: images, or one video (a hosted gamma result). */
export interface ImageSource {
	refs: NamedRef[];
	kind: 'image' | 'video';
	taskId?: string;
}

export type ItemSource = { via: 'refs'; s: ImageSource } | { via: 'task'; s: TaskSource };

const FIELD = DOWNLOAD_IMAGE_TASK_FIELDS.task.label;
const text = (v: unknown): string | undefined =>
	typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
/** a file name without its extension: the stored file takes the extension of what was downloaded */
const stem = (fileName: unknown): string | undefined =>
	text(fileName)?.replace(/\.[A-Za-z0-9]{1,5}$/, '') || undefined;

export function checkImageTask(ctx: IExecuteFunctions, i: number): ItemSource {
	return itemSource(
		readFields(DOWNLOAD_IMAGE_TASK_FIELDS, { task: ctx.getNodeParameter('task', i) }).task,
	);
}

/** An input item whose files came as Base64 only: nothing to download again. */
const ONLY_BINARY =
	'its files came without an address (as Base64 in the answer) and it has no ' +
	'task_id: they are only in its binary data, there is nothing to download again';

/** An input item that holds nothing Download Result can read. */
const NO_RESULT =
	'holds no result to download (no files with an address, no data / result.data, ' +
	'no result_urls) and no task_id: connect Download Result after Task Wait, Image ' +
	'Submit or Video Create, or choose Source "Task ID" or "Result URL"';

/**
 * What an item holds, in this order: a task object's results (data / result.data); the item's files (Task Wait's
 * Completed output, Image Submit's images, Download Result's own output) by their addresses, under their file names;
 * a Failed item's result_urls; Download Result's URLs (Return URLs Only); else its task ID, whose task is looked up
 * (a submitted or still running task, a delta video, whose file comes from the authenticated content path).
 */
export function itemSource(o: Obj): ItemSource {
	const taskId = taskIdIn(o);
	const model = text(o.model) ?? '';
	const family = videoFamilyOf(o);
	const video = o.kind === 'video' || !!family || /-video-/.test(model) || o.object === 'video';
	const name = (k: number) => `${taskId ?? (video ? 'video' : 'image')}${k ? `_${k}` : ''}`;
	const refs = (kind: 'image' | 'video', list: NamedRef[]): ItemSource => ({
		via: 'refs',
		s: { refs: list, kind, taskId },
	});

	const task = normaliseImageTask(o);
	if (!video && task.results.length)
		return refs(
			'image',
			task.results.map((r, k) => ({ ...r, name: name(k) })),
		);

	// a delta video's file is not at a public address: it comes from the task's content path
	const direct = family !== 'delta';
	const files = Array.isArray(o.files) ? o.files.filter(isObj) : [];
	const fileUrls = files.map((f) => text(f.sourceUrl) ?? text(f.url));
	if (direct && files.length && fileUrls.every((u) => u)) {
		const kind =
			video || files.some((f) => String(f.mimeType ?? '').startsWith('video/')) ? 'video' : 'image';
		return refs(
			kind,
			files.map((f, k) => ({ url: fileUrls[k], name: stem(f.fileName) ?? name(k) })),
		);
	}
	for (const list of [o.result_urls, o.urls]) {
		const urls = Array.isArray(list) ? list.map(text) : [];
		if (direct && urls.length && urls.every((u) => u))
			return refs(
				video ? 'video' : 'image',
				urls.map((url, k) => ({ url, name: name(k) })),
			);
	}
	if (direct && text(o.url) && !taskId)
		return refs(video ? 'video' : 'image', [{ url: text(o.url), name: name(0) }]);
	if (taskId)
		return {
			via: 'task',
			s: { taskId, kindParam: 'auto', originParam: 'auto', item: o as IDataObject },
		};
	refuse([{ field: FIELD, rule: files.length ? ONLY_BINARY : NO_RESULT }]);
}

/** Every result of the source, each checked whole: on one item (data, data_1, …) or one item per image. */
export async function downloadImages(
	ctx: IExecuteFunctions,
	transport: GatewayTransport,
	s: ImageSource,
	o: DownloadOptions,
): Promise<Emitted[]> {
	const taskId = s.taskId ?? null;
	if (o.urlsOnly)
		return [
			{
				item: {
					json: {
						task_id: taskId,
						kind: s.kind,
						urls: s.refs.map((r) => r.url ?? null),
						has_b64: s.refs.some((r) => !!r.b64),
					},
				},
			},
		];
	const stored: StoredResult[] = [];
	for (const ref of s.refs) {
		stored.push(
			s.kind === 'video'
				? await storeVideoResult(ctx, transport, { url: ref.url }, ref.name, undefined, o.video)
				: await storeImageResult(ctx, transport, ref, ref.name),
		);
	}
	const binary: Record<string, IBinaryData> = {};
	const files = stored.map((f, k) => {
		const prop = k ? `${o.prop}_${k}` : o.prop;
		binary[prop] = f.binary;
		return { ...f.meta, binaryProperty: prop } as IDataObject;
	});
	return splitFiles({ json: { task_id: taskId, kind: s.kind, files }, binary }, o);
}
