/**
 * Token counts, pure: an answer's usage read by kind, and what a per-token call costs in whole ¤ — Σ tokens of each
 * kind × its ratio × model_ratio × group multiplier (plain prompt tokens × 1, cached × cache_ratio, cache writes ×
 * create_cache_ratio, image × image_ratio, audio × audio_ratio, completion (reasoning included) × completion_ratio,
 * audio output × audio_ratio × audio_completion_ratio; a kind the usage reports but the price list gives no ratio for
 * is counted as plain tokens, and said), or at most under a bound given before the call.
 */
import { roundedSumOfProducts } from './decimal';

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
