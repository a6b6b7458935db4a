/** The Pricing node's operations: fetch, then the pure functions of this folder. */
import type { IDataObject } from 'n8n-workflow';
import { listModelIds } from '../../shared/models';
import {
	PRICING_ESTIMATE_FIELDS,
	PRICING_FEE_FIELDS,
	PRICING_TASK_FIELDS,
	PRICING_TASK_ID_FIELDS,
} from './fields';
import type { GatewayTransport, OriginKind } from '../../shared/transport';
import {
	DEFAULT_QUOTA_PER_UNIT,
	DELTA_VIDEO_UNIT_PRICES,
	deltaVideoFee,
	lowestPrice,
	quotaToDisplay,
	readDisplay,
	type DisplaySettings,
} from '../../shared/money/prices';
import { groupRatioOf, referenceVideoOf, settleDeltaFee } from '../../shared/money/delta';
import { loadDisplay, loadPriceList, loadPricing } from '../../shared/money/lookup';
import { priceRow } from './rows';
import { checkFields, readFields, refuse } from '../../shared/validate';

export interface OperationResult {
	items: IDataObject[];
	hints: string[];
}

function displayHints(display: DisplaySettings): string[] {
	return (display.notes ?? []).map((n) => `Display currency: ${n}`);
}

/**
 * Get Prices: one row per catalog model, lowest public price in the display currency. No key is sent. A public group
 * without a ratio is the gateway's set-up, the same on every run: the rows it concerns say so (`skipped_groups`,
 * `note`), no execution hint repeats it.
 */
export async function getPrices(
	transport: GatewayTransport,
	filter = '',
): Promise<OperationResult> {
	const { pricing, display } = await loadPricing(transport);
	const f = filter.trim().toLowerCase();
	const items = pricing.data
		.filter((e) => !f || e.model_name.toLowerCase().includes(f))
		.map(
			(e) =>
				priceRow(
					lowestPrice(e, pricing, display.quotaPerUnit),
					display,
					pricing.usable_group,
				) as IDataObject,
		);
	return { items, hints: displayHints(display) };
}

/** List My Models: GET /v1/models with the key (the authority), joined with the public prices. */
export async function listMyModels(
	transport: GatewayTransport,
	includeOthers = true,
): Promise<OperationResult> {
	const ids = await listModelIds(transport);
	const hints: string[] = [];
	let rows = new Map<string, IDataObject>();
	let catalog: string[] | undefined;
	try {
		const { pricing, display } = await loadPricing(transport);
		rows = new Map(
			pricing.data.map((e) => [
				e.model_name,
				priceRow(
					lowestPrice(e, pricing, display.quotaPerUnit),
					display,
					pricing.usable_group,
				) as IDataObject,
			]),
		);
		catalog = pricing.data.map((e) => e.model_name);
		hints.push(...displayHints(display));
	} catch (err) {
		hints.push(
			`The public price list could not be read (${(err as Error).message}): models are listed without prices`,
		);
	}
	const mine = new Set(ids);
	const items: IDataObject[] = ids.map((id) => {
		const row = rows.get(id);
		return {
			model: id,
			callable: true,
			in_catalog: catalog ? !!row : null,
			...(row ?? {}),
			...(catalog && !row
				? { note: 'callable with this key but not in the public price list' }
				: {}),
			model_id: id,
		};
	});
	if (includeOthers && catalog) {
		for (const id of catalog) {
			if (mine.has(id)) continue;
			const row = rows.get(id)!;
			const note = [
				'in the public catalog but not callable with this key (GET /v1/models is the authority)',
				row.note,
			]
				.filter(Boolean)
				.join('; ');
			items.push({ model: id, callable: false, in_catalog: true, ...row, note, model_id: id });
		}
	}
	return { items, hints };
}

export type ReferenceChoice = 'no' | 'yes' | 'detect';

export interface FeeInputs {
	/** the key's group multiplier; 0, empty or absent: not known */
	groupRatio?: unknown;
	/** look the ratio up by group name in the public group_ratio instead */
	groupName?: string;
}

export interface ResolvedRatio {
	/** undefined: not known (fees are then given at multiplier 1 and labelled so) */
	ratio?: number;
	/** parameter, group_ratio.<name>, or unknown */
	source: string;
}

/**
 * The key's group multiplier, when the user told it: the Group Multiplier they entered, or the public group_ratio
 * of the group they named (a named group without a positive ratio is refused, never taken as 0). No endpoint of the
 * spec tells which group a key belongs to, so without either it stays unknown.
 */
export async function resolveGroupRatio(
	transport: GatewayTransport,
	inputs: FeeInputs,
): Promise<ResolvedRatio> {
	const name = inputs.groupName?.trim();
	if (name) {
		const pricing = await loadPriceList(transport);
		const ratio = groupRatioOf(pricing.group_ratio, name);
		if (ratio === undefined) {
			refuse([
				{
					field: 'Group',
					rule: `"${name}" has no usable ratio in the public group_ratio (an unknown multiplier is never treated as 0): enter the Group Multiplier instead`,
				},
			]);
		}
		return { ratio, source: `group_ratio.${name}` };
	}
	const { groupRatio } = readFields(PRICING_FEE_FIELDS, { groupRatio: inputs.groupRatio });
	return groupRatio ? { ratio: groupRatio, source: 'parameter' } : { source: 'unknown' };
}

const UNKNOWN_RATIO_NOTE =
	"your key's group multiplier is not known (set Group Multiplier, or Options → Group Name): this is the fee at multiplier 1, the charge is this × that multiplier";
const LOOKED_UP_NOTE =
	'the ratio is read from the price list now; a task is charged at the price basis of its acceptance';

/** Display settings for a fee; the default site units when /api/status cannot be read (said in the note). */
async function displayForFee(
	transport: GatewayTransport,
): Promise<{ display: DisplaySettings; note?: string }> {
	try {
		return { display: await loadDisplay(transport, { budgetMs: 8_000 }) };
	} catch (err) {
		return {
			display: readDisplay({}),
			note: `/api/status could not be read (${(err as Error).message}): quota_per_unit ${DEFAULT_QUOTA_PER_UNIT} and USD assumed`,
		};
	}
}

function feeDisplay(quota: number | null, display: DisplaySettings): IDataObject {
	const unit = quotaToDisplay(0, display);
	return {
		fee_display: quota === null ? null : quotaToDisplay(quota, display).amount,
		currency: unit.currency,
		symbol: unit.symbol,
	};
}

export interface EstimateInputs extends FeeInputs {
	model: string;
	tokens: unknown;
	reference: ReferenceChoice;
	/** the JSON to detect a reference video in (Video Create output, a delta create body) */
	referenceJson?: unknown;
}

/** Estimate Video Cost: fee = tokens / 1e6 × unit price × group multiplier, in whole quota units. */
export async function estimateVideoCost(
	transport: GatewayTransport,
	inp: EstimateInputs,
): Promise<IDataObject> {
	const checked = checkFields(PRICING_ESTIMATE_FIELDS, {
		videoModel: inp.model,
		tokens: inp.tokens,
		groupRatio: inp.groupRatio,
	});
	const problems = [...checked.violations];
	const tokens = checked.values?.tokens;
	let withRef = inp.reference === 'yes';
	let source = 'option';
	if (inp.reference === 'detect') {
		const found = referenceVideoOf(parseMaybeJson(inp.referenceJson));
		if (!found)
			problems.push({
				field: 'Request or Task JSON',
				rule: 'tells nothing about references: give a Video Create output (with_reference_video / materials) or a delta create body (metadata.content), or choose Yes/No',
			});
		else {
			withRef = found.withReferenceVideo;
			source = found.source;
		}
	}
	if (problems.length) refuse(problems);
	const group = await resolveGroupRatio(transport, inp);
	const { display, note } = await displayForFee(transport);
	const fee = deltaVideoFee(
		inp.model,
		tokens as number,
		withRef,
		group.ratio ?? 1,
		display.quotaPerUnit,
	);
	const known = group.ratio !== undefined;
	return {
		model: inp.model,
		tokens: fee.tokens,
		with_reference_video: withRef,
		reference_video_source: source,
		unit_price: fee.unitPrice,
		group_ratio: group.ratio ?? null,
		group_ratio_source: group.source,
		fee_basis: known ? 'group_multiplier' : 'at_multiplier_1',
		quota_per_unit: display.quotaPerUnit,
		fee_quota: fee.quota,
		fee_base: fee.usd,
		...feeDisplay(fee.quota, display),
		note: [
			`${fee.tokens} video tokens / 1,000,000 × ${fee.unitPrice} (${withRef ? 'with' : 'no'} reference video) × group ratio ${group.ratio ?? 1}, in whole quota units (¤)`,
			known ? undefined : UNKNOWN_RATIO_NOTE,
			group.source.startsWith('group_ratio.') ? LOOKED_UP_NOTE : undefined,
			note,
		]
			.filter(Boolean)
			.join('; '),
	};
}

export interface SettleInputs extends FeeInputs {
	source: 'json' | 'id';
	task?: unknown;
	taskId?: unknown;
	/** where the task was created (Video Create: the credential's Video Base URL when set, else Base URL) */
	origin: OriginKind;
	reference: ReferenceChoice;
}

function parseMaybeJson(v: unknown): unknown {
	if (typeof v !== 'string') return v;
	const t = v.trim();
	if (!t.startsWith('{') && !t.startsWith('[')) return v;
	try {
		return JSON.parse(t);
	} catch {
		return v;
	}
}

/** Settle Task: the fee of a finished delta task from its usage (or "needs manual check", never free). */
export async function settleTask(
	transport: GatewayTransport,
	inp: SettleInputs,
): Promise<IDataObject> {
	let task: unknown;
	let id = '';
	if (inp.source === 'id') {
		id = readFields(PRICING_TASK_ID_FIELDS, { taskId: inp.taskId }).taskId;
	} else {
		task = readFields(PRICING_TASK_FIELDS, { task: inp.task }).task;
	}
	const group = await resolveGroupRatio(transport, inp);
	if (inp.source === 'id')
		task = (await transport.getJson(`/v1/videos/${id}`, { origin: inp.origin, timeout: 'query' }))
			.body;
	const { display, note } = await displayForFee(transport);
	const withReferenceVideo =
		inp.reference === 'yes' ? true : inp.reference === 'no' ? false : undefined;
	const s = settleDeltaFee(task, DELTA_VIDEO_UNIT_PRICES, group.ratio, {
		withReferenceVideo,
		quotaPerUnit: display.quotaPerUnit,
	});
	const looked =
		s.fee_quota && group.source.startsWith('group_ratio.') ? LOOKED_UP_NOTE : undefined;
	return {
		...s,
		group_ratio_source: group.source,
		...feeDisplay(s.fee_quota, display),
		fetched: inp.source === 'id',
		note: [s.note, looked, note].filter(Boolean).join('; '),
	} as unknown as IDataObject;
}
