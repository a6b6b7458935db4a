/** Request rules for delta-video and gamma-video bodies (all violations reported at once). */
import { z } from 'zod';
import { mediaUrlProblem } from './mediaUrl';

export const DELTA_MODELS = ['delta-video-2-0-mini-260615', 'delta-video-2-0-fast-260128'] as const;
export const GAMMA_MODELS = ['gamma-video-1.0', 'gamma-video-1.5'] as const;
export const DELTA_RATIOS = ['16:9', '9:16', '1:1', '4:3', '3:4', '21:9', 'adaptive'];
const LIMITS = { reference_image: 9, reference_video: 3, reference_audio: 3 } as const;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);

export const deltaBodySchema = z
	.record(z.unknown())
	.superRefine((b, ctx) => {
		const add = (path: Array<string | number>, message: string) => ctx.addIssue({ code: 'custom', path, message });
		if (!(DELTA_MODELS as readonly string[]).includes(String(b.model))) add(['model'], `must be ${DELTA_MODELS.join(' or ')}`);
		if ('aspect_ratio' in b) add(['aspect_ratio'], "use 'ratio', never 'aspect_ratio'");
		const meta = isObj(b.metadata) ? b.metadata : {};
		for (const k of ['seconds', 'duration', 'resolution', 'size', 'ratio', 'seed', 'generate_audio', 'watermark']) if (k in meta && k in b) add(['metadata', k], `is also given at top level: send it once`);
		if (b.seconds !== undefined && b.duration !== undefined) add(['duration'], b.seconds === b.duration ? "send one of seconds and duration, not both" : 'conflicts with seconds: send one of the alias pair');
		if (b.resolution !== undefined && b.size !== undefined) add(['size'], b.resolution === b.size ? 'send one of resolution and size, not both' : 'conflicts with resolution: send one of the alias pair');
		const content = Array.isArray(meta.content) ? (meta.content as unknown[]) : undefined;
		if (content && Array.isArray(b.images)) add(['images'], 'the images shorthand cannot be mixed with metadata.content');
		const texts = (content ?? []).filter((c) => isObj(c) && c.type === 'text');
		if (texts.length > 1) add(['metadata', 'content'], 'holds at most one text item');
		const hasPrompt = typeof b.prompt === 'string' && b.prompt.trim() !== '';
		if (texts.length && b.prompt !== undefined) add(['prompt'], 'cannot be sent together with a text item in metadata.content');
		const promptText = hasPrompt ? (b.prompt as string) : texts.length ? String((texts[0] as Obj).text ?? '') : '';
		if (b.prompt !== undefined && typeof b.prompt !== 'string') add(['prompt'], 'must be text');
		else if (!promptText.trim()) add(['prompt'], 'must not be empty');
		if (promptText.length > 6000) add(['prompt'], `is ${promptText.length} characters; at most 6000`);
		const counts = { reference_image: 0, reference_video: 0, reference_audio: 0, first_frame: 0, last_frame: 0 };
		for (const [i, c] of (content ?? []).entries()) {
			if (!isObj(c)) {
				add(['metadata', 'content', i], 'must be an object {type, <type>: {url}, role}');
				continue;
			}
			if (c.type === 'text') continue;
			const t = String(c.type);
			if (!['image_url', 'video_url', 'audio_url'].includes(t)) {
				add(['metadata', 'content', i, 'type'], 'must be text, image_url, video_url or audio_url');
				continue;
			}
			const inner = c[t];
			const p = mediaUrlProblem(isObj(inner) ? inner.url : undefined);
			if (p) add(['metadata', 'content', i, t, 'url'], p);
			const roles = t === 'image_url' ? ['reference_image', 'first_frame', 'last_frame'] : t === 'video_url' ? ['reference_video'] : ['reference_audio'];
			if (!roles.includes(String(c.role))) add(['metadata', 'content', i, 'role'], `must be ${roles.join(' or ')} for ${t}`);
			else counts[c.role as keyof typeof counts]++;
		}
		const images = Array.isArray(b.images) ? b.images : [];
		for (const [i, u] of images.entries()) {
			const p = mediaUrlProblem(u);
			if (p) add(['images', i], p);
		}
		counts.reference_image += images.length;
		for (const [k, max] of Object.entries(LIMITS)) if (counts[k as keyof typeof LIMITS] > max) add(['metadata', 'content'], `${counts[k as keyof typeof LIMITS]} ${k.replace('_', ' ')}s: at most ${max}`);
		const refs = counts.reference_image + counts.reference_video + counts.reference_audio;
		if (refs > 12) add(['metadata', 'content'], `${refs} references: at most 12 in total`);
		if (refs + (promptText ? 1 : 0) > 13) add(['metadata', 'content'], 'prompt plus materials: at most 13 items');
		const firsts = counts.first_frame + (meta.first_frame_image !== undefined ? 1 : 0);
		const lasts = counts.last_frame + (meta.last_frame_image !== undefined ? 1 : 0);
		for (const k of ['first_frame_image', 'last_frame_image']) {
			if (meta[k] !== undefined) {
				const p = mediaUrlProblem(meta[k]);
				if (p) add(['metadata', k], p);
			}
		}
		if (firsts || lasts) {
			if (firsts !== 1 || lasts !== 1) add(['metadata', firsts ? 'last_frame_image' : 'first_frame_image'], 'first and last frames go together: give both, one each');
			if (refs) add(['metadata', 'first_frame_image'], 'first/last frames cannot be mixed with reference images, videos or audio');
		}
		const edit = b.omni_reference_task_type === 'edit';
		if (b.omni_reference_task_type !== undefined && !edit) add(['omni_reference_task_type'], "must be 'edit' when given");
		if (edit && (counts.reference_video !== 1 || counts.reference_image || counts.reference_audio || images.length)) add(['omni_reference_task_type'], 'edit mode needs exactly one reference video and no other reference material');
		const sec = b.seconds ?? b.duration ?? meta.seconds ?? meta.duration;
		if (sec !== undefined) {
			const s = typeof sec === 'string' && sec.trim() !== '' ? Number(sec) : sec;
			if (typeof s !== 'number' || !Number.isInteger(s)) add([b.duration !== undefined ? 'duration' : 'seconds'], 'must be a whole number of seconds');
			else if (s === -1 && !edit) add([b.duration !== undefined ? 'duration' : 'seconds'], '-1 (follow the input length) is only allowed in edit mode');
			else if (s !== -1 && (s < 4 || s > 15)) add([b.duration !== undefined ? 'duration' : 'seconds'], `${s} is outside 4 to 15 seconds`);
		}
		const res = b.resolution ?? b.size;
		if (res !== undefined && !['480p', '720p'].includes(String(res))) add([b.resolution !== undefined ? 'resolution' : 'size'], `"${String(res)}" is not supported: 480p or 720p (1080p, 2K and 4K are not)`);
		if (b.ratio !== undefined && !DELTA_RATIOS.includes(String(b.ratio))) add(['ratio'], `must be one of ${DELTA_RATIOS.join(', ')}`);
		if (b.ratio === 'adaptive' && !(counts.reference_image || counts.reference_video || firsts)) add(['ratio'], "'adaptive' needs at least one image or video input");
		if (b.seed !== undefined && (typeof b.seed !== 'number' || !Number.isInteger(b.seed) || b.seed < -1 || b.seed > 4294967295)) add(['seed'], 'must be an integer from -1 to 4294967295');
		for (const k of ['generate_audio', 'watermark']) if (typeof b[k] !== 'boolean') add([k], 'must be sent explicitly as true or false');
		if (b.return_last_frame !== undefined && typeof b.return_last_frame !== 'boolean') add(['return_last_frame'], 'must be true or false');
	});

export const gammaBodySchema = z
	.record(z.unknown())
	.superRefine((b, ctx) => {
		const add = (path: Array<string | number>, message: string) => ctx.addIssue({ code: 'custom', path, message });
		if (!(GAMMA_MODELS as readonly string[]).includes(String(b.model))) add(['model'], `must be ${GAMMA_MODELS.join(' or ')}`);
		if (typeof b.prompt !== 'string' || !b.prompt.trim()) add(['prompt'], 'must not be empty');
		const s = Number(b.seconds);
		if (!Number.isInteger(s) || ![4, 6, 8, 10, 12, 15].includes(s)) add(['seconds'], 'must be 6, 8, 10, 12 or 15 (4 passes validation but is unconfirmed upstream)');
		const urls = b.image_urls === undefined ? [] : b.image_urls;
		if (!Array.isArray(urls)) add(['image_urls'], 'must be a list of addresses');
		const count = (Array.isArray(urls) ? urls.length : 0) + (b.__files as number | undefined ?? 0);
		if (count > 7) add(['image_urls'], `${count} reference images: at most 7`);
		if (b.model === 'gamma-video-1.0' && count > 1 && s > 10) add(['seconds'], 'gamma-video-1.0 with several references allows at most 10 seconds');
		for (const [i, u] of (Array.isArray(urls) ? urls : []).entries()) {
			const p = mediaUrlProblem(u);
			if (p) add(['image_urls', i], p);
		}
		if (b.aspect_ratio !== undefined && !['16:9', '9:16', '1:1'].includes(String(b.aspect_ratio))) add(['aspect_ratio'], 'must be 16:9, 9:16 or 1:1');
	});
