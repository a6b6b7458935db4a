/** Output rows of the Pricing node (pure): one flat object per model, the same keys on every row (CSV-friendly). */
import {
	formatDisplay,
	toDisplay,
	type DisplaySettings,
	type ModelPrice,
} from '../../shared/money/prices';
import { roundedProduct } from '../../shared/money/decimal';

export interface PriceRow {
	model: string;
	/** 'per call' | 'per token' | 'per video token' */
	billing: string;
	dynamic_pricing: boolean;
	/** false when no number is shown (dynamic, no public group, the entry lacks its price) */
	priced: boolean;
	/** the publicly selectable group the lowest price comes from */
	group: string | null;
	group_name: string | null;
	group_ratio: number | null;
	/** USD, CNY, quota (raw ¤ units) or custom */
	currency: string;
	symbol: string;
	price_per_call: number | null;
	input_per_1m_tokens: number | null;
	output_per_1m_tokens: number | null;
	video_per_1m_tokens: number | null;
	video_with_reference_per_1m_tokens: number | null;
	/** e.g. "$0.03 / call (¤16000)", "¥36.50 / 1M input tokens, ¥146.00 / 1M output tokens" */
	price_text: string;
	/** public groups enabling the model that have no ratio in group_ratio: skipped, never treated as 0 */
	skipped_groups: string[];
	note: string | null;
	[k: string]: string | number | boolean | null | string[];
}

const BILLING_LABEL = {
	per_call: 'per call',
	per_token: 'per token',
	per_video_token: 'per video token',
} as const;

export function priceRow(
	p: ModelPrice,
	display: DisplaySettings,
	usableGroups: Record<string, string> = {},
): PriceRow {
	const show = (usd: number | undefined) =>
		usd === undefined ? undefined : toDisplay(usd, display);
	const perCall = show(p.perCallUsd);
	const input = show(p.inputPer1MUsd);
	const output = show(p.outputPer1MUsd);
	const video = show(p.videoPer1MUsd);
	const videoRef = show(p.videoWithReferencePer1MUsd);
	const unit = toDisplay(0, display);
	let text = '';
	// a call is charged whole ¤: the exact charge beside the amount as the currency shows it
	const callQuota =
		p.perCallUsd !== undefined && display.type !== 'TOKENS'
			? ` (¤${roundedProduct([p.perCallUsd, display.quotaPerUnit])})`
			: '';
	if (perCall) text = `${formatDisplay(perCall)} / call${callQuota}`;
	else if (input && output)
		text = `${formatDisplay(input)} / 1M input tokens, ${formatDisplay(output)} / 1M output tokens`;
	else if (video && videoRef)
		text = `${formatDisplay(video)} / 1M video tokens (${formatDisplay(videoRef)} with a reference video)`;
	else text = p.dynamic ? 'dynamic pricing' : 'no public price';
	const notes: string[] = [];
	if (p.unpricedReason) notes.push(p.unpricedReason);
	if (p.skippedGroups.length)
		notes.push(
			`group(s) ${p.skippedGroups.join(', ')} have no ratio in group_ratio and were skipped (never treated as 0)`,
		);
	return {
		model: p.model,
		billing: BILLING_LABEL[p.billing],
		dynamic_pricing: p.dynamic,
		priced: !!(perCall || input || video),
		group: p.group ?? null,
		group_name: p.group ? (usableGroups[p.group] ?? p.group) : null,
		group_ratio: p.groupRatio ?? null,
		currency: unit.currency,
		symbol: unit.symbol,
		price_per_call: perCall?.amount ?? null,
		input_per_1m_tokens: input?.amount ?? null,
		output_per_1m_tokens: output?.amount ?? null,
		video_per_1m_tokens: video?.amount ?? null,
		video_with_reference_per_1m_tokens: videoRef?.amount ?? null,
		price_text: text,
		skipped_groups: [...p.skippedGroups],
		note: notes.length ? notes.join('; ') : null,
	};
}
