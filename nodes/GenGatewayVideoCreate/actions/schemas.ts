/**
 * Request rules for delta-video and gamma-video create bodies: the one place for them. Every rule is a
 * superRefine check, so all violations are reported at once, each naming its field path and the rule.
 * Rules 9/10 (reference video/audio durations, codecs, pixels, sizes) need the media itself: the gateway
 * checks them; nothing here fetches a media address.
 */
import { z } from 'zod';
import { isObj, type Obj } from '../../shared/jsonObject';
import { bodyRuleSet, violate, type BodyRule } from '../../shared/rules/body';
import { mediaUrlProblem } from '../../shared/rules/mediaUrl';

export const DELTA_MODELS = ['delta-video-2-0-mini-260615', 'delta-video-2-0-fast-260128'] as const;
export const GAMMA_MODELS = ['gamma-video-1.0', 'gamma-video-1.5'] as const;
export const DELTA_RATIOS = ['16:9', '9:16', '1:1', '4:3', '3:4', '21:9', 'adaptive'];
export const DELTA_RESOLUTIONS = ['480p', '720p'];
export const DELTA_SECONDS = { min: 4, max: 15, default: 5 } as const;
export const DELTA_PROMPT_MAX = 6000;
export const DELTA_SEED = { min: -1, max: 4294967295 } as const;
export const DELTA_LIMITS = {
	reference_image: 9,
	reference_video: 3,
	reference_audio: 3,
	total: 12,
	items: 13,
} as const;
/** preferred by the spec, and what the form offers: others are refused unless Send Values Outside the Form is on */
export const GAMMA_SECONDS = [6, 8, 10, 12, 15] as const;
/** passes the gateway's validation but is not confirmed upstream */
export const GAMMA_UNCONFIRMED_SECONDS = 4;
/** the ratios the spec names as common (1.0) or preferred (1.5: 16:9, 9:16), and what the form offers */
export const GAMMA_ASPECT_RATIOS = ['16:9', '9:16', '1:1'];
export const GAMMA_15_PREFERRED_RATIOS = ['16:9', '9:16'];
export const GAMMA_MAX_REFERENCES = 7;

/** The option that sends a Seconds (or gamma Aspect Ratio) value the form does not offer instead of refusing it. */
export const OUTSIDE_FORM = 'Send Values Outside the Form';
const SEND_ANYWAY = `Options → ${OUTSIDE_FORM} sends it anyway`;

export interface VideoRuleOptions {
	/** true when a text holds the credential's API key (media addresses must not) */
	containsSecret?: (text: string) => boolean;
	/**
	 * Send Values Outside the Form: seconds (and a gamma aspect ratio) outside what the form offers are sent as asked
	 * (with a hint) instead of refused; the rules the spec states beyond the form (whole seconds, gamma-video-1.0 with
	 * several references at most 10 s, …) still hold.
	 */
	outsideForm?: boolean;
}

type Path = Array<string | number>;
const codePoints = (s: string) => [...s].length;
const MEDIA_TYPES = {
	image_url: ['reference_image', 'first_frame', 'last_frame'],
	video_url: ['reference_video'],
	audio_url: ['reference_audio'],
} as const;
/** top-level parameters that must not be repeated inside metadata */
const ONCE = [
	'model',
	'prompt',
	'ratio',
	'seed',
	'generate_audio',
	'watermark',
	'return_last_frame',
	'omni_reference_task_type',
	'images',
];

/** Where an alias pair is given (top level and metadata), in order of precedence. */
function aliasPlaces(
	b: Obj,
	meta: Obj,
	names: [string, string],
): Array<{ path: Path; value: unknown }> {
	const out: Array<{ path: Path; value: unknown }> = [];
	for (const n of names) if (b[n] !== undefined) out.push({ path: [n], value: b[n] });
	for (const n of names)
		if (meta[n] !== undefined) out.push({ path: ['metadata', n], value: meta[n] });
	return out;
}

const show = (p: Path) => p.join('.');

/** The delta-video body's rules (their examples, for the bad-input corpus: test/fixtures/video-rules.ts). */
export const DELTA_RULES = bodyRuleSet('Video Create delta body', {
	schema: () => deltaSchema(),
	rules: {
		model: { field: 'model', says: `must be ${DELTA_MODELS.join(' or ')}` },
		metadataObject: { field: 'metadata', says: 'must be an object' },
		aspectRatio: { field: 'aspect_ratio', says: "use 'ratio', never 'aspect_ratio'" },
		metadataAspectRatio: {
			field: 'metadata.aspect_ratio',
			says: "use 'ratio', never 'aspect_ratio'",
		},
		aliasRepeated: { field: 'duration', says: 'is given again' },
		aliasConflict: { field: 'duration', says: 'conflicts with seconds' },
		once: { field: 'metadata.watermark', says: 'is also given at top level: send it once' },
		contentList: { field: 'metadata.content', says: 'must be a list of items' },
		imagesList: { field: 'images', says: 'must be a list of HTTPS image addresses' },
		imagesWithContent: {
			field: 'images',
			says: 'the images shorthand cannot be mixed with metadata.content',
		},
		textItems: { field: 'metadata.content', says: 'text items: at most one' },
		promptWithText: { field: 'prompt', says: 'cannot be sent together with a text item' },
		imagesWithText: {
			field: 'images',
			says: 'the images shorthand goes with a top-level prompt, not a text item',
		},
		promptText: { field: 'prompt', says: 'must be text' },
		promptNotEmpty: { field: 'prompt', says: 'must not be empty' },
		promptLength: { field: 'prompt', says: `characters; at most ${DELTA_PROMPT_MAX}` },
		itemObject: {
			field: 'metadata.content[0]',
			says: 'must be an object {type, <type>: {url}, role}',
		},
		itemType: {
			field: 'metadata.content[0].type',
			says: 'is not text, image_url, video_url or audio_url',
		},
		itemInner: { field: 'metadata.content[0].video_url', says: 'must be an object {url}' },
		itemUrl: { field: 'metadata.content[0].video_url.url', says: 'must use https://' },
		itemRole: {
			field: 'metadata.content[0].role',
			says: 'must be reference_image or first_frame or last_frame for image_url',
		},
		imagesUrl: { field: 'images[0]', says: 'must use https://' },
		tooManyImages: {
			field: 'metadata.content',
			says: `reference images: at most ${DELTA_LIMITS.reference_image}`,
		},
		tooManyVideos: {
			field: 'metadata.content',
			says: `reference videos: at most ${DELTA_LIMITS.reference_video}`,
		},
		tooManyAudios: {
			field: 'metadata.content',
			says: `reference audios: at most ${DELTA_LIMITS.reference_audio}`,
		},
		tooManyReferences: {
			field: 'metadata.content',
			says: `references: at most ${DELTA_LIMITS.total} in total`,
		},
		frameUrl: { field: 'metadata.first_frame_image', says: 'must use https://' },
		frameAlone: {
			field: 'metadata.last_frame_image',
			says: 'is missing: a single frame is invalid',
		},
		frameTwice: { field: 'metadata.first_frame_image', says: 'is given more than once' },
		framesWithReferences: {
			field: 'metadata.first_frame_image',
			says: 'first/last frames cannot be mixed with reference images, videos or audio',
		},
		editValue: { field: 'omni_reference_task_type', says: "must be 'edit' when given" },
		editMaterial: {
			field: 'omni_reference_task_type',
			says: 'edit mode needs exactly one reference video and no other material',
		},
		secondsWhole: { field: 'seconds', says: 'is not a whole number of seconds' },
		followInputInEditOnly: {
			field: 'duration',
			says: `-1 (follow the input length) is only allowed in edit mode (${SEND_ANYWAY})`,
		},
		secondsRange: {
			field: 'seconds',
			says: `is outside ${DELTA_SECONDS.min} to ${DELTA_SECONDS.max} seconds (${SEND_ANYWAY})`,
		},
		resolution: { field: 'resolution', says: '480p or 720p' },
		ratio: { field: 'ratio', says: `must be one of ${DELTA_RATIOS.join(', ')}` },
		adaptiveRatio: { field: 'ratio', says: "'adaptive' needs at least one image or video input" },
		seed: { field: 'seed', says: `must be an integer from ${DELTA_SEED.min} to ${DELTA_SEED.max}` },
		flagSent: { field: 'generate_audio', says: 'must be sent explicitly (true or false)' },
		flagBoolean: { field: 'generate_audio', says: 'must be true or false' },
		returnLastFrame: { field: 'return_last_frame', says: 'must be true or false' },
	},
});

/** Reports a violation of a declared rule at a path, with the rule's words or a message holding them. */
type Add = (rule: BodyRule, path: Path, message?: string) => void;

/** What the delta rules read: the body, its metadata ({} when none or not an object), and where refusals go. */
interface Delta {
	b: Obj;
	meta: Obj;
	add: Add;
	/** what is wrong with a media address (https only, no API key), undefined when nothing */
	urlProblem: (u: unknown) => string | undefined;
}

/** The material a body names: the content list and images shorthand, and how many media of each role. */
interface Material {
	content: unknown[] | undefined;
	images: unknown[];
	counts: Record<'reference_image' | 'reference_video' | 'reference_audio', number>;
	/** reference images, videos and audio in all */
	refs: number;
	/** first and last frames, in content items and metadata */
	firsts: number;
	lasts: number;
}

/** the delta rules, as the rule functions below name them */
const DR = DELTA_RULES;

/** The model is a delta-video model; metadata, when given, is an object. */
function deltaModel({ b, add }: Delta): void {
	if (!(DELTA_MODELS as readonly string[]).includes(String(b.model))) add(DR.model, ['model']);
	if (b.metadata !== undefined && !isObj(b.metadata)) add(DR.metadataObject, ['metadata']);
}

/** Rule 1: ratio, never aspect_ratio; one of each alias pair; nothing both at top level and in metadata. */
function deltaNamesOnce({ b, meta, add }: Delta): void {
	if ('aspect_ratio' in b) add(DR.aspectRatio, ['aspect_ratio']);
	if ('aspect_ratio' in meta) add(DR.metadataAspectRatio, ['metadata', 'aspect_ratio']);
	for (const pair of [
		['seconds', 'duration'],
		['resolution', 'size'],
	] as Array<[string, string]>) {
		const places = aliasPlaces(b, meta, pair);
		if (places.length > 1) {
			const same = places.every((p) => String(p.value) === String(places[0].value));
			const where = places.map((p) => show(p.path)).join(', ');
			if (same)
				add(
					DR.aliasRepeated,
					places[1].path,
					`${DR.aliasRepeated.says} (${where}): send one of ${pair.join('/')}, once`,
				);
			else
				add(
					DR.aliasConflict,
					places[1].path,
					`conflicts with ${show(places[0].path)} (${places.map((p) => `${show(p.path)}=${JSON.stringify(p.value)}`).join(', ')}): send one of ${pair.join('/')}`,
				);
		}
	}
	for (const k of ONCE) if (k in meta && k in b) add(DR.once, ['metadata', k]);
}

/** Rules 4 and 8: metadata.content and the images shorthand are lists, and not both; returns them. */
function deltaLists({ b, meta, add }: Delta): Pick<Material, 'content' | 'images'> {
	let content: unknown[] | undefined;
	if (meta.content !== undefined) {
		if (Array.isArray(meta.content)) content = meta.content;
		else
			add(
				DR.contentList,
				['metadata', 'content'],
				`${DR.contentList.says} {type, <type>: {url}, role}`,
			);
	}
	let images: unknown[] = [];
	if (b.images !== undefined) {
		if (Array.isArray(b.images)) images = b.images;
		else add(DR.imagesList, ['images']);
		if (content) add(DR.imagesWithContent, ['images']);
	}
	return { content, images };
}

/** Prompt: one text source (prompt or one text item), non-empty, at most 6000 characters. */
function deltaPrompt({ b, add }: Delta, { content, images }: Pick<Material, 'content' | 'images'>) {
	const textIdx = (content ?? []).flatMap((c, i) => (isObj(c) && c.type === 'text' ? [i] : []));
	if (textIdx.length > 1)
		add(DR.textItems, ['metadata', 'content'], `holds ${textIdx.length} ${DR.textItems.says}`);
	if (textIdx.length && b.prompt !== undefined)
		add(
			DR.promptWithText,
			['prompt'],
			`${DR.promptWithText.says} in metadata.content: use one of them`,
		);
	if (textIdx.length && images.length) add(DR.imagesWithText, ['images']);
	let promptText: string | undefined = '';
	let promptPath: Path = ['prompt'];
	if (b.prompt !== undefined) promptText = typeof b.prompt === 'string' ? b.prompt : undefined;
	else if (textIdx.length) {
		const text = (content![textIdx[0]] as Obj).text;
		promptPath = ['metadata', 'content', textIdx[0], 'text'];
		promptText = typeof text === 'string' ? text : undefined;
	}
	if (promptText === undefined) {
		add(DR.promptText, promptPath);
		promptText = '';
	} else if (!promptText.trim()) add(DR.promptNotEmpty, promptPath);
	const promptLength = codePoints(promptText);
	if (promptLength > DELTA_PROMPT_MAX)
		add(DR.promptLength, promptPath, `is ${promptLength} ${DR.promptLength.says}`);
}

/** Rules 4 to 6: each media item's type, inner object, address and role, and the number of references. */
function deltaMedia(
	{ add, urlProblem }: Delta,
	{ content, images }: Pick<Material, 'content' | 'images'>,
): Pick<Material, 'counts' | 'refs'> & { frames: { first: number; last: number } } {
	const counts = {
		reference_image: 0,
		reference_video: 0,
		reference_audio: 0,
		first_frame: 0,
		last_frame: 0,
	};
	for (const [i, c] of (content ?? []).entries()) {
		if (!isObj(c)) {
			add(DR.itemObject, ['metadata', 'content', i]);
			continue;
		}
		if (c.type === 'text') continue;
		const t = String(c.type);
		if (!(t in MEDIA_TYPES)) {
			add(DR.itemType, ['metadata', 'content', i, 'type'], `"${t}" ${DR.itemType.says}`);
			continue;
		}
		const inner = c[t];
		if (!isObj(inner)) add(DR.itemInner, ['metadata', 'content', i, t]);
		else {
			const p = urlProblem(inner.url);
			if (p) add(DR.itemUrl, ['metadata', 'content', i, t, 'url'], p);
		}
		const roles = MEDIA_TYPES[t as keyof typeof MEDIA_TYPES] as readonly string[];
		if (!roles.includes(String(c.role)))
			add(
				DR.itemRole,
				['metadata', 'content', i, 'role'],
				`must be ${roles.join(' or ')} for ${t}`,
			);
		else counts[c.role as keyof typeof counts]++;
	}
	for (const [i, u] of images.entries()) {
		const p = urlProblem(u);
		if (p) add(DR.imagesUrl, ['images', i], p);
	}
	counts.reference_image += images.length;
	const contentPath: Path = images.length && !content ? ['images'] : ['metadata', 'content'];
	const tooMany = {
		reference_image: DR.tooManyImages,
		reference_video: DR.tooManyVideos,
		reference_audio: DR.tooManyAudios,
	};
	for (const k of ['reference_image', 'reference_video', 'reference_audio'] as const) {
		if (counts[k] > DELTA_LIMITS[k])
			add(
				tooMany[k],
				k === 'reference_image' ? contentPath : ['metadata', 'content'],
				`${counts[k]} ${tooMany[k].says}`,
			);
	}
	const refs = counts.reference_image + counts.reference_video + counts.reference_audio;
	// the spec's "prompt plus materials at most 13 items" follows from this while frames exclude references
	if (refs > DELTA_LIMITS.total)
		add(DR.tooManyReferences, ['metadata', 'content'], `${refs} ${DR.tooManyReferences.says}`);
	const { first_frame: first, last_frame: last, ...references } = counts;
	return { counts: references, refs, frames: { first, last } };
}

/** Rule 7: first and last frames together, one each, never with references; returns how many of each. */
function deltaFrames(
	{ meta, add, urlProblem }: Delta,
	refs: number,
	inContent: { first: number; last: number },
): Pick<Material, 'firsts' | 'lasts'> {
	for (const k of ['first_frame_image', 'last_frame_image']) {
		if (meta[k] !== undefined) {
			const p = urlProblem(meta[k]);
			if (p) add(DR.frameUrl, ['metadata', k], p);
		}
	}
	const firsts = inContent.first + (meta.first_frame_image !== undefined ? 1 : 0);
	const lasts = inContent.last + (meta.last_frame_image !== undefined ? 1 : 0);
	if (firsts || lasts) {
		if (firsts === 0 || lasts === 0)
			add(
				DR.frameAlone,
				['metadata', firsts ? 'last_frame_image' : 'first_frame_image'],
				`${DR.frameAlone.says}, give both first and last frame`,
			);
		else if (firsts > 1 || lasts > 1)
			add(
				DR.frameTwice,
				['metadata', firsts > 1 ? 'first_frame_image' : 'last_frame_image'],
				`${DR.frameTwice.says}: one first frame and one last frame`,
			);
		if (refs) add(DR.framesWithReferences, ['metadata', 'first_frame_image']);
	}
	return { firsts, lasts };
}

/** Rule 3: edit mode is 'edit' when given, with exactly one reference video and nothing else; returns whether on. */
function deltaEdit({ b, add }: Delta, { counts, firsts, lasts }: Material): boolean {
	const edit = b.omni_reference_task_type === 'edit';
	if (b.omni_reference_task_type !== undefined && !edit)
		add(DR.editValue, ['omni_reference_task_type']);
	if (
		edit &&
		(counts.reference_video !== 1 ||
			counts.reference_image ||
			counts.reference_audio ||
			firsts ||
			lasts)
	) {
		add(
			DR.editMaterial,
			['omni_reference_task_type'],
			`${DR.editMaterial.says} (got ${counts.reference_video} video(s), ` +
				`${counts.reference_image} image(s), ${counts.reference_audio} ` +
				`audio${firsts || lasts ? ', frames' : ''})`,
		);
	}
	return edit;
}

/** Seconds (or duration): whole, in the form's range unless Send Values Outside the Form, -1 only in edit mode. */
function deltaSeconds({ b, meta, add }: Delta, edit: boolean, outsideForm: boolean | undefined) {
	const sec = aliasPlaces(b, meta, ['seconds', 'duration'])[0];
	if (!sec) return;
	const s =
		typeof sec.value === 'string' && sec.value.trim() !== '' ? Number(sec.value) : sec.value;
	if (typeof s !== 'number' || !Number.isInteger(s))
		add(DR.secondsWhole, sec.path, `${JSON.stringify(sec.value)} ${DR.secondsWhole.says}`);
	else if (outsideForm) {
		// sent as asked: deltaOutsideForm says so in a hint
	} else if (s === -1 && !edit) add(DR.followInputInEditOnly, sec.path);
	else if (s !== -1 && (s < DELTA_SECONDS.min || s > DELTA_SECONDS.max))
		add(DR.secondsRange, sec.path, `${s} ${DR.secondsRange.says}`);
}

/** Resolution (or size): 480p or 720p, saying why another value is not. */
function deltaResolution({ b, meta, add }: Delta): void {
	const res = aliasPlaces(b, meta, ['resolution', 'size'])[0];
	if (!res || DELTA_RESOLUTIONS.includes(String(res.value))) return;
	const v = String(res.value);
	const why = /^\d+\s*[x×*]\s*\d+$/i.test(v)
		? 'is a pixel size: give 480p or 720p'
		: /1080|2k|4k|1440|2160/i.test(v)
			? 'is not supported (1080p, 2K and 4K are not): 480p or 720p'
			: 'is not supported: 480p or 720p';
	add(DR.resolution, res.path, `"${v}" ${why}`);
}

/** Ratio: one of the delta ratios; 'adaptive' only with an image or video input. */
function deltaRatio({ b, meta, add }: Delta, { counts, firsts, lasts }: Material): void {
	const ratio = b.ratio ?? meta.ratio;
	const ratioPath: Path = b.ratio !== undefined ? ['ratio'] : ['metadata', 'ratio'];
	if (ratio !== undefined && !DELTA_RATIOS.includes(String(ratio)))
		add(DR.ratio, ratioPath, `"${String(ratio)}" ${DR.ratio.says}`);
	if (
		ratio === 'adaptive' &&
		!(counts.reference_image || counts.reference_video || firsts || lasts)
	)
		add(
			DR.adaptiveRatio,
			ratioPath,
			`${DR.adaptiveRatio.says} (pure text or pure audio cannot use it)`,
		);
}

/** Seed: an integer in the gateway's range. */
function deltaSeed({ b, meta, add }: Delta): void {
	const seed = b.seed ?? meta.seed;
	if (
		seed !== undefined &&
		(typeof seed !== 'number' ||
			!Number.isInteger(seed) ||
			seed < DELTA_SEED.min ||
			seed > DELTA_SEED.max)
	) {
		add(
			DR.seed,
			b.seed !== undefined ? ['seed'] : ['metadata', 'seed'],
			`${JSON.stringify(seed)}: ${DR.seed.says}`,
		);
	}
}

/** Flags: generate_audio and watermark sent as booleans; return_last_frame a boolean when given. */
function deltaFlags({ b, meta, add }: Delta): void {
	for (const k of ['generate_audio', 'watermark']) {
		const v = b[k] ?? meta[k];
		if (typeof v !== 'boolean') add(v === undefined ? DR.flagSent : DR.flagBoolean, [k]);
	}
	if (b.return_last_frame !== undefined && typeof b.return_last_frame !== 'boolean')
		add(DR.returnLastFrame, ['return_last_frame']);
}

/** The delta-video body's rules in the order they report: every violated rule at once. */
export function deltaSchema(opts: VideoRuleOptions = {}) {
	return z.record(z.unknown()).superRefine((b, ctx) => {
		const d: Delta = {
			b,
			meta: isObj(b.metadata) ? b.metadata : {},
			add: (rule, path, message = rule.says) => violate(ctx, rule, path, message),
			urlProblem: (u) => mediaUrlProblem(u, { containsSecret: opts.containsSecret }),
		};
		deltaModel(d);
		deltaNamesOnce(d);
		const lists = deltaLists(d);
		deltaPrompt(d, lists);
		const media = deltaMedia(d, lists);
		const material: Material = { ...lists, ...media, ...deltaFrames(d, media.refs, media.frames) };
		const edit = deltaEdit(d, material);
		deltaSeconds(d, edit, opts.outsideForm);
		deltaResolution(d);
		deltaRatio(d, material);
		deltaSeed(d);
		deltaFlags(d);
	});
}

/** The hint for delta seconds the form does not offer, sent as asked (Send Values Outside the Form); undefined when offered. */
export function deltaOutsideForm(body: Obj): string | undefined {
	const meta = isObj(body.metadata) ? body.metadata : {};
	const sec = aliasPlaces(body, meta, ['seconds', 'duration'])[0];
	if (!sec) return undefined;
	const s =
		typeof sec.value === 'string' && sec.value.trim() !== '' ? Number(sec.value) : sec.value;
	const edit = body.omni_reference_task_type === 'edit';
	if (
		typeof s !== 'number' ||
		(s === -1 && edit) ||
		(s >= DELTA_SECONDS.min && s <= DELTA_SECONDS.max)
	)
		return undefined;
	return (
		`delta-video: ${s} seconds is not offered by the form (${DELTA_SECONDS.min} to ` +
		`${DELTA_SECONDS.max}${s === -1 ? '; -1 only in Edit Mode' : ''}): sent as asked ` +
		`(${OUTSIDE_FORM} is on); the gateway may refuse it or charge for it`
	);
}

export interface GammaRuleOptions extends VideoRuleOptions {
	/** files sent beside the body (multipart input_reference); they count as reference images */
	files?: number;
}

/**
 * What the spec prefers for gamma, as execution hints: a value the form does not offer reaches here only with Send
 * Values Outside the Form on (else the schema refuses it), and 1:1 on gamma-video-1.5 is offered but not preferred.
 */
export function gammaPreferenceHints(body: Obj): string[] {
	const hints: string[] = [];
	const s = Number(body.seconds);
	const sent = `sent as asked (${OUTSIDE_FORM} is on); the gateway may refuse it, adjust it, or charge for it`;
	if (body.seconds !== undefined && s === GAMMA_UNCONFIRMED_SECONDS)
		hints.push(
			`gamma-video: ${GAMMA_UNCONFIRMED_SECONDS} seconds passes the gateway's ` +
				`validation but is not confirmed upstream, and the form does not offer it ` +
				`(${GAMMA_SECONDS.join(', ')}): ${sent}`,
		);
	else if (body.seconds !== undefined && !(GAMMA_SECONDS as readonly number[]).includes(s))
		hints.push(
			`gamma-video: ${s} seconds is not offered by the form (${GAMMA_SECONDS.join(', ')}): ${sent}`,
		);
	const ratio = body.aspect_ratio === undefined ? undefined : String(body.aspect_ratio);
	if (ratio !== undefined && !GAMMA_ASPECT_RATIOS.includes(ratio))
		hints.push(
			`gamma-video: aspect ratio ${ratio} is not offered by the form (${GAMMA_ASPECT_RATIOS.join(', ')}): ${sent}`,
		);
	else if (
		body.model === 'gamma-video-1.5' &&
		ratio !== undefined &&
		!GAMMA_15_PREFERRED_RATIOS.includes(ratio)
	)
		hints.push(
			`gamma-video-1.5: ${GAMMA_15_PREFERRED_RATIOS.join(' or ')} are preferred over ${ratio}`,
		);
	return hints;
}

/** The gamma-video body's rules (their examples, for the bad-input corpus: test/fixtures/video-rules.ts). */
export const GAMMA_RULES = bodyRuleSet('Video Create gamma body', {
	schema: () => gammaSchema(),
	rules: {
		model: { field: 'model', says: `must be ${GAMMA_MODELS.join(' or ')}` },
		promptText: { field: 'prompt', says: 'must be text' },
		promptNotEmpty: { field: 'prompt', says: 'must not be empty' },
		noRatio: { field: 'ratio', says: "gamma-video uses 'aspect_ratio', not 'ratio'" },
		secondsWhole: { field: 'seconds', says: 'must be a whole number of seconds' },
		secondsOffered: {
			field: 'seconds',
			says: `is not one the form offers (${GAMMA_SECONDS.join(', ')}; ${SEND_ANYWAY})`,
		},
		imageUrlsList: { field: 'image_urls', says: 'must be a list of addresses' },
		imageUrl: { field: 'image_urls[0]', says: 'must be an http(s):// address' },
		maxReferences: { field: 'image_urls', says: `: at most ${GAMMA_MAX_REFERENCES}` },
		severalReferences10s: {
			field: 'seconds',
			says: 'gamma-video-1.0 with several reference images allows at most 10 seconds',
		},
		aspectRatioText: { field: 'aspect_ratio', says: 'must be a ratio text such as 16:9' },
		aspectRatioOffered: {
			field: 'aspect_ratio',
			says: `is not one the form offers (${GAMMA_ASPECT_RATIOS.join(', ')}; ${SEND_ANYWAY})`,
		},
	},
});

export function gammaSchema(opts: GammaRuleOptions = {}) {
	return z.record(z.unknown()).superRefine((b, ctx) => {
		const R = GAMMA_RULES;
		const add = (rule: BodyRule, path: Path, message = rule.says) =>
			violate(ctx, rule, path, message);
		if (!(GAMMA_MODELS as readonly string[]).includes(String(b.model))) add(R.model, ['model']);
		if (typeof b.prompt !== 'string')
			add(b.prompt === undefined ? R.promptNotEmpty : R.promptText, ['prompt']);
		else if (!b.prompt.trim()) add(R.promptNotEmpty, ['prompt']);
		if ('ratio' in b) add(R.noRatio, ['ratio']);
		let s: number | undefined;
		if (b.seconds !== undefined) {
			s =
				typeof b.seconds === 'string' && b.seconds.trim() !== ''
					? Number(b.seconds)
					: (b.seconds as number);
			if (typeof s !== 'number' || !Number.isInteger(s) || s < 1)
				add(
					R.secondsWhole,
					['seconds'],
					`${JSON.stringify(b.seconds)}: ${R.secondsWhole.says} (${GAMMA_SECONDS.join(', ')} are preferred)`,
				);
			else if (!opts.outsideForm && !(GAMMA_SECONDS as readonly number[]).includes(s))
				add(R.secondsOffered, ['seconds'], `${s} ${R.secondsOffered.says}`);
		}
		let urls: unknown[] = [];
		if (b.image_urls !== undefined) {
			if (Array.isArray(b.image_urls)) urls = b.image_urls;
			else add(R.imageUrlsList, ['image_urls']);
		}
		for (const [i, u] of urls.entries()) {
			const p = mediaUrlProblem(u, { allowHttp: true, containsSecret: opts.containsSecret });
			if (p) add(R.imageUrl, ['image_urls', i], p);
		}
		const files = opts.files ?? 0;
		const count = urls.length + files;
		if (count > GAMMA_MAX_REFERENCES)
			add(
				R.maxReferences,
				['image_urls'],
				`${count} reference images${files ? ` (incl. ${files} input_reference file)` : ''}${R.maxReferences.says}`,
			);
		if (b.model === 'gamma-video-1.0' && count > 1 && s !== undefined && s > 10)
			add(R.severalReferences10s, ['seconds'], `${s}: ${R.severalReferences10s.says}`);
		if (
			b.aspect_ratio !== undefined &&
			(typeof b.aspect_ratio !== 'string' || !b.aspect_ratio.trim())
		)
			add(
				R.aspectRatioText,
				['aspect_ratio'],
				`${JSON.stringify(b.aspect_ratio)}: ${R.aspectRatioText.says}`,
			);
		else if (
			b.aspect_ratio !== undefined &&
			!opts.outsideForm &&
			!GAMMA_ASPECT_RATIOS.includes(b.aspect_ratio as string)
		)
			add(
				R.aspectRatioOffered,
				['aspect_ratio'],
				`${b.aspect_ratio as string} ${R.aspectRatioOffered.says}`,
			);
	});
}
