/**
 * The money options every paid node and the Chat Model share (in their Options collection): the spend cap — in the
 * site's display currency (as Pricing shows it), or in ¤ quota units —, whether calls with no price may pass it, and
 * the key's group multiplier (a number, or a group name read from the public ratios). Task Wait shares the group
 * options. Every item's options are checked before anything is sent; a bad value names its item, field and rule.
 */
import type { INodeProperties } from 'n8n-workflow';
import { z } from 'zod';
import { FLAG_RULE, OPTION_RULES } from '../rules/options';
import { fieldSet, shown, type Rule } from '../rules/rule';
import { readFields } from '../validate';
import type { DisplaySettings } from './prices';
import type { GroupChoice } from './cost';

/** A cap in the display currency: a positive amount ("1.50", 2), optionally with its currency's symbol or code. */
const SPEND_SAYS =
	'must be a positive amount in the display currency (e.g. 1.50), or ¤ quota units written with ¤ (e.g. ¤750000)';
export interface SpendAmount {
	amount: number;
	/** `display`: the site's display currency; `quota`: ¤ quota units */
	unit: 'display' | 'quota';
}
const SPEND_RULE: Rule<SpendAmount | undefined> = {
	schema: z.unknown().transform((raw, ctx): SpendAmount | undefined => {
		if (raw === undefined || raw === null || (typeof raw === 'string' && raw.trim() === ''))
			return undefined;
		if (typeof raw === 'number' && Number.isFinite(raw) && raw > 0)
			return { amount: raw, unit: 'display' };
		if (typeof raw === 'string') {
			const m =
				/^\s*(¤|[$¥€£]|usd|cny|rmb)?\s*([0-9]+(?:\.[0-9]+)?)\s*(¤|usd|cny|rmb|quota)?\s*$/i.exec(
					raw,
				);
			const n = m ? Number(m[2]) : NaN;
			if (m && Number.isFinite(n) && n > 0) {
				const quota = m[1] === '¤' || m[3] === '¤' || m[3]?.toLowerCase() === 'quota';
				return { amount: n, unit: quota ? 'quota' : 'display' };
			}
		}
		ctx.addIssue({ code: z.ZodIssueCode.custom, message: `${SPEND_SAYS} (got ${shown(raw)})` });
		return z.NEVER;
	}),
	good: [1.5, '1.50', '$2', '¤750000', '750000 ¤', ''],
	bad: [
		{ value: 0, says: SPEND_SAYS },
		{ value: -1, says: SPEND_SAYS },
		{ value: 'lots', says: SPEND_SAYS },
		{ value: '¤-5', says: SPEND_SAYS },
		{ value: Number.POSITIVE_INFINITY, says: SPEND_SAYS },
	],
};

export const MONEY_OPTION_FIELDS = fieldSet('Spend options', {
	maxSpend: { label: 'Max Expected Spend', rule: SPEND_RULE },
	maxExpectedSpend: { label: 'Max Expected Spend (¤ Quota Units)', rule: OPTION_RULES.quota },
	groupRatio: { label: 'Group Multiplier', rule: OPTION_RULES.multiplierOrZero },
	allowUnpriced: { label: 'Allow Unpriced Models', rule: FLAG_RULE },
	quoteOnly: { label: 'Quote Only (Send Nothing)', rule: FLAG_RULE },
});

const PAID_NOT_ADDED =
	"Not added: Group Name, else your key's group is not known and costs are a range up to the highest published group ratio.";

export function groupOptions(notAdded = PAID_NOT_ADDED): INodeProperties[] {
	return [
		{
			displayName: 'Group Multiplier',
			name: 'groupRatio',
			type: 'number',
			default: 0,
			typeOptions: { minValue: 0, numberPrecision: 4 },
			description: `Your key's group multiplier (Pricing → Get Prices shows the public groups' ratios). Added but empty or 0: not known, never taken as 1. ${notAdded}`,
		},
		{
			displayName: 'Group Name',
			name: 'groupName',
			type: 'string',
			default: '',
			placeholder: 'e.g. default',
			description:
				"Your key's group: its multiplier is read from the public group_ratio (a group without a positive ratio leaves the multiplier unknown, never 0)",
		},
	];
}

export function spendOptions(): INodeProperties[] {
	return [
		{
			displayName: 'Allow Unpriced Models',
			name: 'allowUnpriced',
			type: 'boolean',
			default: false,
			description:
				'Whether calls whose cost cannot be known or bounded before they are sent (per-token models without a bound, per-video-token models, dynamic prices, no published group ratio) may pass Max Expected Spend. Off: such a call counts as over the cap.',
		},
		...groupOptions(),
		{
			displayName: 'Max Expected Spend',
			name: 'maxSpend',
			type: 'string',
			default: '1.00',
			placeholder: 'e.g. 1.50',
			description:
				"Refuse before the first paid request when what this execution's GenGateway nodes and Chat Model turns have spent plus what these calls can cost is over this amount, in the site's display currency (as Pricing → Get Prices shows it; on a default site $1 = ¤500000). Write ¤ for quota units (¤750000). The refusal and the hint show the rate. Not added: no cap.",
		},
		{
			displayName: 'Max Expected Spend (¤ Quota Units)',
			name: 'maxExpectedSpend',
			type: 'number',
			default: 500000,
			typeOptions: { minValue: 0 },
			description:
				'The same cap in ¤ quota units (kept for workflows made before 0.2.0). With both set, the lower one holds.',
		},
		{
			displayName: 'Quote Only (Send Nothing)',
			name: 'quoteOnly',
			type: 'boolean',
			default: false,
			description:
				'Whether to check every item and output its expected cost (status quoted) without sending anything: put the price in front of a person (e.g. Send and Wait for Response) and run the paid node only once it is approved',
		},
	];
}

export interface MoneyOptions {
	/** the cap as the user gave it (resolved to ¤ with the site's display settings) */
	spend?: SpendAmount;
	/** whole ¤ of the ¤ field */
	capQuota?: number;
	/** whole ¤ the cap holds to once resolved (set by `resolveCap`) */
	cap?: number;
	allowUnpriced: boolean;
	/** check and price the item, send nothing */
	quoteOnly?: boolean;
	group: GroupChoice;
}

interface RawMoney {
	maxSpend?: unknown;
	maxExpectedSpend?: unknown;
	allowUnpriced?: unknown;
	quoteOnly?: unknown;
	groupRatio?: unknown;
	groupName?: unknown;
}

/** Reads the money options of one item's Options collection (throws naming the field when a value breaks its rule). */
export function readMoneyOptions(raw: RawMoney | undefined): MoneyOptions {
	const o = raw ?? {};
	const checked = readFields(MONEY_OPTION_FIELDS, {
		maxSpend: o.maxSpend,
		maxExpectedSpend: o.maxExpectedSpend,
		groupRatio: o.groupRatio,
		allowUnpriced: o.allowUnpriced,
		quoteOnly: o.quoteOnly,
	});
	const spend = checked.maxSpend;
	const capQuota = checked.maxExpectedSpend;
	return {
		spend,
		capQuota,
		cap:
			spend === undefined
				? capQuota
				: spend.unit === 'quota'
					? Math.min(spend.amount, capQuota ?? Infinity)
					: undefined,
		allowUnpriced: checked.allowUnpriced ?? false,
		quoteOnly: checked.quoteOnly ?? false,
		group: groupChoice(o, checked.groupRatio),
	};
}

/** ¤ per unit of the display currency. */
export function quotaPerDisplayUnit(d: DisplaySettings): number {
	switch (d.type) {
		case 'TOKENS':
			return 1;
		case 'CNY':
			return d.quotaPerUnit / d.usdExchangeRate;
		case 'CUSTOM':
			return d.quotaPerUnit / d.customRate;
		default:
			return d.quotaPerUnit;
	}
}

/**
 * The cap in whole ¤: a display-currency amount at the site's rate (undefined when that rate cannot be read: the cap
 * then refuses, it is never dropped), ¤ as given; with both fields set, the lower one.
 */
export function resolveCap(
	o: MoneyOptions,
	display: DisplaySettings | undefined,
): { cap?: number; unreadable?: boolean } {
	if (o.spend === undefined) return { cap: o.capQuota };
	if (o.spend.unit === 'quota') return { cap: Math.min(o.spend.amount, o.capQuota ?? Infinity) };
	if (!display) return { unreadable: true };
	const inQuota = Math.floor(o.spend.amount * quotaPerDisplayUnit(display));
	return { cap: Math.min(inQuota, o.capQuota ?? Infinity) };
}

/** `groupRatio` checked: positive → the multiplier; added but empty or 0 → unknown (never 1); not added → the group name, or unknown. */
export function groupChoice(o: RawMoney, ratio: number | undefined): GroupChoice {
	const added = Object.prototype.hasOwnProperty.call(o, 'groupRatio');
	const name =
		typeof o.groupName === 'string' && o.groupName.trim() ? o.groupName.trim() : undefined;
	if (ratio !== undefined && ratio > 0) return { ratio };
	if (added) return { ratioLeftEmpty: true, groupName: name };
	return { groupName: name };
}
