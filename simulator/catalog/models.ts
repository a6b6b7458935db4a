/** The models and groups the simulator serves, and their prices. */
export type Billing = 'per_call' | 'per_token' | 'per_video_token';

export interface ModelEntry {
	id: string;
	kind: 'image' | 'language' | 'video';
	billing: Billing;
	/** per-call base price in USD (model_price) */
	modelPrice?: number;
	/** per-token ratio (model_ratio) and completion ratio */
	modelRatio?: number;
	completionRatio?: number;
	groups: string[];
	/** served by no channel right now (503 model_not_found) */
	noChannel?: boolean;
	dynamic?: boolean;
	endpointTypes: string[];
}

const ALL_PUBLIC = ['default', 'vip', 'hd'];

export const MODELS: ModelEntry[] = [
	{ id: 'alpha-image-2.5', kind: 'image', billing: 'per_call', modelPrice: 0.04, groups: ALL_PUBLIC, endpointTypes: ['image-generation'] },
	{ id: 'alpha-image-2', kind: 'image', billing: 'per_call', modelPrice: 0.03, groups: ALL_PUBLIC, endpointTypes: ['image-generation'] },
	{ id: 'alpha-image-2-1k', kind: 'image', billing: 'per_call', modelPrice: 0.03, groups: ALL_PUBLIC, endpointTypes: ['image-generation'] },
	{ id: 'alpha-image-2-2k', kind: 'image', billing: 'per_call', modelPrice: 0.06, groups: ['vip', 'hd'], endpointTypes: ['image-generation'] },
	{ id: 'alpha-image-2-4k', kind: 'image', billing: 'per_call', modelPrice: 0.12, groups: ['hd'], endpointTypes: ['image-generation'] },
	{ id: 'alpha-image-2-az', kind: 'image', billing: 'per_token', modelRatio: 2.5, completionRatio: 4, groups: ALL_PUBLIC, endpointTypes: ['image-generation'] },
	{ id: 'beta-3-pro-image-preview', kind: 'image', billing: 'per_call', modelPrice: 0.08, groups: ALL_PUBLIC, endpointTypes: ['image-generation', 'gemini'] },
	{ id: 'beta-3-pro-image-preview-1k', kind: 'image', billing: 'per_call', modelPrice: 0.07, groups: ALL_PUBLIC, endpointTypes: ['image-generation', 'gemini'] },
	{ id: 'beta-3-pro-image-preview-2k', kind: 'image', billing: 'per_call', modelPrice: 0.1, groups: ['vip', 'hd'], endpointTypes: ['image-generation', 'gemini'] },
	{ id: 'beta-3-pro-image-preview-4k', kind: 'image', billing: 'per_call', modelPrice: 0.16, groups: ['hd'], endpointTypes: ['image-generation', 'gemini'] },
	{ id: 'beta-3.1-flash-image-preview', kind: 'image', billing: 'per_call', modelPrice: 0.03, groups: ALL_PUBLIC, endpointTypes: ['image-generation', 'gemini'] },
	{ id: 'beta-3.1-flash-image-preview-1k', kind: 'image', billing: 'per_call', modelPrice: 0.03, groups: ALL_PUBLIC, endpointTypes: ['image-generation', 'gemini'] },
	{ id: 'beta-3.1-flash-image-preview-2k', kind: 'image', billing: 'per_call', modelPrice: 0.05, groups: ['vip', 'hd'], endpointTypes: ['image-generation', 'gemini'] },
	{ id: 'beta-3.1-flash-image-preview-4k', kind: 'image', billing: 'per_call', modelPrice: 0.09, groups: ['hd'], endpointTypes: ['image-generation', 'gemini'] },
	{ id: 'alpha-chat-4o', kind: 'language', billing: 'per_token', modelRatio: 1.25, completionRatio: 4, groups: ALL_PUBLIC, endpointTypes: ['openai', 'openai-response'] },
	{ id: 'alpha-chat-4o-mini', kind: 'language', billing: 'per_token', modelRatio: 0.075, completionRatio: 4, groups: ALL_PUBLIC, endpointTypes: ['openai', 'openai-response'] },
	{ id: 'beta-2.5-flash', kind: 'language', billing: 'per_token', modelRatio: 0.15, completionRatio: 8.33, groups: ALL_PUBLIC, endpointTypes: ['openai'] },
	{ id: 'gamma-reasoner-1', kind: 'language', billing: 'per_token', modelRatio: 7.5, completionRatio: 4, groups: ['internal'], endpointTypes: ['openai'] },
	{ id: 'delta-chat-tiered', kind: 'language', billing: 'per_token', modelRatio: 1, completionRatio: 2, groups: ALL_PUBLIC, dynamic: true, endpointTypes: ['openai'] },
	{ id: 'beta-2.0-flash-offline', kind: 'language', billing: 'per_token', modelRatio: 0.05, completionRatio: 4, groups: ALL_PUBLIC, noChannel: true, endpointTypes: ['openai'] },
	{ id: 'delta-video-2-0-mini-260615', kind: 'video', billing: 'per_video_token', groups: ALL_PUBLIC, endpointTypes: ['video'] },
	{ id: 'delta-video-2-0-fast-260128', kind: 'video', billing: 'per_video_token', groups: ['vip', 'hd'], endpointTypes: ['video'] },
	{ id: 'gamma-video-1.0', kind: 'video', billing: 'per_call', modelPrice: 0.3, groups: ALL_PUBLIC, endpointTypes: ['video'] },
	{ id: 'gamma-video-1.5', kind: 'video', billing: 'per_call', modelPrice: 0.5, groups: ['vip', 'hd', 'promo'], endpointTypes: ['video'] },
];

/** Delta-video base quota per million video tokens (the spec's table). */
export const DELTA_VIDEO_PRICES: Record<string, { noRefVideo: number; withRefVideo: number }> = {
	'delta-video-2-0-mini-260615': { noRefVideo: 11.638, withRefVideo: 7.084 },
	'delta-video-2-0-fast-260128': { noRefVideo: 24.42, withRefVideo: 14.52 },
};

/** Group multipliers. `promo` is publicly selectable but has no ratio (never treated as 0). `internal` is not public. */
export const GROUP_RATIO: Record<string, number> = { default: 1, vip: 0.8, hd: 1.5, internal: 0.5 };
export const USABLE_GROUPS: Record<string, string> = { default: 'Default', vip: 'VIP', hd: 'High-spec', promo: 'Promotion' };

export function modelById(id: string): ModelEntry | undefined {
	return MODELS.find((m) => m.id === id);
}

export function modelsForGroup(group: string): ModelEntry[] {
	return MODELS.filter((m) => m.groups.includes(group));
}
