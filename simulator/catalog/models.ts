/**
 * The models and groups the simulator serves by default, with their prices: what `/api/pricing` publishes and what
 * requests are charged. `SimState.prices` (./price-list.ts) holds the live copy that tests reconfigure.
 */
export type Billing = 'per_call' | 'per_token' | 'per_video_token';

/** The ratios a per-token price carries (`model_ratio` and the optional ones; absent = billed like plain prompt tokens). */
export interface TokenRatios {
	modelRatio?: number;
	completionRatio?: number;
	cacheRatio?: number;
	createCacheRatio?: number;
	imageRatio?: number;
	audioRatio?: number;
	audioCompletionRatio?: number;
}

export interface ModelEntry extends TokenRatios {
	id: string;
	kind: 'image' | 'language' | 'video';
	billing: Billing;
	/** per-call base price in USD (model_price) */
	modelPrice?: number;
	/** delta-video: base quota per million video tokens, without and with a reference video (the spec's table) */
	videoTokenPrice?: { noRefVideo: number; withRefVideo: number };
	/** the groups that enable the model (its channels); hidden groups are never published */
	groups: string[];
	/** served by no channel right now (503 model_not_found) */
	noChannel?: boolean;
	/** `billing_mode` (e.g. `tiered_expr`: dynamic pricing; still charged by its ratios here) */
	billingMode?: string;
	endpointTypes: string[];
	/** a language model that reads image parts, up to this many decoded bytes per image */
	vision?: { maxImageBytes: number };
	/** a thinking language model: the name of its reasoning field (DeepSeek's `reasoning_content`, or `reasoning`) */
	thinking?: 'reasoning_content' | 'reasoning';
}

/** The vision model's bound on one image, decoded (5 MiB). */
export const VISION_MAX_IMAGE_BYTES = 5 * 1024 * 1024;

const ALL_PUBLIC = ['default', 'vip', 'hd'];

export const MODELS: readonly ModelEntry[] = [
	{
		id: 'alpha-image-2.5',
		kind: 'image',
		billing: 'per_call',
		modelPrice: 0.04,
		groups: ALL_PUBLIC,
		endpointTypes: ['image-generation'],
	},
	{
		id: 'alpha-image-2',
		kind: 'image',
		billing: 'per_call',
		modelPrice: 0.03,
		groups: ALL_PUBLIC,
		endpointTypes: ['image-generation'],
	},
	{
		id: 'alpha-image-2-1k',
		kind: 'image',
		billing: 'per_call',
		modelPrice: 0.03,
		groups: ALL_PUBLIC,
		endpointTypes: ['image-generation'],
	},
	{
		id: 'alpha-image-2-2k',
		kind: 'image',
		billing: 'per_call',
		modelPrice: 0.06,
		groups: ['vip', 'hd'],
		endpointTypes: ['image-generation'],
	},
	{
		id: 'alpha-image-2-4k',
		kind: 'image',
		billing: 'per_call',
		modelPrice: 0.12,
		groups: ['hd'],
		endpointTypes: ['image-generation'],
	},
	{
		id: 'alpha-image-2-az',
		kind: 'image',
		billing: 'per_token',
		modelRatio: 2.5,
		completionRatio: 4,
		groups: ALL_PUBLIC,
		endpointTypes: ['image-generation'],
	},
	{
		id: 'beta-3-pro-image-preview',
		kind: 'image',
		billing: 'per_call',
		modelPrice: 0.08,
		groups: ALL_PUBLIC,
		endpointTypes: ['image-generation', 'gemini'],
	},
	{
		id: 'beta-3-pro-image-preview-1k',
		kind: 'image',
		billing: 'per_call',
		modelPrice: 0.07,
		groups: ALL_PUBLIC,
		endpointTypes: ['image-generation', 'gemini'],
	},
	{
		id: 'beta-3-pro-image-preview-2k',
		kind: 'image',
		billing: 'per_call',
		modelPrice: 0.1,
		groups: ['vip', 'hd'],
		endpointTypes: ['image-generation', 'gemini'],
	},
	{
		id: 'beta-3-pro-image-preview-4k',
		kind: 'image',
		billing: 'per_call',
		modelPrice: 0.16,
		groups: ['hd'],
		endpointTypes: ['image-generation', 'gemini'],
	},
	{
		id: 'beta-3.1-flash-image-preview',
		kind: 'image',
		billing: 'per_call',
		modelPrice: 0.03,
		groups: ALL_PUBLIC,
		endpointTypes: ['image-generation', 'gemini'],
	},
	{
		id: 'beta-3.1-flash-image-preview-1k',
		kind: 'image',
		billing: 'per_call',
		modelPrice: 0.03,
		groups: ALL_PUBLIC,
		endpointTypes: ['image-generation', 'gemini'],
	},
	{
		id: 'beta-3.1-flash-image-preview-2k',
		kind: 'image',
		billing: 'per_call',
		modelPrice: 0.05,
		groups: ['vip', 'hd'],
		endpointTypes: ['image-generation', 'gemini'],
	},
	{
		id: 'beta-3.1-flash-image-preview-4k',
		kind: 'image',
		billing: 'per_call',
		modelPrice: 0.09,
		groups: ['hd'],
		endpointTypes: ['image-generation', 'gemini'],
	},
	{
		id: 'alpha-chat-4o',
		kind: 'language',
		billing: 'per_token',
		modelRatio: 1.25,
		completionRatio: 4,
		groups: ALL_PUBLIC,
		endpointTypes: ['openai', 'openai-response'],
	},
	{
		id: 'alpha-chat-4o-mini',
		kind: 'language',
		billing: 'per_token',
		modelRatio: 0.075,
		completionRatio: 4,
		groups: ALL_PUBLIC,
		endpointTypes: ['openai', 'openai-response'],
	},
	{
		id: 'beta-2.5-flash',
		kind: 'language',
		billing: 'per_token',
		modelRatio: 0.15,
		completionRatio: 8.33,
		groups: ALL_PUBLIC,
		endpointTypes: ['openai'],
	},
	{
		id: 'gamma-reasoner-1',
		kind: 'language',
		billing: 'per_token',
		modelRatio: 7.5,
		completionRatio: 4,
		groups: ['internal'],
		endpointTypes: ['openai'],
	},
	{
		id: 'delta-chat-tiered',
		kind: 'language',
		billing: 'per_token',
		modelRatio: 1,
		completionRatio: 2,
		groups: ALL_PUBLIC,
		billingMode: 'tiered_expr',
		endpointTypes: ['openai'],
	},
	{
		id: 'beta-2.0-flash-offline',
		kind: 'language',
		billing: 'per_token',
		modelRatio: 0.05,
		completionRatio: 4,
		groups: ALL_PUBLIC,
		noChannel: true,
		endpointTypes: ['openai'],
	},
	// thinking models (DeepSeek-style reasoning beside the answer) and a vision model: see the README's scripted models
	{
		id: 'delta-think-r1',
		kind: 'language',
		billing: 'per_token',
		modelRatio: 0.3,
		completionRatio: 4,
		cacheRatio: 0.1,
		groups: ALL_PUBLIC,
		endpointTypes: ['openai', 'openai-response'],
		thinking: 'reasoning_content',
	},
	{
		id: 'beta-think-2.5',
		kind: 'language',
		billing: 'per_token',
		modelRatio: 0.6,
		completionRatio: 4,
		cacheRatio: 0.25,
		groups: ALL_PUBLIC,
		endpointTypes: ['openai', 'openai-response'],
		thinking: 'reasoning',
	},
	{
		id: 'alpha-vision-1',
		kind: 'language',
		billing: 'per_token',
		modelRatio: 1.25,
		completionRatio: 4,
		cacheRatio: 0.5,
		imageRatio: 2,
		groups: ALL_PUBLIC,
		endpointTypes: ['openai', 'openai-response'],
		vision: { maxImageBytes: VISION_MAX_IMAGE_BYTES },
	},
	{
		id: 'delta-video-2-0-mini-260615',
		kind: 'video',
		billing: 'per_video_token',
		videoTokenPrice: { noRefVideo: 11.638, withRefVideo: 7.084 },
		groups: ALL_PUBLIC,
		endpointTypes: ['video'],
	},
	{
		id: 'delta-video-2-0-fast-260128',
		kind: 'video',
		billing: 'per_video_token',
		videoTokenPrice: { noRefVideo: 24.42, withRefVideo: 14.52 },
		groups: ['vip', 'hd'],
		endpointTypes: ['video'],
	},
	{
		id: 'gamma-video-1.0',
		kind: 'video',
		billing: 'per_call',
		modelPrice: 0.3,
		groups: ALL_PUBLIC,
		endpointTypes: ['video'],
	},
	{
		id: 'gamma-video-1.5',
		kind: 'video',
		billing: 'per_call',
		modelPrice: 0.5,
		groups: ['vip', 'hd', 'promo'],
		endpointTypes: ['video'],
	},
];

/** Delta-video base quota per million video tokens (the spec's table), by model. */
export const DELTA_VIDEO_PRICES: Record<string, { noRefVideo: number; withRefVideo: number }> =
	Object.fromEntries(
		MODELS.filter((m) => m.videoTokenPrice).map((m) => [m.id, m.videoTokenPrice!]),
	);

/** Group multipliers. `promo` is publicly selectable but has no ratio (never treated as 0). `internal` is not public. */
export const GROUP_RATIO: Readonly<Record<string, number>> = {
	default: 1,
	vip: 0.8,
	hd: 1.5,
	internal: 0.5,
};
export const USABLE_GROUPS: Readonly<Record<string, string>> = {
	default: 'Default',
	vip: 'VIP',
	hd: 'High-spec',
	promo: 'Promotion',
};
/** Groups charged at a ratio the price list never publishes (none by default; see `setPricing`). */
export const HIDDEN_GROUP_RATIO: Readonly<Record<string, number>> = {};

/** A default model by ID. */
export function modelById(id: string): ModelEntry | undefined {
	return MODELS.find((m) => m.id === id);
}

/** The default models a group enables. */
export function modelsForGroup(group: string): ModelEntry[] {
	return MODELS.filter((m) => m.groups.includes(group));
}
