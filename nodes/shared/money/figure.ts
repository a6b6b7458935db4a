/**
 * The `cost` of a paid call, pure: its figure from its quote (./cost.ts) and, per token, the answer's usage, and the
 * words and JSON the node shows of it, in whole ¤ and in the display currency of `/api/status`.
 *
 * Statuses: `expected` (a figure at a known multiplier), `settled` (a delta video's actual usage at a known
 * multiplier), `range` (the multiplier is not known: lowest to highest; `quota` is the highest), `estimate` (a bound
 * before the answer, or a figure with a part priced as plain tokens), `unknown` (no figure: not free).
 */
import type { IDataObject } from 'n8n-workflow';
import type { CostBasis, CostStatus, Multiplier, Quote } from './cost';
import { formatDisplay, quotaToDisplay, type DisplaySettings } from './prices';
import { tokenBoundQuota, tokenQuota, type TokenCount, type TokenRatios } from './tokens';

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
		return (
			`${m.unknownWhy ?? 'the multiplier is not known'}: from the lowest public group ${m.low?.group} (${m.low?.ratio}) ` +
			`to the highest published group ${m.high.group} (${m.high.ratio}); the cap and the record count the highest`
		);
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
			note:
				`about: ${q.videoEstimate.how} (an estimate, not a bound: the gateway reserves its own estimate at submission ` +
				`and settles to actual usage on completion; Task Wait gives the settled fee), ${atWhat(m)}`,
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

/** one request's part of several: its figure in ¤, or "no figure" */
const partText = (f: CostFigure) =>
	f.quota === undefined
		? 'no figure'
		: f.quotaLow !== undefined && f.quotaLow !== f.quota
			? `¤${f.quotaLow}–¤${f.quota}`
			: `¤${f.quota}`;

/** the statuses from the most to the least certain: several calls together are as certain as the least of them */
const CERTAINTY: CostStatus[] = ['expected', 'settled', 'range', 'estimate', 'unknown'];

/**
 * The figure of several paid requests of one item (a JSON Schema answer and its repair request), each priced on its
 * own as the gateway charges each: the sum when every one has a figure; no figure (not free) when one has none.
 */
export function sumFigures(figures: CostFigure[]): CostFigure {
	if (figures.length === 1) return figures[0];
	const all = figures.every((f) => f.quota !== undefined);
	const status = all
		? CERTAINTY[Math.max(...figures.map((f) => CERTAINTY.indexOf(f.status)))]
		: 'unknown';
	const sum = (of: (f: CostFigure) => number) => figures.reduce((n, f) => n + of(f), 0);
	const quantity: IDataObject = {};
	for (const f of figures)
		for (const [k, v] of Object.entries(f.quantity))
			if (typeof v === 'number') quantity[k] = ((quantity[k] as number | undefined) ?? 0) + v;
	const ranged = figures.some((f) => f.quotaLow !== undefined);
	return {
		status,
		...(status === 'estimate' && figures.every((f) => !estimateOnly(f)) ? { bound: true } : {}),
		basis: figures[0].basis,
		...(all ? { quota: sum((f) => f.quota!) } : {}),
		...(all && ranged ? { quotaLow: sum((f) => f.quotaLow ?? f.quota!) } : {}),
		multiplier: figures[0].multiplier,
		quantity,
		note: figures.map((f, k) => `request ${k + 1}: ${partText(f)} (${f.note})`).join('; '),
	};
}

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
	const word =
		f.status === 'range'
			? ' (range: multiplier not known; the cap counts the highest)'
			: f.status === 'estimate'
				? f.bound
					? ' at most'
					: ' (an estimate, not a bound)'
				: '';
	return `${q.model}: ${text}${word} per item`;
}
