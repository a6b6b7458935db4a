/**
 * The price of a paid call before it is sent (its quote), pure. Amounts are in whole site quota units (¤, the gateway's
 * billing unit) and in the display currency of `/api/status`, by the Pricing node's rules (compute.ts
 * `quotaToDisplay`, `formatDisplay`); the figure and its words are ./figure.ts's, token counts ./tokens.ts's.
 *
 * Bases (the spec's billing rules): per call = model_price × group multiplier × quota_per_unit, per image asked (n);
 * per token = Σ tokens of each kind × its ratio × model_ratio × group multiplier, from the answer's usage (./tokens.ts);
 * per video token (delta-video) = tokens / 1e6 × unit price × group multiplier × quota_per_unit, known on completion.
 *
 * The multiplier is known from the node's Group Multiplier option or the public ratio of its Group Name. Without
 * either it is not known: the figure is a range from the lowest publicly selectable group that enables the model to
 * the highest group ratio the price list publishes for a group that enables the model, and the cap and the record
 * count the highest. No published ratio of 0 (or below) makes a paid call free: such groups are left out, and a model
 * with no positive ratio has no figure at all.
 */
import {
	DELTA_VIDEO_UNIT_PRICES,
	numberOf,
	type DisplaySettings,
	type PriceEntry,
	type PricingData,
	lowestPublicGroup,
} from './prices';
import { groupRatioOf } from './delta';
import { roundedProduct } from './decimal';
import type { TokenBound, TokenRatios } from './tokens';

export type CostStatus = 'expected' | 'settled' | 'range' | 'estimate' | 'unknown';
export type CostBasis = 'per_call' | 'per_token' | 'per_video_token';
/** the node's Group Multiplier option, or its Group Name read from the public ratios */
export type MultiplierSource = 'group_multiplier_option' | 'group_name';

/** What the node's options say about the key's group multiplier. */
export interface GroupChoice {
	/** a positive Group Multiplier */
	ratio?: number;
	/** the Group Multiplier option was added but left empty (or 0): the multiplier is unknown, never 1 */
	ratioLeftEmpty?: boolean;
	groupName?: string;
	/** the group is the credential's Key's Group (no node option gave one) */
	fromCredential?: boolean;
}

export interface GroupRatio {
	group: string;
	ratio: number;
}

export interface Multiplier {
	/** the key's multiplier, when it is known */
	ratio?: number;
	source: MultiplierSource | null;
	group: string | null;
	/** multiplier not known: the lowest publicly selectable group enabling the model (what the price list shows) */
	low?: GroupRatio;
	/** multiplier not known: the highest group ratio published for a group enabling the model (what a cap counts) */
	high?: GroupRatio;
	/** why it is not known */
	unknownWhy?: string;
	/** it is the credential's Key's Group */
	fromCredential?: boolean;
}

/**
 * The group a call is priced at: the node's own Group Multiplier or Group Name when it gives one (added but empty
 * counts: the user said "not known"), else the credential's Key's Group, else none (a range).
 */
export function withKeyGroup(node: GroupChoice, key: GroupChoice | undefined): GroupChoice {
	if (!key || node.ratio !== undefined || node.ratioLeftEmpty || node.groupName) return node;
	return { ...key, fromCredential: true };
}

const enabledGroups = (entry: PriceEntry | undefined): string[] =>
	Array.isArray(entry?.enable_groups)
		? entry.enable_groups.filter((g): g is string => typeof g === 'string')
		: [];

/**
 * The lowest public group (Pricing's rule, `lowestPublicGroup`: a public ratio of 0 is a real, free group) and the
 * highest published positive ratio of the groups that enable a model.
 */
export function ratioRange(
	pricing: PricingData,
	entry: PriceEntry | undefined,
): { low?: GroupRatio; high?: GroupRatio } {
	let high: GroupRatio | undefined;
	for (const group of enabledGroups(entry)) {
		const ratio = numberOf(pricing.group_ratio?.[group]);
		if (ratio === undefined || ratio <= 0) continue;
		if (!high || ratio > high.ratio) high = { group, ratio };
	}
	const low = lowestPublicGroup(entry, pricing).best;
	return { low: low ?? high, high: high ?? low };
}

export function resolveMultiplier(
	choice: GroupChoice,
	pricing: PricingData,
	model: string,
): Multiplier {
	if (choice.ratio !== undefined && choice.ratio > 0)
		return {
			ratio: choice.ratio,
			source: 'group_multiplier_option',
			group: null,
			...(choice.fromCredential ? { fromCredential: true } : {}),
		};
	const entry = pricing.data.find((e) => e.model_name === model);
	const range = ratioRange(pricing, entry);
	const name = choice.groupName?.trim();
	if (name && !choice.ratioLeftEmpty) {
		const ratio = groupRatioOf(pricing.group_ratio, name);
		if (ratio !== undefined && ratio > 0)
			return {
				ratio,
				source: 'group_name',
				group: name,
				...(choice.fromCredential ? { fromCredential: true } : {}),
			};
		return {
			source: null,
			group: name,
			...range,
			unknownWhy: `group "${name}" has no positive ratio in the public group_ratio`,
		};
	}
	const why = choice.ratioLeftEmpty
		? 'the Group Multiplier option is empty'
		: "your key's group is not given (Group Multiplier or Group Name)";
	return {
		source: null,
		group: null,
		...range,
		unknownWhy: range.high
			? why
			: `${why}, and no group enabling this model has a positive ratio in the price list`,
	};
}

/** What a call is priced by. */
export interface PricedAs {
	model: string;
	/** calls billed per call by one request (images asked for, n) */
	calls: number;
	/**
	 * requests the item may send, each billed `calls` (a JSON Schema answer: the first and its one repair request); the
	 * cap and a quote count them all, the record only those sent (`asSent`). 1 unless given
	 */
	requests?: number;
	/** per-token calls: a bound of the tokens the call can use, when one can be given */
	tokenBound?: TokenBound;
	/** delta videos: an estimate of the video tokens (resolution × duration), and whether a reference video is given */
	video?: { tokens: number; withReferenceVideo: boolean; how: string };
}

/** 24 fps, the tier's 16:9 frame (480p: 864×480, 720p: 1280×720), tokens = pixels × frames / 1024 (an estimate, not a bound). */
export function deltaTokenEstimate(resolution: string, seconds: number): number {
	const [w, h] = resolution === '720p' ? [1280, 720] : [864, 480];
	return Math.round((w * h * 24 * seconds) / 1024);
}

/** The prices of one call, before its request is sent. */
export interface Quote {
	model: string;
	basis: CostBasis | null;
	/** calls billed per call, over every request counted */
	calls: number;
	/** the requests counted (PricedAs.requests) */
	requests: number;
	/** the requests counted are those the item sent (the record: `asSent`), not those it may send (a quote, the cap) */
	sent?: boolean;
	multiplier: Multiplier;
	/** per call: whole ¤ for the call at the known multiplier, or at the lowest and highest ratio */
	perCall?: { low: number; high: number };
	/** delta video: the estimated fee at the known multiplier, or at the lowest and highest ratio (never a cap's bound) */
	videoEstimate?: { low: number; high: number; how: string; tokens: number };
	tokenRatios?: TokenRatios;
	tokenBound?: TokenBound;
	/** why there is no figure (or none before the answer) */
	unpricedWhy?: string;
}

const isDelta = (model: string) =>
	Object.prototype.hasOwnProperty.call(DELTA_VIDEO_UNIT_PRICES, model);
const nonNegative = (v: unknown) => {
	const n = numberOf(v);
	return n !== undefined && n >= 0 ? n : undefined;
};

function tokenRatiosOf(entry: PriceEntry): TokenRatios | undefined {
	const model = nonNegative(entry.model_ratio);
	if (model === undefined) return undefined;
	return {
		model,
		completion: nonNegative(entry.completion_ratio) ?? 1,
		cache: nonNegative(entry.cache_ratio),
		createCache: nonNegative(entry.create_cache_ratio),
		image: nonNegative(entry.image_ratio),
		audio: nonNegative(entry.audio_ratio),
		audioCompletion: nonNegative(entry.audio_completion_ratio),
	};
}

/** The price of a call before it is sent: a figure per call, a bound per token, or why there is none yet. */
export function quote(
	as: PricedAs,
	pricing: PricingData | undefined,
	display: DisplaySettings | undefined,
	choice: GroupChoice,
	pricingError?: string,
): Quote {
	const requests = as.requests ?? 1;
	const base = { model: as.model, calls: as.calls * requests, requests, tokenBound: as.tokenBound };
	if (!pricing || !display)
		return {
			...base,
			basis: isDelta(as.model) ? 'per_video_token' : null,
			multiplier: { source: null, group: null },
			unpricedWhy: `the public price list could not be read${pricingError ? ` (${pricingError})` : ''}`,
		};
	const multiplier = resolveMultiplier(choice, pricing, as.model);
	const entry = pricing.data.find((e) => e.model_name === as.model);
	if (!entry)
		return {
			...base,
			basis: isDelta(as.model) ? 'per_video_token' : null,
			multiplier,
			unpricedWhy: 'the public price list does not list this model',
		};
	const basis: CostBasis = isDelta(as.model)
		? 'per_video_token'
		: numberOf(entry.quota_type) === 1
			? 'per_call'
			: 'per_token';
	const withBasis: Quote = { ...base, basis, multiplier };
	if (entry.billing_mode === 'tiered_expr')
		return { ...withBasis, unpricedWhy: 'the model has dynamic (tiered) pricing: no fixed price' };
	if (basis === 'per_video_token') return videoQuote(withBasis, as, display);
	if (multiplier.ratio === undefined && !multiplier.high)
		return { ...withBasis, unpricedWhy: multiplier.unknownWhy };
	if (basis === 'per_token') return tokenQuote(withBasis, entry, as);
	return callQuote(withBasis, entry, display);
}

/** A delta video: an estimate from its tokens (never a bound), at the multiplier's low and high ends. */
function videoQuote(q: Quote, as: PricedAs, display: DisplaySettings): Quote {
	const videoWhy =
		'billed per video token: reserved at submission and settled to actual usage on completion (Task Wait gives the settled fee)';
	const unit = as.video
		? DELTA_VIDEO_UNIT_PRICES[as.model]?.[
				as.video.withReferenceVideo ? 'withReferenceVideo' : 'noReferenceVideo'
			]
		: undefined;
	const lowR = q.multiplier.ratio ?? q.multiplier.low?.ratio;
	const highR = q.multiplier.ratio ?? q.multiplier.high?.ratio;
	if (!as.video || unit === undefined || lowR === undefined || highR === undefined)
		return { ...q, unpricedWhy: videoWhy };
	const at = (r: number) =>
		roundedProduct([as.video!.tokens, unit, r, display.quotaPerUnit], 1_000_000);
	return {
		...q,
		unpricedWhy: videoWhy,
		videoEstimate: { low: at(lowR), high: at(highR), how: as.video.how, tokens: as.video.tokens },
	};
}

/** Per token: the price list's token ratios, a bound when the call has one, else known from the answer's usage. */
function tokenQuote(q: Quote, entry: PricingData['data'][number], as: PricedAs): Quote {
	const ratios = tokenRatiosOf(entry);
	if (!ratios)
		return {
			...q,
			unpricedWhy: 'billed per token, and the price list carries no token price (model_ratio)',
		};
	return {
		...q,
		tokenRatios: ratios,
		unpricedWhy: as.tokenBound
			? undefined
			: "billed per token: the cost is known from the answer's usage",
	};
}

/** Per call: model_price × the multiplier (or its range) × quota_per_unit, in whole ¤, times the calls. */
function callQuote(q: Quote, entry: PricingData['data'][number], display: DisplaySettings): Quote {
	const price = nonNegative(entry.model_price);
	if (price === undefined) return { ...q, unpricedWhy: 'the price list gives no model_price' };
	const at = (ratio: number) => roundedProduct([price, ratio, display.quotaPerUnit]) * q.calls;
	const low = q.multiplier.ratio ?? q.multiplier.low!.ratio;
	const high = q.multiplier.ratio ?? q.multiplier.high!.ratio;
	return { ...q, perCall: { low: at(low), high: at(high) } };
}

/**
 * The quote of the requests an item sent: a per-call figure counts each request that left (the gateway charges each
 * once), never one that was not sent — a JSON Schema answer that validated at once is one call, not two.
 */
export function asSent(q: Quote, sent: number): Quote {
	if (sent < 1) return q;
	if (sent === q.requests) return { ...q, sent: true };
	// every figure is a whole multiple of the requests counted: exact
	const per = (x: number) => (x / q.requests) * sent;
	return {
		...q,
		requests: sent,
		sent: true,
		calls: per(q.calls),
		...(q.perCall ? { perCall: { low: per(q.perCall.low), high: per(q.perCall.high) } } : {}),
	};
}
