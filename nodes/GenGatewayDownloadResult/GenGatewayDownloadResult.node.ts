import { NodeConnectionTypes, type IBinaryData, type IDataObject, type IExecuteFunctions, type INodeExecutionData, type INodeType, type INodeTypeDescription } from 'n8n-workflow';
import { createTransport, credentialTest } from '../shared/credentials';
import { DOWNLOAD_IMAGE_TASK_FIELDS, DOWNLOAD_OPTION_FIELDS, DOWNLOAD_URL_FIELDS, DOWNLOAD_VIDEO_TASK_FIELDS } from '../shared/download/fields';
import { GatewayHttpError } from '../shared/errors';
import { storeImageResult, storeVideoResult } from '../shared/results';
import { forEachItem } from '../shared/router';
import { videoOriginProperty } from '../shared/ui';
import { DOWNLOAD_CONCURRENCY } from '../shared/wait/emit';
import { isTaskNotFound } from '../shared/wait/waitTasks';
import { normaliseImageTask, normaliseVideoTask, type ResultRef } from '../shared/status';
import type { OriginKind } from '../shared/transport/http';
import { readFields, refuse } from '../shared/validate';

export class GenGatewayDownloadResult implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'GenGateway Download Result',
		name: 'genGatewayDownloadResult',
		icon: { light: 'file:../../icons/downloadResult.svg', dark: 'file:../../icons/downloadResult.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle: '={{"download " + $parameter["source"]}}',
		description: 'Downloads the images or video of a finished task as files',
		defaults: { name: 'GenGateway Download Result' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'genGatewayApi', required: true, testedBy: 'genGatewayApiTest' }],
		properties: [
			{
				displayName: 'Source',
				name: 'source',
				type: 'options',
				options: [
					{ name: 'Image Task Object', value: 'imageTask', description: 'A task object (data / result.data with url or b64_json), e.g. the input item' },
					{ name: 'Video Task ID', value: 'videoTask', description: 'Delta: authenticated /v1/videos/{id}/content; gamma: the result URL of the task' },
					{ name: 'URL', value: 'url', description: 'A hosted result address (fetched without the key)' },
				],
				default: 'imageTask',
			},
			{ displayName: 'Task Object', name: 'task', type: 'json', default: '={{ $json }}', displayOptions: { show: { source: ['imageTask'] } } },
			{ displayName: 'Task ID', name: 'taskId', type: 'string', default: '={{ $json.task_id }}', displayOptions: { show: { source: ['videoTask'] } } },
			videoOriginProperty('origin', { displayOptions: { show: { source: ['videoTask'] } } }),
			{ displayName: 'URL', name: 'url', type: 'string', default: '', displayOptions: { show: { source: ['url'] } } },
			{
				displayName: 'Result Type',
				name: 'resultType',
				type: 'options',
				options: [
					{ name: 'Image', value: 'image' },
					{ name: 'Video (MP4)', value: 'video' },
				],
				default: 'image',
				displayOptions: { show: { source: ['url'] } },
			},
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add Option',
				default: {},
				options: [
					{ displayName: 'Binary Property', name: 'binaryPropertyName', type: 'string', default: 'data' },
					{ displayName: 'Max Video Size (MiB)', name: 'maxVideoMiB', type: 'number', default: 2048, typeOptions: { minValue: 1 }, description: 'A video larger than this (announced or counted while it downloads) is refused, so a broken host cannot fill the disk' },
					{ displayName: 'One Item per Image', name: 'splitImages', type: 'boolean', default: false, description: 'Whether to emit one item per image instead of all images on one item (data, data_1, …)' },
					{ displayName: 'Return URLs Only', name: 'urlsOnly', type: 'boolean', default: false, description: 'Whether to return the result addresses without downloading (automatic when used as an AI-agent tool)' },
				],
			},
		],
	};

	methods = { credentialTest };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const transport = await createTransport(this);
		const asTool = typeof this.isToolExecution === 'function' && this.isToolExecution();
		return [
			await forEachItem(this, async (i) => {
				const source = this.getNodeParameter('source', i) as string;
				const o = this.getNodeParameter('options', i, {}) as { binaryPropertyName?: string; splitImages?: boolean; urlsOnly?: boolean; maxVideoMiB?: unknown };
				const videoMiB = readFields(DOWNLOAD_OPTION_FIELDS, o).maxVideoMiB;
				const videoOpts = { maxBytes: videoMiB === undefined ? undefined : Math.round(videoMiB * 2 ** 20) };
				const prop = o.binaryPropertyName || 'data';
				const urlsOnly = !!o.urlsOnly || asTool;
				const json = this.getInputData()[i].json;
				if (source === 'videoTask') {
					const { taskId } = readFields(DOWNLOAD_VIDEO_TASK_FIELDS, { taskId: this.getNodeParameter('taskId', i) });
					const originParam = this.getNodeParameter('origin', i) as string;
					const hasVideo = transport.root('video') !== transport.root('base');
					let origin: OriginKind = originParam === 'base' || originParam === 'video' ? originParam : json.origin === 'video' || json.origin === 'base' ? json.origin : hasVideo ? 'video' : 'base';
					let body: Record<string, unknown>;
					try {
						body = (await transport.getJson<Record<string, unknown>>(`/v1/videos/${taskId}`, { origin })).body ?? {};
					} catch (err) {
						// auto: a task unknown on one configured origin is asked on the other before anything is declared failed
						if (originParam !== 'auto' || !hasVideo || !(err instanceof GatewayHttpError) || !isTaskNotFound(err)) throw err;
						origin = origin === 'video' ? 'base' : 'video';
						body = (await transport.getJson<Record<string, unknown>>(`/v1/videos/${taskId}`, { origin })).body ?? {};
					}
					const task = normaliseVideoTask(body);
					if (task.phase !== 'succeeded') throw new Error(`video task ${taskId} is ${task.rawStatus ?? 'not finished'}${task.error ? `: ${task.error}` : ''}`);
					const model = String(body.model ?? json.model ?? '');
					const isDelta = model.startsWith('delta-') || body.object === 'video' || json.family === 'delta';
					const gammaUrl = !isDelta ? task.results[0]?.url : undefined;
					if (!isDelta && !gammaUrl) throw new Error(`video task ${taskId} finished without a result URL`);
					const path = gammaUrl ? undefined : `/v1/videos/${taskId}/content`;
					if (urlsOnly) return { json: { task_id: taskId, url: task.results[0]?.url ?? null, content_path: path ?? null, origin } };
					const stored = await storeVideoResult(this, transport, gammaUrl ? { url: gammaUrl } : { path, origin }, taskId, undefined, videoOpts);
					return { json: { task_id: taskId, ...stored.meta }, binary: { [prop]: stored.binary } };
				}
				let refs: ResultRef[];
				let taskId: string | undefined;
				if (source === 'url') {
					const { url } = readFields(DOWNLOAD_URL_FIELDS, { url: this.getNodeParameter('url', i) });
					if ((this.getNodeParameter('resultType', i) as string) === 'video') {
						if (urlsOnly) return { json: { url } };
						const stored = await storeVideoResult(this, transport, { url }, 'video', undefined, videoOpts);
						return { json: { ...stored.meta }, binary: { [prop]: stored.binary } };
					}
					refs = [{ url }];
				} else {
					const task = normaliseImageTask(readFields(DOWNLOAD_IMAGE_TASK_FIELDS, { task: this.getNodeParameter('task', i) }).task);
					taskId = task.taskId;
					refs = task.results;
					if (!refs.length) refuse([{ field: 'Task Object', rule: 'holds no results (data / result.data is empty): nothing to download' }]);
				}
				if (urlsOnly) return { json: { task_id: taskId ?? null, urls: refs.map((r) => r.url ?? null), has_b64: refs.some((r) => !!r.b64) } };
				const stored = [];
				for (const [k, ref] of refs.entries()) stored.push(await storeImageResult(this, transport, ref, `${taskId ?? 'image'}${k ? `_${k}` : ''}`));
				if (o.splitImages) return stored.map((s) => ({ json: { task_id: taskId ?? null, ...s.meta } as IDataObject, binary: { [prop]: s.binary } }));
				const binary: Record<string, IBinaryData> = {};
				stored.forEach((s, k) => (binary[k ? `${prop}_${k}` : prop] = s.binary));
				return { json: { task_id: taskId ?? null, files: stored.map((s, k) => ({ ...s.meta, binaryProperty: k ? `${prop}_${k}` : prop })) }, binary };
			}, () => transport.redactionSecrets, { concurrency: DOWNLOAD_CONCURRENCY }).then((items) => items.map((item) => ({ ...item, json: transport.redactValue(item.json) }))),
		];
	}
}
