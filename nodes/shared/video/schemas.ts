/**
 * Request rules for delta-video and gamma-video create bodies: the one place for them. Every rule is a
 * superRefine check, so all violations are reported at once, each naming its field path and the rule.
 * Rules 9/10 (reference video/audio durations, codecs, pixels, sizes) need the media itself: the gateway
 * checks them; nothing here fetches a media address.
 */
import { z } from 'zod';
import { isObj, type Obj } from '../jsonObject';
import { mediaUrlProblem } from './mediaUrl';

export const DELTA_MODELS = ['delta-video-2-0-mini-260615', 'delta-video-2-0-fast-260128'] as const;
export const GAMMA_MODELS = ['gamma-video-1.0', 'gamma-video-1.5'] as const;
export const DELTA_RATIOS = ['16:9', '9:16', '1:1', '4:3', '3:4', '21:9', 'adaptive'];
export const DELTA_RESOLUTIONS = ['480p', '720p'];
export const DELTA_SECONDS = { min: 4, max: 15, default: 5 } as const;
export const DELTA_PROMPT_MAX = 6000;
export const DELTA_SEED = { min: -1, max: 4294967295 } as const;
export const DELTA_LIMITS = { reference_image: 9, reference_video: 3, reference_audio: 3, total: 12, items: 13 } as const;
/** preferred by the spec, not required: other whole seconds are sent with a hint */
export const GAMMA_SECONDS = [6, 8, 10, 12, 15] as const;
/** passes the gateway's validation but is not confirmed upstream */
export const GAMMA_UNCONFIRMED_SECONDS = 4;
/** the ratios the spec names as common (1.0) or preferred (1.5: 16:9, 9:16); others are sent with a hint */
export const GAMMA_ASPECT_RATIOS = ['16:9', '9:16', '1:1'];
export const GAMMA_15_PREFERRED_RATIOS = ['16:9', '9:16'];
export const GAMMA_MAX_REFERENCES = 7;

export interface VideoRuleOptions {
	/** true when a text holds the credential's API key (media addresses must not) */
	containsSecret?: (text: string) => boolean;
}

type Path = Array<string | number>;
const codePoints = (s: string) => [...s].length;
const MEDIA_TYPES = { image_url: ['reference_image', 'first_frame', 'last_frame'], video_url: ['reference_video'], audio_url: ['reference_audio'] } as const;
/** top-level parameters that must not be repeated inside metadata */
const ONCE = ['model', 'prompt', 'ratio', 'seed', 'generate_audio', 'watermark', 'return_last_frame', 'omni_reference_task_type', 'images'];

/** Where an alias pair is given (top level and metadata), in order of precedence. */
function aliasPlaces(b: Obj, meta: Obj, names: [string, string]): Array<{ path: Path; value: unknown }> {
	const out: Array<{ path: Path; value: unknown }> = [];
	for (const n of names) if (b[n] !== undefined) out.push({ path: [n], value: b[n] });
	for (const n of names) if (meta[n] !== undefined) out.push({ path: ['metadata', n], value: meta[n] });
	return out;
}

const show = (p: Path) => p.join('.');

export function deltaSchema(opts: VideoRuleOptions = {}) {
	return z.record(z.unknown()).superRefine((b, ctx) => {
		const add = (path: Path, message: string) => ctx.addIssue({ code: 'custom', path, message });
		const urlProblem = (u: unknown) => mediaUrlProblem(u, { containsSecret: opts.containsSecret });

		if (!(DELTA_MODELS as readonly string[]).includes(String(b.model))) add(['model'], `must be ${DELTA_MODELS.join(' or ')}`);
		if (b.metadata !== undefined && !isObj(b.metadata)) add(['metadata'], 'must be an object');
		const meta: Obj = isObj(b.metadata) ? b.metadata : {};

		// Rule 1: ratio, never aspect_ratio; one of each alias pair; nothing both at top level and in metadata
		if ('aspect_ratio' in b) add(['aspect_ratio'], "use 'ratio', never 'aspect_ratio'");
		if ('aspect_ratio' in meta) add(['metadata', 'aspect_ratio'], "use 'ratio', never 'aspect_ratio'");
		for (const pair of [['seconds', 'duration'], ['resolution', 'size']] as Array<[string, string]>) {
			const places = aliasPlaces(b, meta, pair);
			if (places.length > 1) {
				const same = places.every((p) => String(p.value) === String(places[0].value));
				const where = places.map((p) => show(p.path)).join(', ');
				add(places[1].path, same ? `is given again (${where}): send one of ${pair.join('/')}, once` : `conflicts with ${show(places[0].path)} (${places.map((p) => `${show(p.path)}=${JSON.stringify(p.value)}`).join(', ')}): send one of ${pair.join('/')}`);
			}
		}
		for (const k of ONCE) if (k in meta && k in b) add(['metadata', k], 'is also given at top level: send it once');

		// Rules 4 and 8: content items, the images shorthand
		let content: unknown[] | undefined;
		if (meta.content !== undefined) {
			if (Array.isArray(meta.content)) content = meta.content;
			else add(['metadata', 'content'], 'must be a list of items {type, <type>: {url}, role}');
		}
		let images: unknown[] = [];
		if (b.images !== undefined) {
			if (Array.isArray(b.images)) images = b.images;
			else add(['images'], 'must be a list of HTTPS image addresses');
			if (content) add(['images'], 'the images shorthand cannot be mixed with metadata.content');
		}

		// Prompt: one text source, non-empty, at most 6000 characters
		const textIdx = (content ?? []).flatMap((c, i) => (isObj(c) && c.type === 'text' ? [i] : []));
		if (textIdx.length > 1) add(['metadata', 'content'], `holds ${textIdx.length} text items: at most one`);
		if (textIdx.length && b.prompt !== undefined) add(['prompt'], 'cannot be sent together with a text item in metadata.content: use one of them');
		if (textIdx.length && images.length) add(['images'], 'the images shorthand goes with a top-level prompt, not a text item');
		let promptText: string | undefined = '';
		let promptPath: Path = ['prompt'];
		if (b.prompt !== undefined) promptText = typeof b.prompt === 'string' ? b.prompt : undefined;
		else if (textIdx.length) {
			const text = (content![textIdx[0]] as Obj).text;
			promptPath = ['metadata', 'content', textIdx[0], 'text'];
			promptText = typeof text === 'string' ? text : undefined;
		}
		if (promptText === undefined) {
			add(promptPath, 'must be text');
			promptText = '';
		} else if (!promptText.trim()) add(promptPath, 'must not be empty');
		const promptLength = codePoints(promptText);
		if (promptLength > DELTA_PROMPT_MAX) add(promptPath, `is ${promptLength} characters; at most ${DELTA_PROMPT_MAX}`);

		// Rules 4 to 6: media items, roles, addresses
		const counts = { reference_image: 0, reference_video: 0, reference_audio: 0, first_frame: 0, last_frame: 0 };
		for (const [i, c] of (content ?? []).entries()) {
			if (!isObj(c)) {
				add(['metadata', 'content', i], 'must be an object {type, <type>: {url}, role}');
				continue;
			}
			if (c.type === 'text') continue;
			const t = String(c.type);
			if (!(t in MEDIA_TYPES)) {
				add(['metadata', 'content', i, 'type'], `"${t}" is not text, image_url, video_url or audio_url`);
				continue;
			}
			const inner = c[t];
			if (!isObj(inner)) add(['metadata', 'content', i, t], 'must be an object {url}');
			else {
				const p = urlProblem(inner.url);
				if (p) add(['metadata', 'content', i, t, 'url'], p);
			}
			const roles = MEDIA_TYPES[t as keyof typeof MEDIA_TYPES] as readonly string[];
			if (!roles.includes(String(c.role))) add(['metadata', 'content', i, 'role'], `must be ${roles.join(' or ')} for ${t}`);
			else counts[c.role as keyof typeof counts]++;
		}
		for (const [i, u] of images.entries()) {
			const p = urlProblem(u);
			if (p) add(['images', i], p);
		}
		counts.reference_image += images.length;
		const contentPath: Path = images.length && !content ? ['images'] : ['metadata', 'content'];
		for (const k of ['reference_image', 'reference_video', 'reference_audio'] as const) {
			if (counts[k] > DELTA_LIMITS[k]) add(k === 'reference_image' ? contentPath : ['metadata', 'content'], `${counts[k]} ${k.replace('_', ' ')}s: at most ${DELTA_LIMITS[k]}`);
		}
		const refs = counts.reference_image + counts.reference_video + counts.reference_audio;
		if (refs > DELTA_LIMITS.total) add(['metadata', 'content'], `${refs} references: at most ${DELTA_LIMITS.total} in total`);
		// prompt plus materials at most 13 items (follows from the 12 above while frames exclude references; kept as the spec states it)
		const items = refs + (promptText.trim() ? 1 : 0);
		if (refs <= DELTA_LIMITS.total && items > DELTA_LIMITS.items) add(['metadata', 'content'], `prompt plus materials: ${items} items, at most ${DELTA_LIMITS.items}`);

		// Rule 7: first and last frames together, one each, never with references
		for (const k of ['first_frame_image', 'last_frame_image']) {
			if (meta[k] !== undefined) {
				const p = urlProblem(meta[k]);
				if (p) add(['metadata', k], p);
			}
		}
		const firsts = counts.first_frame + (meta.first_frame_image !== undefined ? 1 : 0);
		const lasts = counts.last_frame + (meta.last_frame_image !== undefined ? 1 : 0);
		if (firsts || lasts) {
			if (firsts === 0 || lasts === 0) add(['metadata', firsts ? 'last_frame_image' : 'first_frame_image'], 'is missing: a single frame is invalid, give both first and last frame');
			else if (firsts > 1 || lasts > 1) add(['metadata', firsts > 1 ? 'first_frame_image' : 'last_frame_image'], 'is given more than once: one first frame and one last frame');
			if (refs) add(['metadata', 'first_frame_image'], 'first/last frames cannot be mixed with reference images, videos or audio');
		}

		// Rule 3: edit mode
		const edit = b.omni_reference_task_type === 'edit';
		if (b.omni_reference_task_type !== undefined && !edit) add(['omni_reference_task_type'], "must be 'edit' when given");
		if (edit && (counts.reference_video !== 1 || counts.reference_image || counts.reference_audio || firsts || lasts)) {
			add(['omni_reference_task_type'], `edit mode needs exactly one reference video and no other material (got ${counts.reference_video} video(s), ${counts.reference_image} image(s), ${counts.reference_audio} audio${firsts || lasts ? ', frames' : ''})`);
		}

		// Duration, resolution, ratio, seed, flags
		const sec = aliasPlaces(b, meta, ['seconds', 'duration'])[0];
		if (sec) {
			const s = typeof sec.value === 'string' && sec.value.trim() !== '' ? Number(sec.value) : sec.value;
			if (typeof s !== 'number' || !Number.isInteger(s)) add(sec.path, `${JSON.stringify(sec.value)} is not a whole number of seconds`);
			else if (s === -1 && !edit) add(sec.path, '-1 (follow the input length) is only allowed in edit mode');
			else if (s !== -1 && (s < DELTA_SECONDS.min || s > DELTA_SECONDS.max)) add(sec.path, `${s} is outside ${DELTA_SECONDS.min} to ${DELTA_SECONDS.max} seconds`);
		}
		const res = aliasPlaces(b, meta, ['resolution', 'size'])[0];
		if (res && !DELTA_RESOLUTIONS.includes(String(res.value))) {
			const v = String(res.value);
			const why = /^\d+\s*[x×*]\s*\d+$/i.test(v) ? 'is a pixel size: give 480p or 720p' : /1080|2k|4k|1440|2160/i.test(v) ? 'is not supported (1080p, 2K and 4K are not): 480p or 720p' : 'is not supported: 480p or 720p';
			add(res.path, `"${v}" ${why}`);
		}
		const ratio = b.ratio ?? meta.ratio;
		const ratioPath: Path = b.ratio !== undefined ? ['ratio'] : ['metadata', 'ratio'];
		if (ratio !== undefined && !DELTA_RATIOS.includes(String(ratio))) add(ratioPath, `"${String(ratio)}" must be one of ${DELTA_RATIOS.join(', ')}`);
		if (ratio === 'adaptive' && !(counts.reference_image || counts.reference_video || firsts || lasts)) add(ratioPath, "'adaptive' needs at least one image or video input (pure text or pure audio cannot use it)");
		const seed = b.seed ?? meta.seed;
		if (seed !== undefined && (typeof seed !== 'number' || !Number.isInteger(seed) || seed < DELTA_SEED.min || seed > DELTA_SEED.max)) {
			add(b.seed !== undefined ? ['seed'] : ['metadata', 'seed'], `${JSON.stringify(seed)}: must be an integer from ${DELTA_SEED.min} to ${DELTA_SEED.max}`);
		}
		for (const k of ['generate_audio', 'watermark']) {
			const v = b[k] ?? meta[k];
			if (typeof v !== 'boolean') add([k], v === undefined ? 'must be sent explicitly (true or false)' : 'must be true or false');
		}
		if (b.return_last_frame !== undefined && typeof b.return_last_frame !== 'boolean') add(['return_last_frame'], 'must be true or false');
	});
}

/** Delta rules without the credential check (use deltaSchema({ containsSecret }) in nodes). */
export const deltaBodySchema = deltaSchema();

export interface GammaRuleOptions extends VideoRuleOptions {
	/** files sent beside the body (multipart input_reference); they count as reference images */
	files?: number;
}

/** What the spec prefers for gamma without requiring it: hints for the execution, never refusals. */
export function gammaPreferenceHints(body: Obj): string[] {
	const hints: string[] = [];
	const s = Number(body.seconds);
	if (body.seconds !== undefined && s === GAMMA_UNCONFIRMED_SECONDS) hints.push(`gamma-video: ${GAMMA_UNCONFIRMED_SECONDS} seconds passes validation but is not confirmed upstream; ${GAMMA_SECONDS.join(', ')} are preferred`);
	else if (body.seconds !== undefined && !(GAMMA_SECONDS as readonly number[]).includes(s)) hints.push(`gamma-video: ${s} seconds is sent as asked, but ${GAMMA_SECONDS.join(', ')} are preferred; the gateway may refuse or adjust it`);
	const ratio = body.aspect_ratio === undefined ? undefined : String(body.aspect_ratio);
	if (body.model === 'gamma-video-1.5' && ratio !== undefined && !GAMMA_15_PREFERRED_RATIOS.includes(ratio)) hints.push(`gamma-video-1.5: ${GAMMA_15_PREFERRED_RATIOS.join(' or ')} are preferred over ${ratio}`);
	else if (ratio !== undefined && !GAMMA_ASPECT_RATIOS.includes(ratio)) hints.push(`gamma-video: aspect ratio ${ratio} is sent as asked, but ${GAMMA_ASPECT_RATIOS.join(', ')} are the common ones; the gateway may refuse or adjust it`);
	return hints;
}

export function gammaSchema(opts: GammaRuleOptions = {}) {
	return z.record(z.unknown()).superRefine((b, ctx) => {
		const add = (path: Path, message: string) => ctx.addIssue({ code: 'custom', path, message });
		if (!(GAMMA_MODELS as readonly string[]).includes(String(b.model))) add(['model'], `must be ${GAMMA_MODELS.join(' or ')}`);
		if (typeof b.prompt !== 'string') add(['prompt'], b.prompt === undefined ? 'must not be empty' : 'must be text');
		else if (!b.prompt.trim()) add(['prompt'], 'must not be empty');
		if ('ratio' in b) add(['ratio'], "gamma-video uses 'aspect_ratio', not 'ratio'");
		let s: number | undefined;
		if (b.seconds !== undefined) {
			s = typeof b.seconds === 'string' && b.seconds.trim() !== '' ? Number(b.seconds) : (b.seconds as number);
			if (typeof s !== 'number' || !Number.isInteger(s) || s < 1) add(['seconds'], `${JSON.stringify(b.seconds)}: must be a whole number of seconds (${GAMMA_SECONDS.join(', ')} are preferred)`);
		}
		let urls: unknown[] = [];
		if (b.image_urls !== undefined) {
			if (Array.isArray(b.image_urls)) urls = b.image_urls;
			else add(['image_urls'], 'must be a list of addresses');
		}
		for (const [i, u] of urls.entries()) {
			const p = mediaUrlProblem(u, { allowHttp: true, containsSecret: opts.containsSecret });
			if (p) add(['image_urls', i], p);
		}
		const files = opts.files ?? 0;
		const count = urls.length + files;
		if (count > GAMMA_MAX_REFERENCES) add(['image_urls'], `${count} reference images${files ? ` (incl. ${files} input_reference file)` : ''}: at most ${GAMMA_MAX_REFERENCES}`);
		if (b.model === 'gamma-video-1.0' && count > 1 && s !== undefined && s > 10) add(['seconds'], `${s}: gamma-video-1.0 with several reference images allows at most 10 seconds`);
		if (b.aspect_ratio !== undefined && (typeof b.aspect_ratio !== 'string' || !b.aspect_ratio.trim())) add(['aspect_ratio'], `${JSON.stringify(b.aspect_ratio)}: must be a ratio text such as 16:9`);
	});
}

/** Gamma rules for a JSON body (no files, no credential check). */
export const gammaBodySchema = gammaSchema();
