/**
 * A finished delta video's settled fee for Task Wait, by the Pricing node's rules: quota_per_unit and the display
 * currency from `/api/status` (the site's published values; the defaults only when it cannot be read, and then said),
 * the fee formula of the spec rounded to whole ¤ (settleDeltaFee), and the key's multiplier from the Group Multiplier
 * option or the public ratio of the Group Name. Without either the multiplier is unknown: the fee is labelled
 * at_multiplier_1, never settled. The item's `cost` says the same in the shape of the paid nodes' costs.
 */
import type { IDataObject } from 'n8n-workflow';
import { PRICE_HINT_BUDGET_MS, loadDisplay, loadPriceList } from '../pricing';
import { DELTA_VIDEO_UNIT_PRICES, quotaToDisplay, readDisplay, type DisplaySettings } from '../pricing/compute';
import { groupRatioOf, settleDeltaFee } from '../pricing/delta';
import type { GatewayTransport } from '../transport/http';
import type { IExecuteFunctions } from 'n8n-workflow';
import { formatDisplay } from '../pricing/compute';
import { costJson, type CostStatus, type GroupChoice, type Multiplier } from './cost';
import { recordSpend } from './record';
import { exitOf } from '../exit';

export interface SettleInput {
	model?: string;
	withReferenceVideo?: boolean;
	group: GroupChoice;
}

async function displayOf(transport: GatewayTransport): Promise<{ display: DisplaySettings; note?: string }> {
	try {
		return { display: await loadDisplay(transport, { budgetMs: PRICE_HINT_BUDGET_MS }) };
	} catch (err) {
		return { display: readDisplay({}), note: `/api/status could not be read (${(err as Error).message}): its defaults (quota_per_unit 500000, USD) were used` };
	}
}

async function multiplierOf(transport: GatewayTransport, g: GroupChoice): Promise<Multiplier> {
	if (g.ratio !== undefined) return { ratio: g.ratio, source: 'group_multiplier_option', group: null };
	if (g.ratioLeftEmpty || !g.groupName) return { source: null, group: null, unknownWhy: g.ratioLeftEmpty ? 'the Group Multiplier option is empty' : "your key's group multiplier is not given (Group Multiplier or Group Name)" };
	try {
		const ratio = groupRatioOf((await loadPriceList(transport, { budgetMs: PRICE_HINT_BUDGET_MS })).group_ratio, g.groupName);
		return ratio === undefined ? { source: null, group: g.groupName, unknownWhy: `group "${g.groupName}" has no ratio in the public group_ratio` } : { ratio, source: 'group_name', group: g.groupName };
	} catch (err) {
		return { source: null, group: g.groupName, unknownWhy: `the public price list could not be read (${(err as Error).message})` };
	}
}

const COST_STATUS: Record<string, CostStatus> = { settled: 'settled', at_multiplier_1: 'at_multiplier_1' };

/** `fee` (the settlement, as before, plus its display) and `cost` of a completed delta video. Never throws. */
export async function settleVideo(transport: GatewayTransport, raw: unknown, input: SettleInput): Promise<{ fee: IDataObject; cost: IDataObject }> {
	const [{ display, note }, multiplier] = await Promise.all([displayOf(transport), multiplierOf(transport, input.group)]);
	const s = settleDeltaFee(raw, DELTA_VIDEO_UNIT_PRICES, multiplier.ratio, { model: input.model, withReferenceVideo: input.withReferenceVideo, quotaPerUnit: display.quotaPerUnit });
	const unit = quotaToDisplay(0, display);
	const notes = [s.note, multiplier.unknownWhy, note].filter(Boolean).join('; ');
	const fee: IDataObject = {
		...(s as unknown as IDataObject),
		group_ratio_source: multiplier.source ?? 'unknown',
		fee_display: s.fee_quota === null ? null : quotaToDisplay(s.fee_quota, display).amount,
		currency: unit.currency,
		symbol: unit.symbol,
		note: notes,
	};
	const status = COST_STATUS[s.status] ?? 'unknown';
	const cost = costJson(
		{ status, basis: 'per_video_token', quota: status === 'unknown' ? undefined : (s.fee_quota ?? undefined), multiplier, quantity: { video_tokens: s.tokens, with_reference_video: s.with_reference_video }, note: notes },
		display,
	);
	return { fee, cost };
}

/** Task Wait's share of the execution's record: the settled fees of the videos it settled, and its hint. */
export async function recordSettled(ctx: IExecuteFunctions, transport: GatewayTransport, costs: IDataObject[]): Promise<void> {
	if (!costs.length) return;
	const { display } = await displayOf(transport);
	const settled = costs.filter((c) => c.status === 'settled');
	const quota = settled.reduce((n, c) => n + Number(c.quota), 0);
	const r = recordSpend(ctx, quota, costs.length - settled.length, display);
	const money = (q: number) => `${formatDisplay(quotaToDisplay(q, display))} (¤${q})`;
	const others = costs.length - settled.length;
	exitOf(ctx).hint(
			`This node settled ${money(quota)} for ${settled.length} video(s)` +
			(others ? ` plus ${others} whose fee is not settled (multiplier unknown or no trusted usage: see each item's cost)` : '') +
			`; this execution's GenGateway nodes have spent ${money(r.total)} so far.` +
			(r.kept ? '' : ' The execution-wide record could not be kept (n8n keeps at most 10 custom data keys per execution).'),
	);
}
