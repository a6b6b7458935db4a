/**
 * What a request costs in quota units: per call, per token, per video token. Exact decimals (./decimal.ts), rounded
 * half-up to whole quota units once, at the end of each fee. The formulas are written out in the README ("Billing").
 */
import { add, mul, roundHalfUp, type Rational } from './decimal';
import { DELTA_VIDEO_PRICES, GROUP_RATIO, type TokenRatios } from './models';

/** 500 000 quota units = 1 USD. */
export const QUOTA_PER_UNIT = 500_000;

/** A group's ratio: a number as it is, a group name from the default table (1 when it has none). */
function ratio(group: string | number): number {
	return typeof group === 'number' ? group : (GROUP_RATIO[group] ?? 1);
}

/** Quota units for one per-call unit (one image, one request): model price × group ratio × quota per unit, half-up. */
export function perCallQuota(
	m: { modelPrice?: number },
	group: string | number,
	quotaPerUnit = QUOTA_PER_UNIT,
): number {
	return roundHalfUp(mul(m.modelPrice ?? 0, ratio(group), quotaPerUnit));
}

/** The tokens of one request by what they are, as the model's `usage` reports them. */
export interface TokenUsage {
	/** every prompt (input) token */
	prompt: number;
	/** of which read from the cache (`prompt_tokens_details.cached_tokens`) */
	cached?: number;
	/** of which written to the cache (`prompt_tokens_details.cached_creation_tokens`) */
	cacheWrite?: number;
	/** of which image tokens (`prompt_tokens_details.image_tokens`) */
	image?: number;
	/** of which audio tokens (`prompt_tokens_details.audio_tokens`) */
	audio?: number;
	/** every completion (output) token, reasoning tokens included */
	completion: number;
	/** of which audio tokens (`completion_tokens_details.audio_tokens`) */
	audioOut?: number;
	/** of which reasoning tokens (`completion_tokens_details.reasoning_tokens`; billed as completion tokens) */
	reasoning?: number;
}

/**
 * The usage weighted by the model's ratios, in prompt-token units (before model ratio and group ratio):
 *   plain prompt + cached × cache_ratio + cache writes × create_cache_ratio + image × image_ratio + audio × audio_ratio
 *   + text completion × completion_ratio + audio completion × audio_ratio × audio_completion_ratio
 * where plain prompt = prompt − cached − cache writes − image − audio and text completion = completion − audio
 * completion. A ratio the price does not carry is 1: that category is billed like plain prompt tokens.
 */
export function weightedTokens(m: TokenRatios, u: TokenUsage): Rational {
	const cached = u.cached ?? 0;
	const cacheWrite = u.cacheWrite ?? 0;
	const image = u.image ?? 0;
	const audio = u.audio ?? 0;
	const audioOut = u.audioOut ?? 0;
	const plain = u.prompt - cached - cacheWrite - image - audio;
	const textOut = u.completion - audioOut;
	if (plain < 0 || textOut < 0) throw new Error(`inconsistent usage: ${JSON.stringify(u)}`);
	return add(
		plain,
		mul(cached, m.cacheRatio ?? 1),
		mul(cacheWrite, m.createCacheRatio ?? 1),
		mul(image, m.imageRatio ?? 1),
		mul(audio, m.audioRatio ?? 1),
		mul(textOut, m.completionRatio ?? 1),
		mul(audioOut, m.audioRatio ?? 1, m.audioCompletionRatio ?? 1),
	);
}

/** Quota units for a token-billed request: weighted tokens × model ratio × group ratio, half-up. */
export function perTokenQuota(m: TokenRatios, group: string | number, usage: TokenUsage): number {
	return roundHalfUp(mul(weightedTokens(m, usage), m.modelRatio ?? 1, ratio(group)));
}

/** Delta-video fee: tokens / 1e6 × unit price (base quota per 1M video tokens, in USD-equivalent) × group ratio × quota per unit, half-up. */
export function videoTokenQuota(
	unitPrice: number,
	tokens: number,
	group: string | number,
	quotaPerUnit = QUOTA_PER_UNIT,
): number {
	return roundHalfUp(mul(tokens, unitPrice, ratio(group), quotaPerUnit, { n: 1n, d: 1_000_000n }));
}

/** Delta-video fee at the default unit prices of the spec's table. */
export function deltaVideoQuota(
	model: string,
	tokens: number,
	withRefVideo: boolean,
	group: string | number,
	quotaPerUnit = QUOTA_PER_UNIT,
): number {
	const p = DELTA_VIDEO_PRICES[model];
	return videoTokenQuota(withRefVideo ? p.withRefVideo : p.noRefVideo, tokens, group, quotaPerUnit);
}

/**
 * Tokens an input image counts as (OpenAI's published rule for high detail): fitted within 2048 × 2048, then its
 * shorter side scaled down to 768, counted in 512-pixel tiles: 85 + 170 per tile.
 */
export function imageInputTokens(width: number, height: number): number {
	let w = width;
	let h = height;
	const fit = Math.min(1, 2048 / Math.max(w, h));
	w *= fit;
	h *= fit;
	const shorter = Math.min(w, h);
	if (shorter > 768) {
		w *= 768 / shorter;
		h *= 768 / shorter;
	}
	return 85 + 170 * Math.ceil(w / 512) * Math.ceil(h / 512);
}
