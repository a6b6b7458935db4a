/**
 * The live price list: models with their prices and the groups that enable them, the published group tables
 * (`usable_group`, `group_ratio`) and the ratios of hidden groups (charged, never published). It starts as the
 * defaults of ./models.ts; tests reconfigure it with a `PricingConfig` in the wire's own field names.
 */
import {
	GROUP_RATIO,
	HIDDEN_GROUP_RATIO,
	MODELS,
	USABLE_GROUPS,
	VISION_MAX_IMAGE_BYTES,
	type ModelEntry,
} from './models';

/** One model of a `PricingConfig`: the wire fields of `/api/pricing`, plus a few the simulator never publishes. */
export interface PriceEntryInput {
	model_name: string;
	/** 1 per call, 0 per token (a delta-video model stays per video token) */
	quota_type?: 0 | 1;
	model_price?: number;
	model_ratio?: number;
	completion_ratio?: number;
	/** optional ratios; `null` removes one (that category is then billed like plain prompt tokens) */
	cache_ratio?: number | null;
	create_cache_ratio?: number | null;
	image_ratio?: number | null;
	audio_ratio?: number | null;
	audio_completion_ratio?: number | null;
	enable_groups?: string[];
	/** e.g. `tiered_expr`; `null` removes it */
	billing_mode?: string | null;
	supported_endpoint_types?: string[];
	/** delta-video unit prices (base quota per 1M video tokens) */
	video_token_price?: { noRefVideo: number; withRefVideo: number };
	/** simulator only, never published: what the model is (new models: inferred from `supported_endpoint_types`, else `language`) */
	kind?: 'image' | 'language' | 'video';
	/** simulator only: a language model that reads image parts (true: up to 5 MiB decoded per image) */
	vision?: boolean | { max_image_bytes: number };
	/** simulator only: a thinking language model and the name of its reasoning field; false: not thinking */
	thinking?: 'reasoning_content' | 'reasoning' | false;
	/** simulator only: no channel serves the model (503 model_not_found) */
	no_channel?: boolean;
}

/** What `sim.setPricing(...)`, `POST /__sim/pricing` and the `pricing` option take. Every part is optional. */
export interface PricingConfig {
	/** start from an empty price list (no models, no groups) instead of the current one */
	replace?: boolean;
	/** merged by `model_name`: the fields given replace the model's, a new name adds a model */
	data?: PriceEntryInput[];
	/** merged: publicly selectable groups (name → description); `null` removes a group */
	usable_group?: Record<string, string | null>;
	/** merged: published group multipliers; `null` removes one */
	group_ratio?: Record<string, number | null>;
	/** merged: groups the price list never shows, charged at these ratios; `null` removes one */
	hidden_group_ratio?: Record<string, number | null>;
	/** group → models it enables as well (adds the group to those models' `enable_groups`) */
	enable?: Record<string, string[]>;
}

/** The price list as the simulator knows it (also what `GET /__sim/pricing` answers). */
export interface PricingSnapshot {
	data: Array<Record<string, unknown>>;
	usable_group: Record<string, string>;
	group_ratio: Record<string, number>;
	hidden_group_ratio: Record<string, number>;
}

const OPTIONAL_RATIOS = [
	['cache_ratio', 'cacheRatio'],
	['create_cache_ratio', 'createCacheRatio'],
	['image_ratio', 'imageRatio'],
	['audio_ratio', 'audioRatio'],
	['audio_completion_ratio', 'audioCompletionRatio'],
] as const;

function copyModel(m: ModelEntry): ModelEntry {
	return {
		...m,
		groups: [...m.groups],
		endpointTypes: [...m.endpointTypes],
		...(m.videoTokenPrice ? { videoTokenPrice: { ...m.videoTokenPrice } } : {}),
		...(m.vision ? { vision: { ...m.vision } } : {}),
	};
}

function merge<T>(
	into: Record<string, T>,
	from: Record<string, T | null> | undefined,
	what: string,
	check: (v: T) => boolean,
): void {
	for (const [k, v] of Object.entries(from ?? {})) {
		if (v === null) delete into[k];
		else if (check(v)) into[k] = v;
		else throw new Error(`pricing: ${what}.${k} is not valid: ${JSON.stringify(v)}`);
	}
}

const isRatio = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;

export class PriceList {
	models: ModelEntry[] = [];
	usableGroups: Record<string, string> = {};
	groupRatio: Record<string, number> = {};
	hiddenGroupRatio: Record<string, number> = {};

	constructor(config?: PricingConfig) {
		this.reset();
		if (config) this.apply(config);
	}

	/** Back to the defaults of ./models.ts. */
	reset(): void {
		this.models = MODELS.map(copyModel);
		this.usableGroups = { ...USABLE_GROUPS };
		this.groupRatio = { ...GROUP_RATIO };
		this.hiddenGroupRatio = { ...HIDDEN_GROUP_RATIO };
	}

	model(id: string): ModelEntry | undefined {
		return this.models.find((m) => m.id === id);
	}

	/** The models a group enables. */
	modelsForGroup(group: string): ModelEntry[] {
		return this.models.filter((m) => m.groups.includes(group));
	}

	/** The ratio a key of `group` is charged at: its published ratio, else its hidden one, else 1 (never 0 for want of one). */
	ratioOf(group: string): number {
		return this.groupRatio[group] ?? this.hiddenGroupRatio[group] ?? 1;
	}

	/** A group the price list does not publish: only in `hidden_group_ratio`. */
	isHidden(group: string): boolean {
		return (
			group in this.hiddenGroupRatio && !(group in this.groupRatio) && !(group in this.usableGroups)
		);
	}

	/** Applies a change whole, or not at all (an invalid part throws and leaves the list as it was). */
	apply(config: PricingConfig): void {
		const before = {
			models: this.models.map(copyModel),
			usableGroups: { ...this.usableGroups },
			groupRatio: { ...this.groupRatio },
			hiddenGroupRatio: { ...this.hiddenGroupRatio },
		};
		try {
			this.applyAll(config);
		} catch (err) {
			Object.assign(this, before);
			throw err;
		}
	}

	private applyAll(config: PricingConfig): void {
		if (!config || typeof config !== 'object') throw new Error('pricing: expected an object');
		if (config.replace) {
			this.models = [];
			this.usableGroups = {};
			this.groupRatio = {};
			this.hiddenGroupRatio = {};
		}
		merge(this.usableGroups, config.usable_group, 'usable_group', (v) => typeof v === 'string');
		merge(this.groupRatio, config.group_ratio, 'group_ratio', isRatio);
		merge(this.hiddenGroupRatio, config.hidden_group_ratio, 'hidden_group_ratio', isRatio);
		for (const e of config.data ?? []) this.applyEntry(e);
		for (const [group, ids] of Object.entries(config.enable ?? {})) {
			for (const id of ids) {
				const m = this.model(id);
				if (!m) throw new Error(`pricing: enable.${group}: no model ${id}`);
				if (!m.groups.includes(group)) m.groups.push(group);
			}
		}
	}

	private applyEntry(e: PriceEntryInput): void {
		if (!e || typeof e.model_name !== 'string' || !e.model_name)
			throw new Error('pricing: every data entry needs a model_name');
		let m = this.model(e.model_name);
		if (!m) {
			const types = e.supported_endpoint_types ?? ['openai'];
			const kind =
				e.kind ??
				(types.includes('video')
					? 'video'
					: types.includes('image-generation')
						? 'image'
						: 'language');
			m = {
				id: e.model_name,
				kind,
				billing: e.quota_type === 1 ? 'per_call' : 'per_token',
				groups: [],
				endpointTypes: [...types],
			};
			this.models.push(m);
		}
		for (const [field, value] of Object.entries({
			model_price: e.model_price,
			model_ratio: e.model_ratio,
			completion_ratio: e.completion_ratio,
		})) {
			if (value !== undefined && !isRatio(value))
				throw new Error(`pricing: ${e.model_name}.${field} is not valid: ${JSON.stringify(value)}`);
		}
		if (e.kind) m.kind = e.kind;
		if (e.quota_type !== undefined && m.billing !== 'per_video_token')
			m.billing = e.quota_type === 1 ? 'per_call' : 'per_token';
		if (e.model_price !== undefined) m.modelPrice = e.model_price;
		if (e.model_ratio !== undefined) m.modelRatio = e.model_ratio;
		if (e.completion_ratio !== undefined) m.completionRatio = e.completion_ratio;
		for (const [wire, field] of OPTIONAL_RATIOS) {
			const v = e[wire];
			if (v === undefined) continue;
			if (v === null) delete m[field];
			else if (isRatio(v)) m[field] = v;
			else throw new Error(`pricing: ${e.model_name}.${wire} is not valid: ${JSON.stringify(v)}`);
		}
		if (e.enable_groups) m.groups = [...e.enable_groups];
		if (e.billing_mode !== undefined) {
			if (e.billing_mode === null) delete m.billingMode;
			else m.billingMode = e.billing_mode;
		}
		if (e.supported_endpoint_types) m.endpointTypes = [...e.supported_endpoint_types];
		if (e.video_token_price) m.videoTokenPrice = { ...e.video_token_price };
		if (e.vision !== undefined) {
			if (e.vision === false) delete m.vision;
			else
				m.vision = {
					maxImageBytes: e.vision === true ? VISION_MAX_IMAGE_BYTES : e.vision.max_image_bytes,
				};
		}
		if (e.thinking !== undefined) {
			if (e.thinking === false) delete m.thinking;
			else m.thinking = e.thinking;
		}
		if (e.no_channel !== undefined) m.noChannel = e.no_channel;
	}

	/** One model as `/api/pricing` shows it: hidden groups left out, simulator-only fields never shown. */
	publishedEntry(m: ModelEntry): Record<string, unknown> {
		const entry: Record<string, unknown> = {
			model_name: m.id,
			quota_type: m.billing === 'per_call' ? 1 : 0,
			model_price: m.modelPrice ?? 0,
			model_ratio: m.modelRatio ?? 0,
			completion_ratio: m.completionRatio ?? 1,
		};
		for (const [wire, field] of OPTIONAL_RATIOS) if (m[field] !== undefined) entry[wire] = m[field];
		entry.enable_groups = m.groups.filter((g) => !this.isHidden(g));
		entry.supported_endpoint_types = m.endpointTypes;
		entry.owner_by = '';
		if (m.billingMode) entry.billing_mode = m.billingMode;
		if (m.videoTokenPrice) entry.video_token_price = m.videoTokenPrice;
		return entry;
	}

	/** The whole price list as the simulator knows it, hidden ratios included. */
	snapshot(): PricingSnapshot {
		return {
			data: this.models.map((m) => ({
				...this.publishedEntry(m),
				enable_groups: [...m.groups],
				...(m.vision ? { vision: { max_image_bytes: m.vision.maxImageBytes } } : {}),
				...(m.thinking ? { thinking: m.thinking } : {}),
				...(m.noChannel ? { no_channel: true } : {}),
				kind: m.kind,
			})),
			usable_group: { ...this.usableGroups },
			group_ratio: { ...this.groupRatio },
			hidden_group_ratio: { ...this.hiddenGroupRatio },
		};
	}
}
