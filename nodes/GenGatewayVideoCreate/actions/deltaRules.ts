/**
 * The delta-video body's rule table: each rule's field and words, declared once (deltaSchema.ts registers it with its
 * schema for the bad-input corpus; its examples: test/fixtures/video-rules.ts), and what the delta checks read.
 */
import type { Obj } from '../../shared/jsonObject';
import type { BodyRules } from '../../shared/rules/body';
import {
	DELTA_LIMITS,
	DELTA_MODELS,
	DELTA_PROMPT_MAX,
	DELTA_RATIOS,
	DELTA_SECONDS,
	DELTA_SEED,
	SEND_ANYWAY,
	type Add,
} from './schemas';

/** The delta rules, by id. */
export const DELTA_RULE_TABLE = {
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
} satisfies BodyRules;

/** What the delta rules read: the body, its metadata ({} when none or not an object), and where refusals go. */
export interface Delta {
	b: Obj;
	meta: Obj;
	add: Add;
	/** what is wrong with a media address (https only, no API key), undefined when nothing */
	urlProblem: (u: unknown) => string | undefined;
}

/** The material a body names: the content list and images shorthand, and how many media of each role. */
export interface Material {
	content: unknown[] | undefined;
	images: unknown[];
	counts: Record<'reference_image' | 'reference_video' | 'reference_audio', number>;
	/** reference images, videos and audio in all */
	refs: number;
	/** first and last frames, in content items and metadata */
	firsts: number;
	lasts: number;
}
