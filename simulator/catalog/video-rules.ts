/** The spec's validation rules for video create bodies (delta rules 1–11, gamma). */
import { publicUrlRefusal } from './addresses';

const DELTA_RATIOS = ['16:9', '9:16', '1:1', '4:3', '3:4', '21:9', 'adaptive'];
const LIMITS = { reference_image: 9, reference_video: 3, reference_audio: 3 };
const MAX_PROMPT_CHARS = 6000;

/** Parameters that may be given at top level or in metadata, each with its aliases (rule 1). */
const PARAMETERS: string[][] = [
	['prompt'],
	['seconds', 'duration'],
	['resolution', 'size'],
	['ratio', 'aspect_ratio'],
	['seed'],
	['generate_audio'],
	['watermark'],
	['return_last_frame'],
	['omni_reference_task_type'],
];

type Obj = Record<string, unknown>;
export const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);

function mediaUrlProblem(u: unknown): string | undefined {
	if (typeof u !== 'string' || !u) return 'missing url';
	if (!u.startsWith('https://')) return 'media addresses must be HTTPS';
	if (/[?&](key|api_key|token|access_token)=/i.test(u) || /sk-[A-Za-z0-9]{8}/.test(u))
		return 'media address must not contain an API key';
	return publicUrlRefusal(u);
}

/** What an accepted delta body asks for. */
export interface DeltaRequest {
	prompt: string;
	seconds?: number;
	resolution?: string;
	withRefVideo: boolean;
}

/** Rule 1: each parameter once, at one level, under one name. Returns the values by canonical name, or the problem. */
function parameters(b: Obj, meta: Obj): { values: Obj } | { problem: string } {
	const values: Obj = {};
	for (const names of PARAMETERS) {
		const found: Array<{ where: string; value: unknown }> = [];
		for (const [level, o] of [
			['', b],
			['metadata.', meta],
		] as const)
			for (const n of names)
				if (o[n] !== undefined) found.push({ where: `${level}${n}`, value: o[n] });
		if (found.length > 1) {
			const differ = new Set(found.map((x) => JSON.stringify(x.value))).size > 1;
			const list = found.map((x) => `'${x.where}'`).join(' and ');
			return {
				problem: differ
					? `Differing values for the same parameter: ${list}`
					: `Duplicate parameter: ${list}; send it once`,
			};
		}
		if (found.length) {
			if (found[0].where.endsWith('aspect_ratio'))
				return { problem: `Unknown parameter '${found[0].where}': use 'ratio'` };
			values[names[0]] = found[0].value;
		}
	}
	return { values };
}

/** Spec rules 1–11 for delta-video: the request, or the first problem (the gateway reports one at a time). */
export function deltaRequest(b: Obj): DeltaRequest | { problem: string } {
	const meta = isObj(b.metadata) ? b.metadata : {};
	const params = parameters(b, meta);
	if ('problem' in params) return params;
	const p = params.values;
	const content = Array.isArray(meta.content) ? (meta.content as Obj[]) : undefined;
	if (content && Array.isArray(b.images))
		return { problem: "Do not mix the 'images' shorthand with metadata.content" };
	const texts = content?.filter((c) => isObj(c) && c.type === 'text') ?? [];
	if (texts.length > 1) return { problem: 'metadata.content holds at most one text item' };
	if (texts.length && p.prompt !== undefined)
		return { problem: "Send either 'prompt' or a text item in metadata.content, not both" };
	if (p.prompt !== undefined && (typeof p.prompt !== 'string' || !p.prompt.trim()))
		return { problem: 'prompt must be a non-empty string' };
	if (texts.length && (typeof texts[0].text !== 'string' || !texts[0].text.trim()))
		return { problem: 'the text item of metadata.content must hold non-empty text' };
	const prompt =
		typeof p.prompt === 'string' ? p.prompt : texts.length ? String(texts[0].text) : '';
	// characters are code points, not UTF-16 units
	const chars = [...prompt].length;
	if (chars > MAX_PROMPT_CHARS)
		return { problem: `prompt is ${chars} characters; the limit is ${MAX_PROMPT_CHARS}` };
	const counts = {
		reference_image: 0,
		reference_video: 0,
		reference_audio: 0,
		first_frame: 0,
		last_frame: 0,
	};
	for (const [i, c] of (content ?? []).entries()) {
		if (!isObj(c)) return { problem: `metadata.content[${i}] is not an object` };
		if (c.type === 'text') continue;
		const t = c.type as string;
		if (!['image_url', 'video_url', 'audio_url'].includes(t))
			return { problem: `metadata.content[${i}].type '${t}' is not supported` };
		const inner = c[t];
		const problem = mediaUrlProblem(isObj(inner) ? inner.url : undefined);
		if (problem) return { problem: `metadata.content[${i}]: ${problem}` };
		const role = c.role as keyof typeof counts;
		const expected =
			t === 'image_url'
				? ['reference_image', 'first_frame', 'last_frame']
				: t === 'video_url'
					? ['reference_video']
					: ['reference_audio'];
		if (!expected.includes(role))
			return { problem: `metadata.content[${i}].role '${String(role)}' does not fit type ${t}` };
		counts[role]++;
	}
	const images = Array.isArray(b.images) ? b.images : [];
	for (const [i, u] of images.entries()) {
		const problem = mediaUrlProblem(u);
		if (problem) return { problem: `images[${i}]: ${problem}` };
	}
	counts.reference_image += images.length;
	for (const [k, max] of Object.entries(LIMITS))
		if (counts[k as keyof typeof LIMITS] > max)
			return { problem: `too many ${k.replace('reference_', 'reference ')}s: at most ${max}` };
	const refs = counts.reference_image + counts.reference_video + counts.reference_audio;
	if (refs > 12) return { problem: `at most 12 references in total (got ${refs})` };
	if (refs + (prompt ? 1 : 0) > 13) return { problem: 'prompt plus materials: at most 13 items' };
	const firsts = counts.first_frame + (meta.first_frame_image !== undefined ? 1 : 0);
	const lasts = counts.last_frame + (meta.last_frame_image !== undefined ? 1 : 0);
	if (firsts || lasts) {
		if (firsts !== 1 || lasts !== 1)
			return { problem: 'first and last frames must both be given, one each' };
		if (refs)
			return {
				problem: 'first/last frames cannot be mixed with reference images, videos or audio',
			};
		for (const k of ['first_frame_image', 'last_frame_image']) {
			if (meta[k] === undefined) continue;
			const problem = mediaUrlProblem(meta[k]);
			if (problem) return { problem: `metadata.${k}: ${problem}` };
		}
	}
	if (!prompt && !refs && !firsts)
		return { problem: 'give a prompt (or a text item) or at least one material' };
	const edit = p.omni_reference_task_type === 'edit';
	if (p.omni_reference_task_type !== undefined && !edit)
		return { problem: "omni_reference_task_type must be 'edit'" };
	if (edit && (counts.reference_video !== 1 || counts.reference_image || counts.reference_audio))
		return {
			problem: 'edit mode needs exactly one reference video and no other reference material',
		};
	let seconds: number | undefined;
	if (p.seconds !== undefined) {
		const s =
			typeof p.seconds === 'number' || typeof p.seconds === 'string' ? Number(p.seconds) : NaN;
		if (!Number.isInteger(s)) return { problem: 'seconds must be a whole number' };
		if (s === -1 && !edit) return { problem: 'duration -1 is only allowed in edit mode' };
		if (s !== -1 && (s < 4 || s > 15)) return { problem: `seconds ${s} is outside 4 to 15` };
		seconds = s;
	}
	const res = p.resolution;
	if (res !== undefined && !['480p', '720p'].includes(String(res)))
		return {
			problem: `resolution '${String(res)}' is not supported (480p or 720p; 1080p, 2K and 4K are not)`,
		};
	const ratio = p.ratio;
	if (ratio !== undefined && !DELTA_RATIOS.includes(String(ratio)))
		return { problem: `ratio '${String(ratio)}' is not supported` };
	if (ratio === 'adaptive' && !(counts.reference_image || counts.reference_video || firsts))
		return { problem: "ratio 'adaptive' needs at least one image or video input" };
	if (p.seed !== undefined) {
		const s = Number(p.seed);
		if (typeof p.seed === 'boolean' || !Number.isInteger(s) || s < -1 || s > 4294967295)
			return { problem: 'seed must be an integer from -1 to 4294967295' };
	}
	for (const k of ['generate_audio', 'watermark', 'return_last_frame'])
		if (p[k] !== undefined && typeof p[k] !== 'boolean')
			return { problem: `${k} must be a boolean` };
	return {
		prompt,
		seconds,
		resolution: res === undefined ? undefined : String(res),
		withRefVideo: counts.reference_video > 0,
	};
}

export function gammaProblem(b: Obj, files: number): string | undefined {
	if (typeof b.prompt !== 'string' || !b.prompt.trim()) return 'prompt must be a non-empty string';
	// the spec prefers 6, 8, 10, 12, 15 (4 passes validation) and states no other limit: any whole seconds are accepted
	const s =
		b.seconds === undefined
			? 8
			: typeof b.seconds === 'string' && b.seconds.trim() !== ''
				? Number(b.seconds)
				: b.seconds;
	if (typeof s !== 'number' || !Number.isInteger(s) || s < 1)
		return `seconds ${String(b.seconds)} is not a whole number of seconds`;
	if (
		b.aspect_ratio !== undefined &&
		(typeof b.aspect_ratio !== 'string' || !b.aspect_ratio.trim())
	)
		return 'aspect_ratio must be a ratio string';
	const urls = b.image_urls === undefined ? [] : b.image_urls;
	if (!Array.isArray(urls)) return 'image_urls must be an array of strings';
	const refs = urls.length + files;
	if (refs > 7) return `at most 7 reference images (got ${refs})`;
	if (b.model === 'gamma-video-1.0' && refs > 1 && s > 10)
		return 'gamma-video-1.0 with several references allows at most 10 seconds';
	for (const [i, u] of urls.entries())
		if (typeof u !== 'string' || publicUrlRefusal(u))
			return `image_urls[${i}] is not a readable public address`;
	return undefined;
}
