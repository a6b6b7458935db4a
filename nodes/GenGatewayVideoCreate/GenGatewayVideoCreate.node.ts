import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeType } from 'n8n-workflow';
import { readInputBinary } from '../shared/binary';
import { createTransport } from '../shared/credentials';
import { InputRuleError } from '../shared/errors';
import { modelSearch } from '../shared/models';
import { expectedPriceHint } from '../shared/pricing';
import { forEachItem } from '../shared/router';
import { pickTaskId } from '../shared/status';
import { readModel } from '../shared/ui';
import { parseOrThrow } from '../shared/validate';
import { buildDeltaBody, buildGammaBody, urlList, type Material } from '../shared/video/build';
import { deltaBodySchema, gammaBodySchema } from '../shared/video/schemas';
import { videoCreateDescription } from './description';

interface Options {
	editMode?: boolean;
	extraBody?: unknown;
	returnLastFrame?: boolean;
	seed?: number;
	submitTimeoutMs?: number;
}

function parseExtra(v: unknown): Record<string, unknown> | undefined {
	if (v === undefined || v === '' || v === '{}') return undefined;
	const o = typeof v === 'string' ? (() => {
		try {
			return JSON.parse(v);
		} catch {
			return undefined;
		}
	})() : v;
	if (!o || typeof o !== 'object' || Array.isArray(o)) throw new InputRuleError([{ field: 'Extra Body Fields', rule: 'must be a JSON object' }]);
	return o as Record<string, unknown>;
}

export class GenGatewayVideoCreate implements INodeType {
	description = videoCreateDescription;

	methods = { listSearch: { searchVideoModels: modelSearch('video') } };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const o0 = this.getNodeParameter('options', 0, {}) as Options;
		const transport = await createTransport(this, { videoSubmit: o0.submitTimeoutMs });
		let hinted = false;
		return [
			await forEachItem(this, async (i) => {
				const family = this.getNodeParameter('family', i) as 'delta' | 'gamma';
				const model = readModel(this, i);
				if (!model.startsWith(`${family}-video`)) throw new InputRuleError([{ field: 'Model', rule: `${model} is not a ${family}-video model` }]);
				const options = this.getNodeParameter('options', i, {}) as Options;
				let body: Record<string, unknown>;
				let materials: Material[];
				let form: FormData | undefined;
				if (family === 'delta') {
					({ body, materials } = buildDeltaBody({
						model,
						prompt: this.getNodeParameter('prompt', i),
						seconds: this.getNodeParameter('seconds', i),
						resolution: this.getNodeParameter('resolution', i),
						ratio: this.getNodeParameter('ratio', i),
						generateAudio: this.getNodeParameter('generateAudio', i),
						watermark: this.getNodeParameter('watermark', i),
						images: urlList(this.getNodeParameter('referenceImages', i, '')),
						videos: urlList(this.getNodeParameter('referenceVideos', i, '')),
						audios: urlList(this.getNodeParameter('referenceAudios', i, '')),
						firstFrame: (this.getNodeParameter('firstFrame', i, '') as string) || undefined,
						lastFrame: (this.getNodeParameter('lastFrame', i, '') as string) || undefined,
						seed: options.seed !== undefined && options.seed !== -1 ? options.seed : undefined,
						returnLastFrame: options.returnLastFrame,
						editMode: options.editMode,
						extraBody: parseExtra(options.extraBody),
					}));
					parseOrThrow(deltaBodySchema, body);
				} else {
					({ body, materials } = buildGammaBody({
						model,
						prompt: this.getNodeParameter('prompt', i),
						seconds: this.getNodeParameter('gammaSeconds', i),
						aspectRatio: this.getNodeParameter('aspectRatio', i),
						imageUrls: urlList(this.getNodeParameter('imageUrls', i, '')),
					}));
					const refProp = String(this.getNodeParameter('inputReference', i, '') ?? '').trim();
					parseOrThrow(gammaBodySchema, { ...body, __files: refProp ? 1 : 0 });
					if (refProp) {
						const { data, meta } = await readInputBinary(this, i, refProp, 'Input Reference Binary Property');
						form = new FormData();
						for (const [k, v] of Object.entries(body)) {
							if (Array.isArray(v)) v.forEach((x) => form!.append(k, String(x)));
							else form.append(k, String(v));
						}
						form.append('input_reference', new Blob([data], { type: meta.mimeType }), meta.fileName ?? 'reference');
					}
					if (body.seconds === 4 && typeof this.addExecutionHints === 'function') {
						this.addExecutionHints({ message: 'gamma-video: 4 seconds passes validation but is not confirmed upstream; 6, 8, 10, 12 or 15 are preferred.', location: 'outputPane' });
					}
				}
				if (!hinted && typeof this.addExecutionHints === 'function') {
					hinted = true;
					const hint = family === 'gamma' ? await expectedPriceHint(transport, model) : `delta-video is billed per video token: an estimate is reserved at submission and settled on completion (see GenGateway Pricing → Estimate Video Cost).`;
					if (hint) this.addExecutionHints({ message: hint, location: 'outputPane' });
				}
				const origin = 'video' as const;
				const out = await transport.submit('/v1/videos', form ? { form } : { json: body }, { origin, timeout: 'videoSubmit' });
				const base: IDataObject = {
					kind: 'video',
					family,
					model,
					origin: transport.root('video') === transport.root('base') ? 'base' : 'video',
					origin_url: transport.root('video').root,
					materials: materials as unknown as IDataObject[],
					with_reference_video: materials.some((m) => m.type === 'video'),
				};
				if (out.kind === 'uncertain') {
					const id = out.body && typeof out.body === 'object' ? pickTaskId(out.body as Record<string, unknown>) : undefined;
					return { json: { ...base, task_id: id ?? null, status: 'uncertain', submission_uncertain: true, reason: out.reason, note: 'The gateway may have created this paid task. It was not resent: check the task and usage logs before creating again.' } };
				}
				const taskId = pickTaskId(out.body);
				const data = (out.body.data && typeof out.body.data === 'object' ? out.body.data : {}) as IDataObject;
				const status = (out.body.status ?? data.status ?? 'queued') as string;
				return { json: { ...base, task_id: taskId ?? null, status, submission_uncertain: !taskId, ...(taskId ? {} : { reason: 'accepted without a task ID: check the task and usage logs before creating again' }), task: out.body as IDataObject } };
			}),
		];
	}
}
