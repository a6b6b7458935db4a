/**
 * The values and limits of Video Create's two families (delta-video and gamma-video), as the form offers them and the
 * body rules hold them, and what both families' rules read: the rule options and where an alias pair is given. The
 * rules themselves: deltaRules.ts (the delta rule table), deltaContent.ts and deltaSchema.ts (its checks), and
 * gammaSchema.ts. Every rule is a superRefine check, so all violations are reported at once, each naming its field
 * path and the rule. Rules 9/10 (reference video/audio durations, codecs, pixels, sizes) need the media itself: the
 * gateway checks them; nothing here fetches a media address.
 */
import type { Obj } from '../../shared/jsonObject';
import type { BodyRule } from '../../shared/rules/body';

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
export const SEND_ANYWAY = `Options → ${OUTSIDE_FORM} sends it anyway`;

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

export type Path = Array<string | number>;
export const codePoints = (s: string) => [...s].length;
export const MEDIA_TYPES = {
	image_url: ['reference_image', 'first_frame', 'last_frame'],
	video_url: ['reference_video'],
	audio_url: ['reference_audio'],
} as const;
/** top-level parameters that must not be repeated inside metadata */
export const ONCE = [
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
export function aliasPlaces(
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

export const show = (p: Path) => p.join('.');

/** Reports a violation of a declared rule at a path, with the rule's words or a message holding them. */
export type Add = (rule: BodyRule, path: Path, message?: string) => void;
