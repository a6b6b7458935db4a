/**
 * A finished delta video's settled fee for Task Wait, by the Pricing node's rules: quota_per_unit and the display
 * currency from `/api/status` (the site's published values; the defaults only when it cannot be read, and then said),
 * the fee formula of the spec rounded to whole ¤ (settleDeltaFee), and the key's multiplier from the Group Multiplier
 * option or the public ratio of the Group Name. Without either the multiplier is not known: the fee is a range from
 * the lowest public to the highest published group ratio (the record counts the highest), never `settled`. The item's
 * `cost` says the same in the shape of the paid nodes' costs. A task's fee is one entry of the execution's money record,
 * keyed by its task: it replaces the estimate Video Create recorded, and counts once whatever the number of items or
 * nodes that name the task.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { exitOf } from '../exit';
import { PRICE_LOOKUP_MS, loadDisplay, loadPriceList } from './lookup';
import {
	DELTA_VIDEO_UNIT_PRICES,
	quotaToDisplay,
	readDisplay,
	type DisplaySettings,
} from './prices';
import { settleDeltaFee, type DeltaSettlement } from './delta';
import type { GatewayTransport } from '../transport';
import { spendHint } from './cap';
import { resolveMultiplier, withKeyGroup, type GroupChoice, type Multiplier } from './cost';
import { costJson, type CostFigure } from './figure';
import { ExecutionSpend, taskSpendKey, type SpendEntry } from './record';

export interface SettleInput {
	model?: string;
	withReferenceVideo?: boolean;
	group: GroupChoice;
}

async function displayOf(
	transport: GatewayTransport,
): Promise<{ display: DisplaySettings; note?: string }> {
	try {
		return { display: await loadDisplay(transport, { budgetMs: PRICE_LOOKUP_MS }) };
	} catch (err) {
		return {
			display: readDisplay({}),
			note: `/api/status could not be read (${(err as Error).message}): its defaults (quota_per_unit 500000, USD) were used`,
		};
	}
}

async function multiplierOf(
	transport: GatewayTransport,
	node: GroupChoice,
	model: string | undefined,
): Promise<Multiplier> {
	const g = withKeyGroup(node, transport.keyGroup);
	if (g.ratio !== undefined && g.ratio > 0)
		return {
			ratio: g.ratio,
			source: 'group_multiplier_option',
			group: null,
			...(g.fromCredential ? { fromCredential: true } : {}),
		};
	try {
		return resolveMultiplier(
			g,
			await loadPriceList(transport, { budgetMs: PRICE_LOOKUP_MS }),
			model ?? '',
		);
	} catch (err) {
		return {
			source: null,
			group: g.groupName ?? null,
			unknownWhy: `the public price list could not be read (${(err as Error).message})`,
		};
	}
}

export interface Settled {
	fee: IDataObject;
	cost: IDataObject;
	/** the task's entry for the money record */
	entry: SpendEntry;
}

/** A settlement at the multiplier's high end, and at its low end when the multiplier is a range. */
interface Settlements {
	s: DeltaSettlement;
	sLow: DeltaSettlement;
	multiplier: Awaited<ReturnType<typeof multiplierOf>>;
	notes: string;
}

/** The settlement as the item's `fee` shows it: its status (a range at an unknown multiplier), group and display. */
function feeJson(
	{ s, sLow, multiplier, notes }: Settlements,
	display: DisplaySettings,
): IDataObject {
	const high = multiplier.ratio ?? multiplier.high?.ratio;
	const known = multiplier.ratio !== undefined;
	const unit = quotaToDisplay(0, display);
	return {
		...(s as unknown as IDataObject),
		status:
			s.status === 'settled' && !known
				? high === undefined
					? 'needs_manual_check'
					: 'range'
				: s.status,
		group_ratio: multiplier.ratio ?? null,
		group_ratio_source: multiplier.source ?? 'unknown',
		...(known || sLow.fee_quota === null ? {} : { fee_quota_low: sLow.fee_quota }),
		fee_display: s.fee_quota === null ? null : quotaToDisplay(s.fee_quota, display).amount,
		currency: unit.currency,
		symbol: unit.symbol,
		note: notes,
	};
}

/** The settlement as a cost figure: settled, a range, or unknown (no usage, not finished, no price). */
function settledFigure({ s, sLow, multiplier, notes }: Settlements): CostFigure {
	const known = multiplier.ratio !== undefined;
	return {
		status:
			s.status !== 'settled' || s.fee_quota === null ? 'unknown' : known ? 'settled' : 'range',
		basis: 'per_video_token',
		quota: s.status === 'settled' ? (s.fee_quota ?? undefined) : undefined,
		...(!known && s.status === 'settled' && sLow.fee_quota !== null
			? { quotaLow: sLow.fee_quota }
			: {}),
		multiplier,
		quantity: { video_tokens: s.tokens, with_reference_video: s.with_reference_video },
		note: notes,
	};
}

/** `fee` (the settlement, as before, plus its display), `cost`, and the record entry of a completed delta video. Never throws. */
export async function settleVideo(
	transport: GatewayTransport,
	raw: unknown,
	input: SettleInput,
): Promise<Settled> {
	const [{ display, note }, multiplier] = await Promise.all([
		displayOf(transport),
		multiplierOf(transport, input.group, input.model),
	]);
	const opts = {
		model: input.model,
		withReferenceVideo: input.withReferenceVideo,
		quotaPerUnit: display.quotaPerUnit,
	};
	const high = multiplier.ratio ?? multiplier.high?.ratio;
	const low = multiplier.ratio ?? multiplier.low?.ratio;
	const s = settleDeltaFee(raw, DELTA_VIDEO_UNIT_PRICES, high, opts);
	const sLow =
		low !== undefined && low !== high ? settleDeltaFee(raw, DELTA_VIDEO_UNIT_PRICES, low, opts) : s;
	const notes = [s.note, multiplier.unknownWhy, note].filter(Boolean).join('; ');
	const settlements = { s, sLow, multiplier, notes };
	const figure = settledFigure(settlements);
	return {
		fee: feeJson(settlements, display),
		cost: costJson(figure, display),
		entry: {
			quota: figure.quota ?? 0,
			exact: figure.status === 'settled',
			unpriced: figure.quota === undefined,
			label: `video task ${s.task_id ?? ''}`,
		},
	};
}

/** Task Wait's settled fees in the execution's record (one entry per task) and its hint. */
export async function recordSettled(
	ctx: IExecuteFunctions,
	transport: GatewayTransport,
	settled: Map<string, { origin: string; entry: SpendEntry; cost: IDataObject }>,
): Promise<void> {
	if (!settled.size) return;
	const { display } = await displayOf(transport);
	const spend = new ExecutionSpend(ctx);
	const entries: Array<[string, SpendEntry]> = [...settled.entries()].map(([taskId, s]) => {
		const key = taskSpendKey(s.origin, taskId);
		const before = spend.get(key);
		// the spec: "With no trusted usage the reservation is kept and needs a check; it is not free" — a task settled
		// without a figure keeps what the record counted for it at submission (its estimate), never ¤0
		const entry =
			s.entry.unpriced && before && !before.unpriced
				? {
						...before,
						exact: false,
						estimate: true,
						label: `${s.entry.label} (no usage: estimate kept, needs a check)`,
					}
				: s.entry;
		return [key, entry];
	});
	const total = spend.record(entries, display);
	const figures = [...settled.values()].map((s) => ({
		status: s.cost.status,
		quota: typeof s.cost.quota === 'number' ? s.cost.quota : undefined,
		quotaLow: typeof s.cost.quota_low === 'number' ? s.cost.quota_low : undefined,
	})) as CostFigure[];
	const hint = spendHint(
		`This node settled ${settled.size} video(s)`,
		figures,
		total,
		spend,
		display,
	);
	if (hint) exitOf(ctx).hint(hint);
}
