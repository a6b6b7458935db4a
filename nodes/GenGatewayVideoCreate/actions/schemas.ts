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

const MINI = DELTA_MODELS[0];
const url = (name: string) => `https://media.example/${name}`;
const img = (n: number | string = 1, role = 'reference_image') => ({
	type: 'image_url',
	image_url: { url: url(`${n}.png`) },
	role,
});
const vid = (n: number | string = 1) => ({
	type: 'video_url',
	video_url: { url: url(`${n}.mp4`) },
	role: 'reference_video',
});
const aud = (n: number | string = 1) => ({
	type: 'audio_url',
	audio_url: { url: url(`${n}.mp3`) },
	role: 'reference_audio',
});
const text = (t = 'a paper boat') => ({ type: 'text', text: t });
const content = (...items: unknown[]) => ({ metadata: { content: items } });
const many = <T>(n: number, f: (k: number) => T) => Array.from({ length: n }, (_, k) => f(k + 1));
const frames = (more: Obj = {}) => ({
	metadata: { first_frame_image: url('f.png'), last_frame_image: url('l.png'), ...more },
});

/** The delta-video body's rules, with the examples of the bad-input corpus. */
export const DELTA_RULES = bodyRuleSet('Video Create delta body', {
	schema: () => deltaSchema(),
	valid: {
		model: MINI,
		prompt: 'a paper boat on a river',
		seconds: 5,
		resolution: '480p',
		ratio: '16:9',
		generate_audio: false,
		watermark: false,
	},
	rules: {
		model: {
			field: 'model',
			says: `must be ${DELTA_MODELS.join(' or ')}`,
			good: [{ model: DELTA_MODELS[1] }],
			bad: [{ model: 'gamma-video-1.0' }],
		},
		metadataObject: {
			field: 'metadata',
			says: 'must be an object',
			good: [{ metadata: {} }],
			bad: [{ metadata: ['x'] }],
		},
		aspectRatio: {
			field: 'aspect_ratio',
			says: "use 'ratio', never 'aspect_ratio'",
			good: [{ ratio: '21:9' }],
			bad: [{ aspect_ratio: '16:9' }],
		},
		metadataAspectRatio: {
			field: 'metadata.aspect_ratio',
			says: "use 'ratio', never 'aspect_ratio'",
			good: [content(img())],
			bad: [{ metadata: { aspect_ratio: '16:9' } }],
		},
		aliasRepeated: {
			field: 'duration',
			says: 'is given again',
			good: [{ seconds: null, duration: 6 }],
			bad: [{ duration: 5 }],
		},
		aliasConflict: {
			field: 'duration',
			says: 'conflicts with seconds',
			good: [{ resolution: null, size: '720p' }],
			bad: [{ duration: 6 }],
		},
		once: {
			field: 'metadata.watermark',
			says: 'is also given at top level: send it once',
			good: [content(vid())],
			bad: [{ metadata: { watermark: false } }],
		},
		contentList: {
			field: 'metadata.content',
			says: 'must be a list of items',
			good: [content(aud(), img())],
			bad: [{ metadata: { content: url('a.png') } }],
		},
		imagesList: {
			field: 'images',
			says: 'must be a list of HTTPS image addresses',
			good: [{ images: [url('a.png')] }],
			bad: [{ images: url('a.png') }],
		},
		imagesWithContent: {
			field: 'images',
			says: 'the images shorthand cannot be mixed with metadata.content',
			good: [{ images: [url('a.png'), url('b.png')] }],
			bad: [{ images: [url('a.png')], ...content(img()) }],
		},
		textItems: {
			field: 'metadata.content',
			says: 'text items: at most one',
			good: [{ prompt: null, ...content(text(), img()) }],
			bad: [{ prompt: null, ...content(text('a'), text('b')) }],
		},
		promptWithText: {
			field: 'prompt',
			says: 'cannot be sent together with a text item',
			good: [{ prompt: null, ...content(text()) }],
			bad: [content(text())],
		},
		imagesWithText: {
			field: 'images',
			says: 'the images shorthand goes with a top-level prompt, not a text item',
			good: [{ images: [url('a.png')] }],
			bad: [{ prompt: null, images: [url('a.png')], ...content(text()) }],
		},
		promptText: {
			field: 'prompt',
			says: 'must be text',
			good: [{ prompt: 'a boat, 42 times' }],
			bad: [{ prompt: 42 }],
		},
		promptNotEmpty: {
			field: 'prompt',
			says: 'must not be empty',
			good: [{ prompt: ' a boat ' }],
			bad: [{ prompt: '   ' }, { prompt: null }],
		},
		promptLength: {
			field: 'prompt',
			says: `characters; at most ${DELTA_PROMPT_MAX}`,
			good: [{ prompt: 'x'.repeat(DELTA_PROMPT_MAX) }, { prompt: '🎬'.repeat(DELTA_PROMPT_MAX) }],
			bad: [{ prompt: 'x'.repeat(DELTA_PROMPT_MAX + 1) }],
		},
		itemObject: {
			field: 'metadata.content[0]',
			says: 'must be an object {type, <type>: {url}, role}',
			good: [content(img())],
			bad: [content(url('a.png'))],
		},
		itemType: {
			field: 'metadata.content[0].type',
			says: 'is not text, image_url, video_url or audio_url',
			good: [content(aud())],
			bad: [content({ type: 'file_url', file_url: { url: url('a.pdf') }, role: 'reference_file' })],
		},
		itemInner: {
			field: 'metadata.content[0].video_url',
			says: 'must be an object {url}',
			good: [content(vid())],
			bad: [content({ type: 'video_url', video_url: url('v.mp4'), role: 'reference_video' })],
		},
		itemUrl: {
			field: 'metadata.content[0].video_url.url',
			says: 'must use https://',
			good: [content(vid())],
			bad: [content({ ...vid(), video_url: { url: 'http://media.example/v.mp4' } })],
		},
		itemRole: {
			field: 'metadata.content[0].role',
			says: 'must be reference_image or first_frame or last_frame for image_url',
			good: [content(img('f', 'first_frame'), img('l', 'last_frame'))],
			bad: [content({ ...img(), role: 'reference_video' })],
		},
		imagesUrl: {
			field: 'images[0]',
			says: 'must use https://',
			good: [{ images: [url('a.png')] }],
			bad: [{ images: ['http://media.example/a.png'] }],
		},
		tooManyImages: {
			field: 'metadata.content',
			says: `reference images: at most ${DELTA_LIMITS.reference_image}`,
			good: [content(...many(9, img))],
			bad: [content(...many(10, img))],
		},
		tooManyVideos: {
			field: 'metadata.content',
			says: `reference videos: at most ${DELTA_LIMITS.reference_video}`,
			good: [content(...many(3, vid))],
			bad: [content(...many(4, vid))],
		},
		tooManyAudios: {
			field: 'metadata.content',
			says: `reference audios: at most ${DELTA_LIMITS.reference_audio}`,
			good: [content(img(), ...many(3, aud))],
			bad: [content(img(), ...many(4, aud))],
		},
		tooManyReferences: {
			field: 'metadata.content',
			says: `references: at most ${DELTA_LIMITS.total} in total`,
			good: [content(...many(9, img), ...many(2, vid), aud())],
			bad: [content(...many(9, img), ...many(3, vid), aud())],
		},
		frameUrl: {
			field: 'metadata.first_frame_image',
			says: 'must use https://',
			good: [frames()],
			bad: [
				{
					metadata: {
						first_frame_image: 'http://media.example/f.png',
						last_frame_image: url('l.png'),
					},
				},
			],
		},
		frameAlone: {
			field: 'metadata.last_frame_image',
			says: 'is missing: a single frame is invalid',
			good: [frames()],
			bad: [{ metadata: { first_frame_image: url('f.png') } }],
		},
		frameTwice: {
			field: 'metadata.first_frame_image',
			says: 'is given more than once',
			good: [content(img('f', 'first_frame'), img('l', 'last_frame'))],
			bad: [frames({ content: [img('f2', 'first_frame')] })],
		},
		framesWithReferences: {
			field: 'metadata.first_frame_image',
			says: 'first/last frames cannot be mixed with reference images, videos or audio',
			good: [frames()],
			bad: [frames({ content: [img()] }), frames({ content: [aud()] })],
		},
		editValue: {
			field: 'omni_reference_task_type',
			says: "must be 'edit' when given",
			good: [{ omni_reference_task_type: 'edit', ...content(vid()) }],
			bad: [{ omni_reference_task_type: 'remix', ...content(vid()) }],
		},
		editMaterial: {
			field: 'omni_reference_task_type',
			says: 'edit mode needs exactly one reference video and no other material',
			good: [{ omni_reference_task_type: 'edit', seconds: 8, ...content(vid()) }],
			bad: [
				{ omni_reference_task_type: 'edit' },
				{ omni_reference_task_type: 'edit', ...content(vid(1), vid(2)) },
				{ omni_reference_task_type: 'edit', ...content(vid(), img()) },
			],
		},
		secondsWhole: {
			field: 'seconds',
			says: 'is not a whole number of seconds',
			good: [{ seconds: '15' }],
			bad: [{ seconds: 5.5 }, { seconds: '5s' }],
		},
		followInputInEditOnly: {
			field: 'duration',
			says: `-1 (follow the input length) is only allowed in edit mode (${SEND_ANYWAY})`,
			good: [{ omni_reference_task_type: 'edit', seconds: null, duration: -1, ...content(vid()) }],
			bad: [{ seconds: null, duration: -1, ...content(vid()) }],
		},
		secondsRange: {
			field: 'seconds',
			says: `is outside ${DELTA_SECONDS.min} to ${DELTA_SECONDS.max} seconds (${SEND_ANYWAY})`,
			good: [{ seconds: DELTA_SECONDS.min }, { seconds: DELTA_SECONDS.max }],
			bad: [{ seconds: 3 }, { seconds: 16 }],
		},
		resolution: {
			field: 'resolution',
			says: '480p or 720p',
			good: [{ resolution: '720p' }],
			bad: [{ resolution: '1080p' }, { resolution: '1280x720' }, { resolution: 'HD' }],
		},
		ratio: {
			field: 'ratio',
			says: `must be one of ${DELTA_RATIOS.join(', ')}`,
			good: [{ ratio: '9:16' }],
			bad: [{ ratio: '2:1' }],
		},
		adaptiveRatio: {
			field: 'ratio',
			says: "'adaptive' needs at least one image or video input",
			good: [
				{ ratio: 'adaptive', ...content(img()) },
				{ ratio: 'adaptive', ...frames() },
			],
			bad: [{ ratio: 'adaptive' }, { ratio: 'adaptive', ...content(aud()) }],
		},
		seed: {
			field: 'seed',
			says: `must be an integer from ${DELTA_SEED.min} to ${DELTA_SEED.max}`,
			good: [{ seed: DELTA_SEED.min }, { seed: 0 }, { seed: DELTA_SEED.max }],
			bad: [{ seed: -2 }, { seed: DELTA_SEED.max + 1 }, { seed: 1.5 }],
		},
		flagSent: {
			field: 'generate_audio',
			says: 'must be sent explicitly (true or false)',
			good: [{ generate_audio: true }],
			bad: [{ generate_audio: null }],
		},
		flagBoolean: {
			field: 'generate_audio',
			says: 'must be true or false',
			good: [{ generate_audio: false }],
			bad: [{ generate_audio: 'false' }],
		},
		returnLastFrame: {
			field: 'return_last_frame',
			says: 'must be true or false',
			good: [{ return_last_frame: true }],
			bad: [{ return_last_frame: 'yes' }],
		},
	},
});

export function deltaSchema(opts: VideoRuleOptions = {}) {
	return z.record(z.unknown()).superRefine((b, ctx) => {
		const R = DELTA_RULES;
		const add = (rule: BodyRule, path: Path, message = rule.says) =>
			violate(ctx, rule, path, message);
		const urlProblem = (u: unknown) => mediaUrlProblem(u, { containsSecret: opts.containsSecret });

		if (!(DELTA_MODELS as readonly string[]).includes(String(b.model))) add(R.model, ['model']);
		if (b.metadata !== undefined && !isObj(b.metadata)) add(R.metadataObject, ['metadata']);
		const meta: Obj = isObj(b.metadata) ? b.metadata : {};

		// Rule 1: ratio, never aspect_ratio; one of each alias pair; nothing both at top level and in metadata
		if ('aspect_ratio' in b) add(R.aspectRatio, ['aspect_ratio']);
		if ('aspect_ratio' in meta) add(R.metadataAspectRatio, ['metadata', 'aspect_ratio']);
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
						R.aliasRepeated,
						places[1].path,
						`${R.aliasRepeated.says} (${where}): send one of ${pair.join('/')}, once`,
					);
				else
					add(
						R.aliasConflict,
						places[1].path,
						`conflicts with ${show(places[0].path)} (${places.map((p) => `${show(p.path)}=${JSON.stringify(p.value)}`).join(', ')}): send one of ${pair.join('/')}`,
					);
			}
		}
		for (const k of ONCE) if (k in meta && k in b) add(R.once, ['metadata', k]);

		// Rules 4 and 8: content items, the images shorthand
		let content: unknown[] | undefined;
		if (meta.content !== undefined) {
			if (Array.isArray(meta.content)) content = meta.content;
			else
				add(
					R.contentList,
					['metadata', 'content'],
					`${R.contentList.says} {type, <type>: {url}, role}`,
				);
		}
		let images: unknown[] = [];
		if (b.images !== undefined) {
			if (Array.isArray(b.images)) images = b.images;
			else add(R.imagesList, ['images']);
			if (content) add(R.imagesWithContent, ['images']);
		}

		// Prompt: one text source, non-empty, at most 6000 characters
		const textIdx = (content ?? []).flatMap((c, i) => (isObj(c) && c.type === 'text' ? [i] : []));
		if (textIdx.length > 1)
			add(R.textItems, ['metadata', 'content'], `holds ${textIdx.length} ${R.textItems.says}`);
		if (textIdx.length && b.prompt !== undefined)
			add(
				R.promptWithText,
				['prompt'],
				`${R.promptWithText.says} in metadata.content: use one of them`,
			);
		if (textIdx.length && images.length) add(R.imagesWithText, ['images']);
		let promptText: string | undefined = '';
		let promptPath: Path = ['prompt'];
		if (b.prompt !== undefined) promptText = typeof b.prompt === 'string' ? b.prompt : undefined;
		else if (textIdx.length) {
			const text = (content![textIdx[0]] as Obj).text;
			promptPath = ['metadata', 'content', textIdx[0], 'text'];
			promptText = typeof text === 'string' ? text : undefined;
		}
		if (promptText === undefined) {
			add(R.promptText, promptPath);
			promptText = '';
		} else if (!promptText.trim()) add(R.promptNotEmpty, promptPath);
		const promptLength = codePoints(promptText);
		if (promptLength > DELTA_PROMPT_MAX)
			add(R.promptLength, promptPath, `is ${promptLength} ${R.promptLength.says}`);

		// Rules 4 to 6: media items, roles, addresses
		const counts = {
			reference_image: 0,
			reference_video: 0,
			reference_audio: 0,
			first_frame: 0,
			last_frame: 0,
		};
		for (const [i, c] of (content ?? []).entries()) {
			if (!isObj(c)) {
				add(R.itemObject, ['metadata', 'content', i]);
				continue;
			}
			if (c.type === 'text') continue;
			const t = String(c.type);
			if (!(t in MEDIA_TYPES)) {
				add(R.itemType, ['metadata', 'content', i, 'type'], `"${t}" ${R.itemType.says}`);
				continue;
			}
			const inner = c[t];
			if (!isObj(inner)) add(R.itemInner, ['metadata', 'content', i, t]);
			else {
				const p = urlProblem(inner.url);
				if (p) add(R.itemUrl, ['metadata', 'content', i, t, 'url'], p);
			}
			const roles = MEDIA_TYPES[t as keyof typeof MEDIA_TYPES] as readonly string[];
			if (!roles.includes(String(c.role)))
				add(
					R.itemRole,
					['metadata', 'content', i, 'role'],
					`must be ${roles.join(' or ')} for ${t}`,
				);
			else counts[c.role as keyof typeof counts]++;
		}
		for (const [i, u] of images.entries()) {
			const p = urlProblem(u);
			if (p) add(R.imagesUrl, ['images', i], p);
		}
		counts.reference_image += images.length;
		const contentPath: Path = images.length && !content ? ['images'] : ['metadata', 'content'];
		const tooMany = {
			reference_image: R.tooManyImages,
			reference_video: R.tooManyVideos,
			reference_audio: R.tooManyAudios,
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
			add(R.tooManyReferences, ['metadata', 'content'], `${refs} ${R.tooManyReferences.says}`);

		// Rule 7: first and last frames together, one each, never with references
		for (const k of ['first_frame_image', 'last_frame_image']) {
			if (meta[k] !== undefined) {
				const p = urlProblem(meta[k]);
				if (p) add(R.frameUrl, ['metadata', k], p);
			}
		}
		const firsts = counts.first_frame + (meta.first_frame_image !== undefined ? 1 : 0);
		const lasts = counts.last_frame + (meta.last_frame_image !== undefined ? 1 : 0);
		if (firsts || lasts) {
			if (firsts === 0 || lasts === 0)
				add(
					R.frameAlone,
					['metadata', firsts ? 'last_frame_image' : 'first_frame_image'],
					`${R.frameAlone.says}, give both first and last frame`,
				);
			else if (firsts > 1 || lasts > 1)
				add(
					R.frameTwice,
					['metadata', firsts > 1 ? 'first_frame_image' : 'last_frame_image'],
					`${R.frameTwice.says}: one first frame and one last frame`,
				);
			if (refs) add(R.framesWithReferences, ['metadata', 'first_frame_image']);
		}

		// Rule 3: edit mode
		const edit = b.omni_reference_task_type === 'edit';
		if (b.omni_reference_task_type !== undefined && !edit)
			add(R.editValue, ['omni_reference_task_type']);
		if (
			edit &&
			(counts.reference_video !== 1 ||
				counts.reference_image ||
				counts.reference_audio ||
				firsts ||
				lasts)
		) {
			add(
				R.editMaterial,
				['omni_reference_task_type'],
				`${R.editMaterial.says} (got ${counts.reference_video} video(s), ${counts.reference_image} image(s), ${counts.reference_audio} audio${firsts || lasts ? ', frames' : ''})`,
			);
		}

		// Duration, resolution, ratio, seed, flags
		const sec = aliasPlaces(b, meta, ['seconds', 'duration'])[0];
		if (sec) {
			const s =
				typeof sec.value === 'string' && sec.value.trim() !== '' ? Number(sec.value) : sec.value;
			if (typeof s !== 'number' || !Number.isInteger(s))
				add(R.secondsWhole, sec.path, `${JSON.stringify(sec.value)} ${R.secondsWhole.says}`);
			else if (opts.outsideForm) {
				// sent as asked: deltaOutsideForm says so in a hint
			} else if (s === -1 && !edit) add(R.followInputInEditOnly, sec.path);
			else if (s !== -1 && (s < DELTA_SECONDS.min || s > DELTA_SECONDS.max))
				add(R.secondsRange, sec.path, `${s} ${R.secondsRange.says}`);
		}
		const res = aliasPlaces(b, meta, ['resolution', 'size'])[0];
		if (res && !DELTA_RESOLUTIONS.includes(String(res.value))) {
			const v = String(res.value);
			const why = /^\d+\s*[x×*]\s*\d+$/i.test(v)
				? 'is a pixel size: give 480p or 720p'
				: /1080|2k|4k|1440|2160/i.test(v)
					? 'is not supported (1080p, 2K and 4K are not): 480p or 720p'
					: 'is not supported: 480p or 720p';
			add(R.resolution, res.path, `"${v}" ${why}`);
		}
		const ratio = b.ratio ?? meta.ratio;
		const ratioPath: Path = b.ratio !== undefined ? ['ratio'] : ['metadata', 'ratio'];
		if (ratio !== undefined && !DELTA_RATIOS.includes(String(ratio)))
			add(R.ratio, ratioPath, `"${String(ratio)}" ${R.ratio.says}`);
		if (
			ratio === 'adaptive' &&
			!(counts.reference_image || counts.reference_video || firsts || lasts)
		)
			add(
				R.adaptiveRatio,
				ratioPath,
				`${R.adaptiveRatio.says} (pure text or pure audio cannot use it)`,
			);
		const seed = b.seed ?? meta.seed;
		if (
			seed !== undefined &&
			(typeof seed !== 'number' ||
				!Number.isInteger(seed) ||
				seed < DELTA_SEED.min ||
				seed > DELTA_SEED.max)
		) {
			add(
				R.seed,
				b.seed !== undefined ? ['seed'] : ['metadata', 'seed'],
				`${JSON.stringify(seed)}: ${R.seed.says}`,
			);
		}
		for (const k of ['generate_audio', 'watermark']) {
			const v = b[k] ?? meta[k];
			if (typeof v !== 'boolean') add(v === undefined ? R.flagSent : R.flagBoolean, [k]);
		}
		if (b.return_last_frame !== undefined && typeof b.return_last_frame !== 'boolean')
			add(R.returnLastFrame, ['return_last_frame']);
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
	return `delta-video: ${s} seconds is not offered by the form (${DELTA_SECONDS.min} to ${DELTA_SECONDS.max}${s === -1 ? '; -1 only in Edit Mode' : ''}): sent as asked (${OUTSIDE_FORM} is on); the gateway may refuse it or charge for it`;
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
			`gamma-video: ${GAMMA_UNCONFIRMED_SECONDS} seconds passes the gateway's validation but is not confirmed upstream, and the form does not offer it (${GAMMA_SECONDS.join(', ')}): ${sent}`,
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

const gammaUrls = (n: number) => many(n, (k) => url(`${k}.png`));

/** The gamma-video body's rules, with the examples of the bad-input corpus. */
export const GAMMA_RULES = bodyRuleSet('Video Create gamma body', {
	schema: () => gammaSchema(),
	valid: { model: 'gamma-video-1.5', prompt: 'a cat on a sofa', seconds: 8, aspect_ratio: '16:9' },
	rules: {
		model: {
			field: 'model',
			says: `must be ${GAMMA_MODELS.join(' or ')}`,
			good: [{ model: GAMMA_MODELS[0] }],
			bad: [{ model: MINI }],
		},
		promptText: {
			field: 'prompt',
			says: 'must be text',
			good: [{ prompt: 'a cat, 42 times' }],
			bad: [{ prompt: 42 }],
		},
		promptNotEmpty: {
			field: 'prompt',
			says: 'must not be empty',
			good: [{ prompt: ' a cat ' }],
			bad: [{ prompt: ' ' }, { prompt: null }],
		},
		noRatio: {
			field: 'ratio',
			says: "gamma-video uses 'aspect_ratio', not 'ratio'",
			good: [{ aspect_ratio: '9:16' }],
			bad: [{ ratio: '16:9' }],
		},
		secondsWhole: {
			field: 'seconds',
			says: 'must be a whole number of seconds',
			good: [{ seconds: 6 }, { seconds: '10' }],
			bad: [{ seconds: 6.5 }, { seconds: 0 }, { seconds: 'ten' }],
		},
		secondsOffered: {
			field: 'seconds',
			says: `is not one the form offers (${GAMMA_SECONDS.join(', ')}; ${SEND_ANYWAY})`,
			good: [{ seconds: 15 }, { seconds: '12' }],
			bad: [{ seconds: GAMMA_UNCONFIRMED_SECONDS }, { seconds: 20 }, { seconds: 7 }],
		},
		imageUrlsList: {
			field: 'image_urls',
			says: 'must be a list of addresses',
			good: [{ image_urls: [url('a.png')] }],
			bad: [{ image_urls: url('a.png') }],
		},
		imageUrl: {
			field: 'image_urls[0]',
			says: 'must be an http(s):// address',
			good: [{ image_urls: ['http://media.example/a.png'] }],
			bad: [{ image_urls: ['ftp://media.example/a.png'] }],
		},
		maxReferences: {
			field: 'image_urls',
			says: `: at most ${GAMMA_MAX_REFERENCES}`,
			good: [{ image_urls: gammaUrls(GAMMA_MAX_REFERENCES) }],
			bad: [{ image_urls: gammaUrls(GAMMA_MAX_REFERENCES + 1) }],
		},
		severalReferences10s: {
			field: 'seconds',
			says: 'gamma-video-1.0 with several reference images allows at most 10 seconds',
			good: [
				{ model: 'gamma-video-1.0', image_urls: gammaUrls(2), seconds: 10 },
				{ model: 'gamma-video-1.0', image_urls: gammaUrls(1), seconds: 15 },
				{ image_urls: gammaUrls(3), seconds: 15 },
			],
			bad: [{ model: 'gamma-video-1.0', image_urls: gammaUrls(2), seconds: 12 }],
		},
		aspectRatioText: {
			field: 'aspect_ratio',
			says: 'must be a ratio text such as 16:9',
			good: [{ aspect_ratio: '1:1' }],
			bad: [{ aspect_ratio: 16 }],
		},
		aspectRatioOffered: {
			field: 'aspect_ratio',
			says: `is not one the form offers (${GAMMA_ASPECT_RATIOS.join(', ')}; ${SEND_ANYWAY})`,
			good: [{ aspect_ratio: '9:16' }],
			bad: [{ aspect_ratio: '4:3' }],
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
