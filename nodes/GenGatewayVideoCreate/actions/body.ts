/** Turns Video Create's fields into a request body and names each material's prompt token. */
import { isObj, type Obj } from '../../shared/jsonObject';
import { numericText } from '../../shared/rules/options';

export type MaterialType = 'image' | 'video' | 'audio';

export interface Material {
	type: MaterialType;
	/** reference_image | reference_video | reference_audio (delta), reference_image | input_reference (gamma) */
	role: string;
	url?: string;
	/** gamma input_reference: the file name sent as multipart */
	file?: string;
	/** delta: how a prompt names it, @图片N / @视频N / @音频N, numbered within its type in array order */
	token?: string;
}

export const TOKEN_WORD: Record<MaterialType, string> = {
	image: '图片',
	video: '视频',
	audio: '音频',
};
const ITEM: Record<MaterialType, { itemType: string; role: string }> = {
	image: { itemType: 'image_url', role: 'reference_image' },
	video: { itemType: 'video_url', role: 'reference_video' },
	audio: { itemType: 'audio_url', role: 'reference_audio' },
};
const TYPE_OF_ROLE: Record<string, MaterialType> = {
	reference_image: 'image',
	reference_video: 'video',
	reference_audio: 'audio',
};

/** The reference materials of a delta body, in array order, with their prompt tokens. */
export function deltaMaterials(body: Obj): Material[] {
	const n: Record<MaterialType, number> = { image: 0, video: 0, audio: 0 };
	const out: Material[] = [];
	const push = (type: MaterialType, role: string, url: unknown) => {
		n[type]++;
		out.push({
			type,
			role,
			url: typeof url === 'string' ? url : String(url),
			token: `@${TOKEN_WORD[type]}${n[type]}`,
		});
	};
	const meta = isObj(body.metadata) ? body.metadata : {};
	for (const c of Array.isArray(meta.content) ? meta.content : []) {
		if (!isObj(c) || typeof c.role !== 'string') continue;
		const type = TYPE_OF_ROLE[c.role];
		if (!type) continue;
		const inner = c[String(c.type)];
		push(type, c.role, isObj(inner) ? inner.url : undefined);
	}
	if (Array.isArray(body.images)) for (const u of body.images) push('image', 'reference_image', u);
	return out;
}

export interface DeltaFields {
	model: string;
	prompt: unknown;
	seconds: unknown;
	resolution: unknown;
	ratio: unknown;
	generateAudio: unknown;
	watermark: unknown;
	images: unknown[];
	videos: unknown[];
	audios: unknown[];
	firstFrame?: unknown;
	lastFrame?: unknown;
	seed?: unknown;
	returnLastFrame?: boolean;
	editMode?: boolean;
	/** raw fields: they replace the node's field of the same name; metadata is merged (content items appended) */
	extraBody?: Obj;
}

const blank = (v: unknown) =>
	v === undefined || v === null || (typeof v === 'string' && v.trim() === '');

/**
 * Merges raw extra fields into a body: top-level keys replace (null removes the node's field), `metadata`
 * is merged and `metadata.content` appended after the node's items.
 */
export function mergeExtra(body: Obj, extra: Obj | undefined): Obj {
	if (!extra) return body;
	const out: Obj = { ...body };
	for (const [k, v] of Object.entries(extra)) {
		if (v === null) delete out[k];
		else if (k === 'metadata' && isObj(v) && isObj(out.metadata)) {
			const meta: Obj = { ...out.metadata, ...v };
			if (Array.isArray(out.metadata.content) && Array.isArray(v.content))
				meta.content = [...out.metadata.content, ...v.content];
			out.metadata = meta;
		} else out[k] = v;
	}
	return out;
}

export function buildDeltaBody(f: DeltaFields): { body: Obj; materials: Material[] } {
	const content: Obj[] = [];
	for (const [type, list] of [
		['image', f.images],
		['video', f.videos],
		['audio', f.audios],
	] as const) {
		for (const url of list) {
			const { itemType, role } = ITEM[type];
			content.push({ type: itemType, [itemType]: { url }, role });
		}
	}
	const body: Obj = { model: f.model };
	// an empty prompt is left out, so a text item in metadata.content (Extra Body Fields) can carry it
	if (!blank(f.prompt)) body.prompt = f.prompt;
	const seconds = numericText(f.seconds);
	// edit mode may follow the input length: the spec names that `duration: -1`
	if (f.editMode && seconds === -1) body.duration = -1;
	else if (!blank(seconds)) body.seconds = seconds;
	body.resolution = f.resolution;
	body.ratio = f.ratio;
	body.generate_audio = f.generateAudio;
	body.watermark = f.watermark;
	const metadata: Obj = {};
	if (content.length) metadata.content = content;
	if (!blank(f.firstFrame))
		metadata.first_frame_image =
			typeof f.firstFrame === 'string' ? f.firstFrame.trim() : f.firstFrame;
	if (!blank(f.lastFrame))
		metadata.last_frame_image = typeof f.lastFrame === 'string' ? f.lastFrame.trim() : f.lastFrame;
	if (Object.keys(metadata).length) body.metadata = metadata;
	if (!blank(f.seed)) body.seed = f.seed;
	if (f.returnLastFrame) body.return_last_frame = true;
	if (f.editMode) body.omni_reference_task_type = 'edit';
	const merged = mergeExtra(body, f.extraBody);
	return { body: merged, materials: deltaMaterials(merged) };
}

export interface GammaFields {
	model: string;
	prompt: unknown;
	seconds: unknown;
	aspectRatio: unknown;
	imageUrls: unknown[];
}

export function buildGammaBody(f: GammaFields): { body: Obj; materials: Material[] } {
	const seconds = numericText(f.seconds);
	const body: Obj = { model: f.model, prompt: f.prompt };
	if (!blank(seconds)) body.seconds = seconds;
	if (!blank(f.aspectRatio)) body.aspect_ratio = f.aspectRatio;
	if (f.imageUrls.length) body.image_urls = f.imageUrls;
	const materials: Material[] = f.imageUrls.map((url) => ({
		type: 'image',
		role: 'reference_image',
		url: String(url),
	}));
	return { body, materials };
}

/**
 * The multipart form of a gamma body with an `input_reference` file. Built with the runtime's FormData and
 * Blob (the transport hands it to its HTTP client and lets it set the boundary); list fields repeat.
 */
export function buildGammaForm(
	body: Obj,
	file: { data: Uint8Array; mimeType: string; fileName: string },
): FormData {
	const form = new FormData();
	for (const [k, v] of Object.entries(body)) {
		if (v === undefined || v === null) continue;
		if (Array.isArray(v)) for (const x of v) form.append(k, String(x));
		else form.append(k, typeof v === 'object' ? JSON.stringify(v) : String(v));
	}
	form.append('input_reference', new Blob([file.data], { type: file.mimeType }), file.fileName);
	return form;
}
