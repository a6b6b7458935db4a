/** What a request costs in quota units: per call, per token, per video token. Exact decimals, rounded half-up once. */
import { add, mul, roundHalfUp } from './decimal';
import { DELTA_VIDEO_PRICES, GROUP_RATIO, type ModelEntry } from './models';

/** 500 000 quota units = 1 USD. */
export const QUOTA_PER_UNIT = 500_000;

/** Quota units charged for one per-call request: model price × group ratio × units per USD, exact and half-up. */
export function perCallQuota(m: ModelEntry, group: string, quotaPerUnit = QUOTA_PER_UNIT): number {
	return roundHalfUp(mul(m.modelPrice ?? 0, GROUP_RATIO[group] ?? 1, quotaPerUnit));
}

/** Quota units for a token-billed request: (prompt + completion × completion ratio) × model ratio × group ratio. */
export function perTokenQuota(m: ModelEntry, group: string, promptTokens: number, completionTokens: number): number {
	const weighted = add(promptTokens, mul(completionTokens, m.completionRatio ?? 1));
	return roundHalfUp(mul(weighted, m.modelRatio ?? 1, GROUP_RATIO[group] ?? 1));
}

/** Delta-video fee in quota units: tokens / 1e6 × unit price × group ratio (unit price in USD-equivalent per 1M tokens, × QUOTA_PER_UNIT), exact and half-up. */
export function deltaVideoQuota(model: string, tokens: number, withRefVideo: boolean, group: string, quotaPerUnit = QUOTA_PER_UNIT): number {
	const p = DELTA_VIDEO_PRICES[model];
	const unit = withRefVideo ? p.withRefVideo : p.noRefVideo;
	return roundHalfUp(mul(tokens, unit, GROUP_RATIO[group] ?? 1, quotaPerUnit, { n: 1n, d: 1_000_000n }));
}
