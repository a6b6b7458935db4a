/**
 * Video Create for one item: read the node's fields, build the body, check every rule (nothing is sent on a
 * violation), submit once on the video origin, and shape the output item Task Wait reads.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { readInputImage } from '../../shared/binary';
import { ANY_IMAGE } from '../../shared/rules/image';
import { submittedItem, uncertainItem } from '../../shared/items/shapes';
import { isObj, type Obj } from '../../shared/jsonObject';
import { SUBMIT_OPTION_FIELDS } from '../../shared/runners/options';
import { EXTRA_BODY_RULE } from '../../shared/rules/json';
import { FLAG_RULE, OPTION_RULES } from '../../shared/rules/options';
import { fieldSet } from '../../shared/rules/rule';
import { taskIdIn } from '../../shared/rules/taskId';
import type { GatewayTransport, SubmitOutcome } from '../../shared/transport';
import { readModel } from '../../shared/models';
import { parseOrThrow, readField, readFields, refuse } from '../../shared/validate';
import { buildDeltaBody, buildGammaBody, buildGammaForm, type Material } from './body';
import { addressList, mediaUrlProblem } from '../../shared/rules/mediaUrl';
import { deltaOutsideForm, deltaSchema } from './deltaSchema';
import { gammaPreferenceHints, gammaSchema } from './gammaSchema';
import { OUTSIDE_FORM } from './schemas';

export type VideoFamily = 'delta' | 'gamma';

export interface VideoCreateOptions {
	editMode?: boolean;
	/** send a Seconds (or gamma Aspect Ratio) value the form does not offer instead of refusing it */
	sendOutsideForm?: boolean;
	extraBody?: unknown;
	returnLastFrame?: boolean;
	seed?: number;
	submitTimeoutMs?: number;
	maxConcurrency?: number;
}

export interface VideoRequest {
	family: VideoFamily;
	model: string;
	body: Record<string, unknown>;
	/** gamma with an input_reference file: builds the multipart form, reading the file again (else the body goes as JSON) */
	form?: () => Promise<FormData>;
	materials: Material[];
	/** non-fatal notes for the execution hints */
	hints: string[];
}

export const VIDEO_OPTION_FIELDS = fieldSet('Video Create options', {
	...SUBMIT_OPTION_FIELDS,
	extraBody: { label: 'Extra Body Fields', rule: EXTRA_BODY_RULE },
	editMode: { label: 'Edit Mode', rule: FLAG_RULE },
	returnLastFrame: { label: 'Return Last Frame', rule: FLAG_RULE },
	sendOutsideForm: { label: OUTSIDE_FORM, rule: FLAG_RULE },
	seed: { label: 'Seed', rule: OPTION_RULES.wholeNumber },
});

/** The delta switches the body sends as booleans, each read by the one yes/no rule ("true" from a sheet is true). */
export const DELTA_FLAG_FIELDS = fieldSet('Video Create delta switches', {
	generateAudio: { label: 'Generate Audio', rule: FLAG_RULE },
	watermark: { label: 'Watermark', rule: FLAG_RULE },
});

/** Extra Body Fields: a JSON object (text or value); empty means none. */
export function parseExtraBody(v: unknown): Obj | undefined {
	const o = readField(VIDEO_OPTION_FIELDS.extraBody.label, EXTRA_BODY_RULE, v);
	return o && Object.keys(o).length ? o : undefined;
}

/** The node's Options of item `i`, each read by its rule (Extra Body Fields: empty means none). */
function readVideoOptions(ctx: IExecuteFunctions, i: number): VideoCreateOptions {
	const raw = ctx.getNodeParameter('options', i, {}) as VideoCreateOptions;
	const checked = readFields(VIDEO_OPTION_FIELDS, raw as Record<string, unknown>);
	return {
		...raw,
		...checked,
		extraBody:
			checked.extraBody && Object.keys(checked.extraBody).length ? checked.extraBody : undefined,
	};
}

/** What both families' requests are read with: the item, its model and options, the key check. */
interface RequestContext {
	ctx: IExecuteFunctions;
	i: number;
	model: string;
	options: VideoCreateOptions;
	containsSecret: (text: string) => boolean;
	outsideForm: boolean;
}

/** A delta request: its JSON body from the fields, checked by the delta schema, and a hint when outside its form. */
function readDeltaRequest(r: RequestContext): VideoRequest {
	const { ctx, i, model, options } = r;
	const seed = options.seed;
	const flags = readFields(DELTA_FLAG_FIELDS, {
		generateAudio: ctx.getNodeParameter('generateAudio', i, false),
		watermark: ctx.getNodeParameter('watermark', i, false),
	});
	const { body, materials } = buildDeltaBody({
		model,
		prompt: ctx.getNodeParameter('prompt', i, ''),
		seconds: ctx.getNodeParameter('seconds', i, 5),
		resolution: ctx.getNodeParameter('resolution', i, '480p'),
		ratio: ctx.getNodeParameter('ratio', i, '16:9'),
		generateAudio: flags.generateAudio ?? false,
		watermark: flags.watermark ?? false,
		images: addressList(ctx.getNodeParameter('referenceImages', i, '')),
		videos: addressList(ctx.getNodeParameter('referenceVideos', i, '')),
		audios: addressList(ctx.getNodeParameter('referenceAudios', i, '')),
		firstFrame: ctx.getNodeParameter('firstFrame', i, ''),
		lastFrame: ctx.getNodeParameter('lastFrame', i, ''),
		// -1 (the field's default) means "random": nothing is sent
		seed: seed === undefined || seed === -1 ? undefined : seed,
		returnLastFrame: options.returnLastFrame === true,
		editMode: options.editMode === true,
		extraBody: options.extraBody as Obj | undefined,
	});
	parseOrThrow(deltaSchema({ containsSecret: r.containsSecret, outsideForm: r.outsideForm }), body);
	const offside = deltaOutsideForm(body);
	return { family: 'delta', model, body, materials, hints: offside ? [offside] : [] };
}

/** A gamma request: its body checked by the gamma schema, the reference file checked now and read again when sent. */
async function readGammaRequest(r: RequestContext): Promise<VideoRequest> {
	const { ctx, i, model } = r;
	const { body, materials } = buildGammaBody({
		model,
		prompt: ctx.getNodeParameter('prompt', i, ''),
		seconds: ctx.getNodeParameter('gammaSeconds', i, 8),
		aspectRatio: ctx.getNodeParameter('aspectRatio', i, '16:9'),
		imageUrls: addressList(ctx.getNodeParameter('imageUrls', i, '')),
	});
	const refProp = String(ctx.getNodeParameter('inputReference', i, '') ?? '').trim();
	parseOrThrow(
		gammaSchema({
			files: refProp ? 1 : 0,
			containsSecret: r.containsSecret,
			outsideForm: r.outsideForm,
		}),
		body,
	);
	let form: (() => Promise<FormData>) | undefined;
	if (refProp) {
		const field = 'Input Reference Binary Property';
		const readReference = async () => {
			const { data, meta, info } = await readInputImage(ctx, i, refProp, field, ANY_IMAGE);
			return {
				data,
				mimeType: info.mimeType,
				fileName: meta.fileName || `input_reference.${info.extension}`,
			};
		};
		// checked now, read again when sent: a batch never holds every item's file at once
		const { fileName } = await readReference();
		form = async () => buildGammaForm(body, await readReference());
		materials.push({ type: 'image', role: 'input_reference', file: fileName });
	}
	const hints = gammaPreferenceHints(body);
	const plain = (body.image_urls as unknown[] | undefined)?.filter(
		(u) =>
			typeof u === 'string' && u.startsWith('http:') && !mediaUrlProblem(u, { allowHttp: true }),
	);
	if (plain?.length)
		hints.push(
			`gamma-video: ${plain.length} reference image address(es) use http://; public HTTPS addresses are recommended`,
		);
	return { family: 'gamma', model, body, form, materials, hints };
}

/** Reads and checks the request of item `i`. Throws InputRuleError with every violated rule. */
export async function readVideoRequest(
	ctx: IExecuteFunctions,
	i: number,
	transport: GatewayTransport,
): Promise<VideoRequest> {
	const family = ctx.getNodeParameter('family', i) as VideoFamily;
	// version 1.1: each family has its own Model field (a gamma node's is gammaModel); version 1: one field for both
	const model = readModel(
		ctx,
		i,
		family === 'gamma' && ctx.getNode().typeVersion >= 1.1 ? 'gammaModel' : 'model',
	);
	const options = readVideoOptions(ctx, i);
	const r: RequestContext = {
		ctx,
		i,
		model,
		options,
		containsSecret: (text) => transport.redact(text) !== text,
		outsideForm: options.sendOutsideForm === true,
	};
	if (family === 'delta') return readDeltaRequest(r);
	if (family !== 'gamma') refuse([{ field: 'Family', rule: 'must be delta or gamma' }]);
	return readGammaRequest(r);
}

export interface VideoOrigin {
	origin: 'base' | 'video';
	origin_url: string;
}

/** The origin videos go to: the credential's Video Base URL when set, else its Base URL. */
export function videoOrigin(transport: GatewayTransport): VideoOrigin {
	const video = transport.root('video');
	return { origin: video === transport.root('base') ? 'base' : 'video', origin_url: video.root };
}

/** Sends the request once. An uncertain outcome is returned, never thrown; a definite rejection throws. */
export async function submitVideo(
	transport: GatewayTransport,
	req: VideoRequest,
): Promise<SubmitOutcome> {
	return transport.submit(
		'/v1/videos',
		req.form ? { form: await req.form() } : { json: req.body },
		{ origin: 'video', timeout: 'videoSubmit' },
	);
}

/** The output item's JSON (the contract Task Wait reads). */
export function videoOutput(
	req: VideoRequest,
	origin: VideoOrigin,
	out: SubmitOutcome,
): IDataObject {
	const base: IDataObject = {
		kind: 'video',
		family: req.family,
		model: req.model,
		...origin,
		materials: req.materials as unknown as IDataObject[],
		with_reference_video: req.materials.some((m) => m.type === 'video'),
	};
	if (out.kind === 'uncertain') {
		const task = isObj(out.body) ? out.body : undefined;
		const id = taskIdIn(task);
		return uncertainItem(
			{
				task_id: id ?? null,
				...base,
				...(out.status ? { http_status: out.status } : {}),
				task: (task ?? null) as IDataObject,
			},
			out.reason,
		);
	}
	const taskId = out.taskId;
	const data = isObj(out.body.data) ? out.body.data : {};
	if (!taskId)
		return uncertainItem(
			{
				task_id: null,
				...base,
				gateway_status: out.body.status ?? data.status ?? null,
				task: out.body as IDataObject,
			} as IDataObject,
			`HTTP ${out.status} without a task ID`,
		);
	return submittedItem(
		{
			task_id: taskId,
			...base,
			...(out.status >= 300 ? { http_status: out.status } : {}),
			task: out.body as IDataObject,
		},
		{ status: out.body.status ?? data.status },
	);
}
