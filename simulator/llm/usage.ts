/**
 * What the scripted model reports as its usage, by category (../catalog/billing.ts bills each at its ratio).
 * The counts come from the conversation; the `[llm:usage …]` marker sets any of them, e.g.
 * `[llm:usage prompt_tokens=2000 cached_tokens=1500 audio_tokens=100 completion_tokens=300 reasoning_tokens=120]`.
 */
import type { TokenUsage } from '../catalog/billing';

/** The marker's fields, named as on the wire (`completion_audio_tokens` is `completion_tokens_details.audio_tokens`). */
export const USAGE_FIELDS = [
	'prompt_tokens',
	'completion_tokens',
	'cached_tokens',
	'cached_creation_tokens',
	'image_tokens',
	'audio_tokens',
	'completion_audio_tokens',
	'reasoning_tokens',
] as const;
export type UsageField = (typeof USAGE_FIELDS)[number];

const MARKER = /\[llm:usage((?:\s+[a-z_]+=\d{1,9})*)\s*\]/;

/** The counts an `[llm:usage …]` marker in `text` sets (undefined when there is none). */
export function usageMarker(text: string): Partial<Record<UsageField, number>> | undefined {
	const m = MARKER.exec(text);
	if (!m) return undefined;
	const out: Partial<Record<UsageField, number>> = {};
	for (const [, k, v] of m[1].matchAll(/([a-z_]+)=(\d+)/g))
		if ((USAGE_FIELDS as readonly string[]).includes(k)) out[k as UsageField] = Number(v);
	return out;
}

/**
 * The usage of one answer. `text` are the conversation's text tokens, `image` its image tokens, `answer` the tokens of
 * what was answered (text or tool calls), `reasoning` the thinking model's reasoning tokens. The marker overrides any
 * count; prompt tokens default to text + image + audio, completion tokens to answer + reasoning + audio, and each is
 * raised to at least the sum of its parts.
 */
export function usageOf(
	counts: { text: number; image?: number; answer: number; reasoning?: number },
	marker?: Partial<Record<UsageField, number>>,
): TokenUsage {
	const m = marker ?? {};
	const image = m.image_tokens ?? counts.image ?? 0;
	const audio = m.audio_tokens ?? 0;
	const cached = m.cached_tokens ?? 0;
	const cacheWrite = m.cached_creation_tokens ?? 0;
	const reasoning = m.reasoning_tokens ?? counts.reasoning ?? 0;
	const audioOut = m.completion_audio_tokens ?? 0;
	const prompt = Math.max(
		m.prompt_tokens ?? counts.text + image + audio,
		cached + cacheWrite + image + audio,
	);
	const completion = Math.max(
		m.completion_tokens ?? counts.answer + reasoning + audioOut,
		reasoning + audioOut,
	);
	const u: TokenUsage = { prompt, completion };
	if (cached) u.cached = cached;
	if (cacheWrite) u.cacheWrite = cacheWrite;
	if (image) u.image = image;
	if (audio) u.audio = audio;
	if (audioOut) u.audioOut = audioOut;
	if (reasoning) u.reasoning = reasoning;
	return u;
}

/** True when the usage has a category beyond plain prompt and completion tokens (its details are then reported). */
export function hasDetails(u: TokenUsage): boolean {
	return !!(u.cached || u.cacheWrite || u.image || u.audio || u.audioOut || u.reasoning);
}
