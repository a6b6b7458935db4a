/**
 * The `cost` of a paid call, pure. Amounts are in whole site quota units (¤, the gateway's billing unit) and in the
 * display currency of `/api/status`, by the Pricing node's rules (compute.ts `quotaToDisplay`, `formatDisplay`).
 *
 * Bases (the spec's billing rules): per call = model_price × group multiplier × quota_per_unit, per image asked (n);
 * per token = Σ tokens of each kind × its ratio × model_ratio × group multiplier, from the answer's usage (plain
 * prompt tokens × 1, cached × cache_ratio, cache writes × create_cache_ratio, image × image_ratio, audio × audio_ratio,
 * completion (reasoning included) × completion_ratio, audio output × audio_ratio × audio_completion_ratio; a kind the
 * usage reports but the price list gives no ratio for is counted as plain tokens, and said); per video token
 * (delta-video) = tokens / 1e6 × unit price × group multiplier × quota_per_unit, known on completion.
 *
 * The multiplier is known from the node's Group Multiplier option or the public ratio of its Group Name. Without
 * either it is not known: the figure is a range from the lowest publicly selectable group that enables the model to
 * the highest group ratio the price list publishes for a group that enables the model, and the cap and the record
 * count the highest. No published ratio of 0 (or below) makes a paid call free: such groups are left out, and a model
 * with no positive ratio has no figure at all.
 *
 * Statuses: `expected` (a figure at a known multiplier), `settled` (a delta video's actual usage at a known
 * multiplier), `range` (the multiplier is not known: lowest to highest; `quota` is the highest), `estimate` (a bound
 * before the answer, or a figure with a part priced as plain tokens), `unknown` (no figure: not free).
 */
import type { IDataObject } from 'n8n-workflow';
import {
	DELTA_VIDEO_UNIT_PRICES,
	numberOf,
	quotaToDisplay,
	formatDisplay,
	type DisplaySettings,
	type PriceEntry,
	type PricingData,
	lowestPublicGroup,
} from './prices';
import { groupRatioOf } from './delta';
import { roundedProduct, roundedSumOfProducts } from './decimal';

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

/** An upper bound of a per-token call's tokens: its request's bytes as prompt tokens, its Maximum Tokens as completion. */
export interface TokenBound {
	prompt: number;
	completion: number;
	/** how the bound was made, for the note */
	how: string;
}

/** Token counts of an answer, by kind (all within prompt / completion). */
export interface TokenCount {
	prompt: number;
	completion: number;
	cached?: number;
	cacheWrite?: number;
	image?: number;
	audio?: number;
	audioOut?: number;
	reasoning?: number;
}

/** A per-token model's published ratios (¤ per token at multiplier 1 = model_ratio; the others multiply it). */
export interface TokenRatios {
	model: number;
	completion: number;
	cache?: number;
	createCache?: number;
	image?: number;
	audio?: number;
	audioCompletion?: number;
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

/** Whole ¤ of per-token usage at a multiplier, and the kinds the price list gives no ratio for (counted as plain). */
export function tokenQuota(
	t: TokenCount,
	r: TokenRatios,
	multiplier: number,
): { quota: number; plainAs: string[] } {
	const plainAs: string[] = [];
	const ratio = (n: number | undefined, own: number | undefined, what: string, plain: number) => {
		if (!n) return plain;
		if (own === undefined) plainAs.push(what);
		return own ?? plain;
	};
	const cached = t.cached ?? 0;
	const cacheWrite = t.cacheWrite ?? 0;
	const image = t.image ?? 0;
	const audio = t.audio ?? 0;
	const audioOut = Math.min(t.audioOut ?? 0, t.completion);
	const plainPrompt = Math.max(0, t.prompt - cached - cacheWrite - image - audio);
	const terms: number[][] = [
		[plainPrompt, r.model, multiplier],
		[cached, ratio(cached, r.cache, 'cached tokens (no cache_ratio)', 1), r.model, multiplier],
		[
			cacheWrite,
			ratio(cacheWrite, r.createCache, 'cache-write tokens (no create_cache_ratio)', 1),
			r.model,
			multiplier,
		],
		[image, ratio(image, r.image, 'image tokens (no image_ratio)', 1), r.model, multiplier],
		[audio, ratio(audio, r.audio, 'audio tokens (no audio_ratio)', 1), r.model, multiplier],
		[t.completion - audioOut, r.completion, r.model, multiplier],
		[
			audioOut,
			ratio(audioOut, r.audio, 'audio output tokens (no audio_ratio)', 1),
			ratio(audioOut, r.audioCompletion, 'audio output tokens (no audio_completion_ratio)', 1),
			r.model,
			multiplier,
		],
	];
	return {
		quota: roundedSumOfProducts(terms.filter((t) => t[0] > 0)),
		plainAs: [...new Set(plainAs)],
	};
}

/** The highest ¤ a per-token call can cost under its bound: every prompt token at the dearest prompt ratio published. */
export function tokenBoundQuota(b: TokenBound, r: TokenRatios, multiplier: number): number {
	const dearestPrompt = Math.max(1, r.cache ?? 0, r.createCache ?? 0, r.image ?? 0, r.audio ?? 0);
	return roundedSumOfProducts([
		[b.prompt, dearestPrompt, r.model, multiplier],
		[b.completion, r.completion, r.model, multiplier],
	]);
}

/** Token counts of a chat (`prompt_tokens`/`completion_tokens` and their details) or responses (`input_tokens`/`output_tokens`) usage. */
export function tokenCountOf(usage: unknown): TokenCount | undefined {
	if (!usage || typeof usage !== 'object') return undefined;
	const u = usage as Record<string, unknown>;
	const n = (v: unknown) =>
		typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : undefined;
	const obj = (v: unknown) => (v && typeof v === 'object' ? (v as Record<string, unknown>) : {});
	const prompt = n(u.prompt_tokens) ?? n(u.input_tokens) ?? n(u.promptTokens);
	const completion = n(u.completion_tokens) ?? n(u.output_tokens) ?? n(u.completionTokens);
	if (prompt === undefined || completion === undefined) return undefined;
	const pd = { ...obj(u.input_tokens_details), ...obj(u.prompt_tokens_details) };
	const cd = { ...obj(u.output_tokens_details), ...obj(u.completion_tokens_details) };
	const out: TokenCount = { prompt, completion };
	const set = (k: keyof TokenCount, v: number | undefined) => {
		if (v) out[k] = v;
	};
	set('cached', n(pd.cached_tokens) ?? n(u.cache_read_input_tokens));
	set(
		'cacheWrite',
		n(pd.cached_creation_tokens) ?? n(pd.cache_creation_tokens) ?? n(u.cache_creation_input_tokens),
	);
	set('image', n(pd.image_tokens));
	set('audio', n(pd.audio_tokens));
	set('audioOut', n(cd.audio_tokens));
	set('reasoning', n(cd.reasoning_tokens));
	return out;
}

const BASIS_WORDS: Record<CostBasis, string> = {
	per_call: 'per call',
	per_token: 'per token',
	per_video_token: 'per video token',
};

export interface CostFigure {
	status: CostStatus;
	basis: CostBasis | null;
	/** what the record and the cap count: the charge when known, else its upper bound; undefined: no figure */
	quota?: number;
	/** a range: the figure at the lowest ratio */
	quotaLow?: number;
	/** an `estimate` that is an upper bound all the same (a turn's Maximum Number of Tokens): "at most" is true of it */
	bound?: boolean;
	multiplier: Multiplier;
	quantity: IDataObject;
	note: string;
}

/** The money text of a figure: "$0.03 (¤16000)", "$0.03–$0.05 (¤12800–¤24000)" (amounts as the currency shows them, ¤ exact). */
export function figureText(
	f: Pick<CostFigure, 'quota' | 'quotaLow'>,
	display: DisplaySettings | undefined,
): string | null {
	if (f.quota === undefined) return null;
	const one = (q: number) => (display ? formatDisplay(quotaToDisplay(q, display)) : `¤${q}`);
	if (f.quotaLow !== undefined && f.quotaLow !== f.quota) {
		if (!display) return `¤${f.quotaLow}–¤${f.quota}`;
		// both ends shown alike in the currency ($0.03–$0.03): the amount once, the exact ends in ¤
		const [low, high] = [one(f.quotaLow), one(f.quota)];
		return `${low === high ? low : `${low}–${high}`} (¤${f.quotaLow}–¤${f.quota})`;
	}
	return display ? `${one(f.quota)} (¤${f.quota})` : `¤${f.quota}`;
}

/** The call's `cost` JSON. */
export function costJson(f: CostFigure, display: DisplaySettings | undefined): IDataObject {
	const shown = f.quota !== undefined && display ? quotaToDisplay(f.quota, display) : undefined;
	const low = f.quotaLow !== undefined && display ? quotaToDisplay(f.quotaLow, display) : undefined;
	const unit = display ? quotaToDisplay(0, display) : undefined;
	const m = f.multiplier;
	return {
		status: f.status,
		basis: f.basis ? BASIS_WORDS[f.basis] : null,
		quota: f.quota ?? null,
		amount: shown?.amount ?? null,
		...(f.quotaLow !== undefined ? { quota_low: f.quotaLow, amount_low: low?.amount ?? null } : {}),
		currency: unit?.currency ?? null,
		symbol: unit?.symbol ?? null,
		text: figureText(f, display),
		group_multiplier: m.ratio ?? null,
		group_multiplier_source: m.source,
		group: m.group,
		...(m.ratio === undefined && m.high
			? { group_multiplier_range: [m.low?.ratio ?? m.high.ratio, m.high.ratio] }
			: {}),
		...f.quantity,
		note: f.note,
	};
}

function atWhat(m: Multiplier): string {
	const credential = m.fromCredential ? " (the credential's Key's Group)" : '';
	if (m.source === 'group_multiplier_option')
		return `at your ${m.fromCredential ? 'key group' : 'Group'} Multiplier ${m.ratio}${credential}`;
	if (m.source === 'group_name')
		return `at group ${m.group}'s public ratio ${m.ratio}${credential}`;
	if (m.high)
		return `${m.unknownWhy ?? 'the multiplier is not known'}: from the lowest public group ${m.low?.group} (${m.low?.ratio}) to the highest published group ${m.high.group} (${m.high.ratio}); the cap and the record count the highest`;
	return m.unknownWhy ?? 'the multiplier is not known';
}

/** The figure of a call from its quote and, for per-token models, the answer's usage (undefined before the answer). */
export function costOf(q: Quote, usage?: TokenCount): CostFigure {
	const m = q.multiplier;
	const lowRatio = m.ratio ?? m.low?.ratio;
	const highRatio = m.ratio ?? m.high?.ratio;
	if (
		q.basis === 'per_token' &&
		q.tokenRatios &&
		highRatio !== undefined &&
		lowRatio !== undefined
	) {
		if (usage) return usageCost(q, q.tokenRatios, usage, lowRatio, highRatio);
		if (q.tokenBound)
			return {
				status: 'estimate',
				bound: true,
				basis: 'per_token',
				quota: tokenBoundQuota(q.tokenBound, q.tokenRatios, highRatio),
				multiplier: m,
				quantity: {
					prompt_tokens_bound: q.tokenBound.prompt,
					completion_tokens_bound: q.tokenBound.completion,
				},
				note: `at most: ${q.tokenBound.how}, ${atWhat(m)}`,
			};
	}
	const known = m.ratio !== undefined;
	if (q.videoEstimate)
		return {
			status: 'estimate',
			basis: 'per_video_token',
			quota: q.videoEstimate.high,
			...(known ? {} : { quotaLow: q.videoEstimate.low }),
			multiplier: m,
			quantity: { video_tokens_estimate: q.videoEstimate.tokens },
			note: `about: ${q.videoEstimate.how} (an estimate, not a bound: the gateway reserves its own estimate at submission and settles to actual usage on completion; Task Wait gives the settled fee), ${atWhat(m)}`,
		};
	// a quote counting a request the item may not send (a JSON Schema answer's repair) is a bound: "at most"
	const mayRequest = q.requests > 1 && !q.sent;
	if (q.perCall)
		return {
			status: mayRequest ? 'estimate' : known ? 'expected' : 'range',
			...(mayRequest ? { bound: true } : {}),
			basis: q.basis,
			quota: q.perCall.high,
			...(known ? {} : { quotaLow: q.perCall.low }),
			multiplier: m,
			quantity: { calls: q.calls },
			note: mayRequest
				? `at most: ${q.calls} call(s) × model_price (the request and its one repair request, sent only if the first answer does not fit the schema), ${atWhat(m)}`
				: `${q.calls} call(s) × model_price, ${atWhat(m)}`,
		};
	const why =
		q.basis === 'per_token' && q.tokenRatios
			? 'billed per token, and the answer carries no usage: the cost is not known (it is not free)'
			: `${q.unpricedWhy ?? 'no price'} (it is not free)`;
	return { status: 'unknown', basis: q.basis, multiplier: m, quantity: {}, note: why };
}

/** A per-token answer's cost from its usage: exact at a known multiplier, a range at an unknown one. */
function usageCost(
	q: Quote,
	ratios: TokenRatios,
	usage: TokenCount,
	lowRatio: number,
	highRatio: number,
): CostFigure {
	const m = q.multiplier;
	const known = m.ratio !== undefined;
	const high = tokenQuota(usage, ratios, highRatio);
	const low = known ? high : tokenQuota(usage, ratios, lowRatio);
	const partial = high.plainAs.length
		? `; ${high.plainAs.join(', ')} counted as plain prompt tokens`
		: '';
	return {
		status: !known ? 'range' : partial ? 'estimate' : 'expected',
		basis: 'per_token',
		quota: high.quota,
		...(known ? {} : { quotaLow: low.quota }),
		multiplier: m,
		quantity: {
			prompt_tokens: usage.prompt,
			completion_tokens: usage.completion,
			...(usage.cached ? { cached_tokens: usage.cached } : {}),
			...(usage.cacheWrite ? { cache_write_tokens: usage.cacheWrite } : {}),
			...(usage.image ? { image_tokens: usage.image } : {}),
			...(usage.audio ? { audio_tokens: usage.audio } : {}),
			...(usage.audioOut ? { audio_output_tokens: usage.audioOut } : {}),
			...(usage.reasoning ? { reasoning_tokens: usage.reasoning } : {}),
		},
		note: `tokens × their ratios × model ratio ${ratios.model} (completion × ${ratios.completion}), ${atWhat(m)}${partial}`,
	};
}

/** An estimate that is not a bound (a delta video's): its words say "estimate", never "at most". */
export const estimateOnly = (f: { status: CostStatus; bound?: boolean }) =>
	f.status === 'estimate' && !f.bound;

/** What the cap counts for a call before it is sent: its exact price or upper bound; undefined: no figure before the call. */
export function capBound(q: Quote): number | undefined {
	// a video's estimate is no bound: the cap counts it as a call with no price before it is sent
	return q.basis === 'per_video_token' ? undefined : costOf(q).quota;
}

/** "alpha-image-2.5: $0.032 (¤16000) per item" for the cap's message. */
export function quoteText(q: Quote, display: DisplaySettings | undefined): string {
	const f = costOf(q);
	const text = figureText(f, display);
	if (!text) return `${q.model}: no price before the call (${q.unpricedWhy ?? f.note})`;
	return `${q.model}: ${text}${f.status === 'range' ? ' (range: multiplier not known; the cap counts the highest)' : f.status === 'estimate' ? (f.bound ? ' at most' : ' (an estimate, not a bound)') : ''} per item`;
}
