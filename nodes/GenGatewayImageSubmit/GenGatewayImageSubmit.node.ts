import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeType } from 'n8n-workflow';
import { MAX_REFERENCE_IMAGE_BYTES, readInputBinary, sniffImage } from '../shared/binary';
import { createTransport } from '../shared/credentials';
import { InputRuleError } from '../shared/errors';
import { imageRequestSchema } from '../shared/images/rules';
import { checkModeFits, explainNoImage, submitImage, type ImageMode, type ReferenceImage, type SubmitInput } from '../shared/images/submit';
import { modelSearch } from '../shared/models';
import { expectedPriceHint } from '../shared/pricing';
import { storeImageResult } from '../shared/results';
import { errorItem, TaskError } from '../shared/router';
import { normaliseImageTask } from '../shared/status';
import type { GatewayTransport } from '../shared/transport/http';
import { readModel } from '../shared/ui';
import { parseOrThrow } from '../shared/validate';
import { emitOutcome } from '../shared/wait/emit';
import { waitForTasks, type WaitJob } from '../shared/wait/waitTasks';
import { imageSubmitDescription } from './description';

interface Options {
	binaryPropertyName?: string;
	deadlineMinutes?: number;
	submitTimeoutMs?: number;
	syncTimeoutMs?: number;
	waitForResult?: boolean;
}

async function readReferences(ctx: IExecuteFunctions, i: number): Promise<ReferenceImage[]> {
	const props = String(ctx.getNodeParameter('referenceBinaries', i, '') ?? '')
		.split(',')
		.map((s) => s.trim())
		.filter(Boolean);
	const refs: ReferenceImage[] = [];
	for (const prop of props) {
		const { data, meta } = await readInputBinary(ctx, i, prop, 'Reference Binary Properties', MAX_REFERENCE_IMAGE_BYTES);
		const info = sniffImage(data);
		if (!info || !['image/png', 'image/jpeg', 'image/webp', 'image/bmp'].includes(info.mimeType)) {
			throw new InputRuleError([{ field: 'Reference Binary Properties', rule: `binary "${prop}" (${meta.fileName ?? 'no name'}) is not a PNG, JPEG, WebP or BMP image (checked from its bytes${info ? `: ${info.mimeType}` : ''})` }]);
		}
		refs.push({ data, mimeType: info.mimeType, fileName: `${prop}.${info.extension}` });
	}
	return refs;
}

function readUrls(ctx: IExecuteFunctions, i: number): string[] {
	const raw = ctx.getNodeParameter('referenceUrls', i, '') as unknown;
	const list = Array.isArray(raw) ? raw.map(String) : String(raw ?? '').split(/[\n,]/);
	const urls = list.map((s) => s.trim()).filter(Boolean);
	for (const [k, u] of urls.entries()) {
		let ok = false;
		try {
			ok = new URL(u).protocol === 'https:';
		} catch {
			ok = false;
		}
		if (!ok) throw new InputRuleError([{ field: `Reference Image URLs[${k}]`, rule: 'must be a public https:// address' }]);
	}
	return urls;
}

function taskJson(body: Record<string, unknown>, transport: GatewayTransport, model: string, mode: ImageMode): IDataObject {
	const t = normaliseImageTask(body);
	return {
		task_id: t.taskId ?? null,
		kind: 'image',
		model,
		mode,
		status: String(body.status ?? 'processing'),
		state: (body.state as string) ?? null,
		poll_path: t.pollPath ?? `/v1/images/tasks/${t.taskId}`,
		poll_after_ms: t.pollAfterMs ?? 3000,
		request_id: t.requestId ?? null,
		billing_status: t.billingStatus ?? null,
		submission_uncertain: t.submissionUncertain ?? false,
		origin: 'base',
		origin_url: transport.root('base').root,
		submitted_at: Date.now(),
	};
}

export class GenGatewayImageSubmit implements INodeType {
	description = imageSubmitDescription;

	methods = { listSearch: { searchImageModels: modelSearch('image') } };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const o0 = this.getNodeParameter('options', 0, {}) as Options;
		const transport = await createTransport(this, { submit: o0.submitTimeoutMs, syncImage: o0.syncTimeoutMs });
		const asTool = typeof this.isToolExecution === 'function' && this.isToolExecution();
		const out: Array<INodeExecutionData | undefined> = new Array(items.length);
		const waits: Array<{ job: WaitJob; model: string; base: IDataObject }> = [];
		let hinted = false;
		for (let i = 0; i < items.length; i++) {
			let taskId: string | undefined;
			try {
				const options = this.getNodeParameter('options', i, {}) as Options;
				const operation = this.getNodeParameter('operation', i) as 'generate' | 'edit';
				const mode = this.getNodeParameter('mode', i) as ImageMode;
				const model = readModel(this, i);
				const req = parseOrThrow(imageRequestSchema, {
					model,
					prompt: this.getNodeParameter('prompt', i),
					size: mode === 'native' ? undefined : (this.getNodeParameter('size', i, '') as string) || undefined,
					n: mode === 'native' ? 1 : this.getNodeParameter('n', i, 1),
					quality: mode === 'native' ? undefined : (this.getNodeParameter('quality', i, '') as string) || undefined,
				});
				const input: SubmitInput = {
					operation,
					mode,
					req,
					references: operation === 'edit' ? await readReferences(this, i) : [],
					referenceUrls: operation === 'edit' ? readUrls(this, i) : [],
					editEncoding: operation === 'edit' && mode !== 'native' ? (this.getNodeParameter('editEncoding', i) as 'multipart' | 'json') : 'json',
					aspectRatio: mode === 'native' ? (this.getNodeParameter('aspectRatio', i) as string) : '1:1',
					nativeImageSize: mode === 'native' ? (this.getNodeParameter('nativeImageSize', i) as '1K' | '2K' | '4K') : '1K',
				};
				checkModeFits(input);
				if (!hinted && typeof this.addExecutionHints === 'function') {
					hinted = true;
					const hint = await expectedPriceHint(transport, model, req.n);
					if (hint) this.addExecutionHints({ message: hint, location: 'outputPane' });
				}
				const res = await submitImage(transport, input);
				if (res.kind === 'uncertain') {
					out[i] = {
						json: { status: 'uncertain', submission_uncertain: true, model, mode: res.mode, reason: res.reason, task_id: null, note: 'The gateway may have accepted this paid request. It was not resent: check the usage records before submitting again.' },
					};
					continue;
				}
				const prop = options.binaryPropertyName || 'data';
				if (res.kind === 'images') {
					if (!res.refs.length) throw new Error(res.mode === 'native' ? explainNoImage(res.body) : `HTTP 200 but no image in the answer${res.body.error ? `: ${JSON.stringify(res.body.error)}` : ''}; treated as a failure`);
					const binary: NonNullable<INodeExecutionData['binary']> = {};
					const files: IDataObject[] = [];
					for (const [k, ref] of res.refs.entries()) {
						const stored = await storeImageResult(this, transport, ref, `image_${i}${k ? `_${k}` : ''}`);
						const name = k ? `${prop}_${k}` : prop;
						if (!asTool) binary[name] = stored.binary;
						files.push({ ...stored.meta, binaryProperty: asTool ? null : name });
					}
					out[i] = { json: { status: 'completed', model, mode: res.mode, files, ...(res.text ? { text: res.text } : {}) }, ...(asTool ? {} : { binary }) };
					continue;
				}
				const json = taskJson(res.body, transport, model, res.mode);
				taskId = (json.task_id as string) ?? undefined;
				if (!taskId) throw new Error('the gateway accepted the request but returned no task_id');
				if (options.waitForResult) {
					const now = Date.now();
					waits.push({
						model,
						base: json,
						job: {
							index: i,
							taskId,
							kind: 'image',
							origin: 'base',
							pollPath: json.poll_path as string,
							pollUrl: (res.body.poll_url as string) ?? undefined,
							pollAfterMs: json.poll_after_ms as number,
							deadline: now + (options.deadlineMinutes ?? 30) * 60_000,
							initialDelayMs: json.poll_after_ms as number,
						},
					});
				}
				out[i] = { json };
			} catch (err) {
				out[i] = errorItem(this, taskId ? new TaskError(err, taskId) : err, i, []);
			}
		}
		if (waits.length) {
			const outcomes = await waitForTasks(transport, waits.map((w) => w.job));
			for (const [k, w] of waits.entries()) {
				const routed = await emitOutcome(this, transport, w.job, outcomes[k], { binaryProperty: o0.binaryPropertyName || 'data', download: !asTool, groupRatio: 1, model: w.model });
				if (routed.output === 1) {
					out[w.job.index] = errorItem(this, new TaskError(new Error(String(routed.item.json.error)), w.job.taskId, { billing_status: routed.item.json.billing_status as string }), w.job.index, []);
				} else {
					out[w.job.index] = { ...routed.item, json: { ...w.base, ...routed.item.json } };
				}
			}
		}
		return [out.map((item, i) => ({ ...item!, pairedItem: { item: i } }))];
	}
}
