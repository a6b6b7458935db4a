/** What Estimate Video Cost and Settle Task share: the key's group multiplier, the display of a fee, their notes. */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import {
	DEFAULT_QUOTA_PER_UNIT,
	quotaToDisplay,
	readDisplay,
	type DisplaySettings,
} from '../../shared/money/prices';
import { groupRatioOf } from '../../shared/money/delta';
import { loadDisplay, loadPriceList } from '../../shared/money/lookup';
import type { FreeOperation } from '../../shared/runners/free';
import type { GatewayTransport } from '../../shared/transport';
import { readFields, refuse } from '../../shared/validate';
import { PRICING_FEE_FIELDS } from './fields';

export type ReferenceChoice = 'no' | 'yes' | 'detect';

export interface FeeInputs {
	/** the key's group multiplier; 0, empty or absent: not known */
	groupRatio?: unknown;
	/** look the ratio up by group name in the public group_ratio instead */
	groupName?: string;
}

interface ResolvedRatio {
	/** undefined: not known (fees are then given at multiplier 1 and labelled so) */
	ratio?: number;
	/** parameter, group_ratio.<name>, or unknown */
	source: string;
}

/** The fee parameters of item i: multiplier, group name, reference video choice. */
export function feeInputs(ctx: IExecuteFunctions, i: number) {
	const options = ctx.getNodeParameter('options', i, {}) as { groupName?: string };
	return {
		groupRatio: ctx.getNodeParameter('groupRatio', i, 0) as unknown,
		groupName: options.groupName,
		reference: ctx.getNodeParameter('referenceVideo', i) as ReferenceChoice,
	};
}

/** A fee operation on the free item runner: one output item per input item. */
export function feeOperation<P>(
	check: (i: number) => P,
	run: (p: P) => Promise<IDataObject>,
): FreeOperation<P> {
	return { check, run: async (p) => ({ item: { json: await run(p) } }) };
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
	if (groupRatio) return { ratio: groupRatio, source: 'parameter' };
	// neither given on the node: the credential's Key's Group, when it has one
	const key = transport.keyGroup;
	if (key?.ratio !== undefined) return { ratio: key.ratio, source: 'credential' };
	if (key?.groupName) {
		const ratio = groupRatioOf((await loadPriceList(transport)).group_ratio, key.groupName);
		if (ratio !== undefined && ratio > 0)
			return { ratio, source: `credential group_ratio.${key.groupName}` };
	}
	return { source: 'unknown' };
}

export const UNKNOWN_RATIO_NOTE =
	"your key's group multiplier is not known (set Group Multiplier, or Options → " +
	'Group Name): this is the fee at multiplier 1, the charge is this × that multiplier';
export const LOOKED_UP_NOTE =
	'the ratio is read from the price list now; a task is charged at the price basis of its acceptance';

/** Display settings for a fee; the default site units when /api/status cannot be read (said in the note). */
export async function displayForFee(
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

export function feeDisplay(quota: number | null, display: DisplaySettings): IDataObject {
	const unit = quotaToDisplay(0, display);
	return {
		fee_display: quota === null ? null : quotaToDisplay(quota, display).amount,
		currency: unit.currency,
		symbol: unit.symbol,
	};
}

export function parseMaybeJson(v: unknown): unknown {
	if (typeof v !== 'string') return v;
	const t = v.trim();
	if (!t.startsWith('{') && !t.startsWith('[')) return v;
	try {
		return JSON.parse(t);
	} catch {
		return v;
	}
}
