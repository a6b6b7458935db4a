/**
 * The money options every paid node and the Chat Model share (in their Options collection): the spend cap — in the
 * site's display currency (as Pricing shows it), or in ¤ quota units —, whether calls with no price may pass it, and
 * the key's group multiplier (a number, or a group name read from the public ratios). Task Wait shares the group
 * options. Every item's options are checked before anything is sent; a bad value names its item, field and rule.
 */
import type { INodeProperties } from 'n8n-workflow';
import { FLAG_RULE, OPTION_RULES } from '../rules/options';
import { fieldSet } from '../rules/rule';
import { readFields } from '../validate';
import type { DisplaySettings } from './prices';
import type { GroupChoice } from './cost';
import { spendInQuota, SPEND_RULE, type SpendAmount } from './spend';

export type { SpendAmount } from './spend';

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
			description:
				"Your key's group multiplier (Pricing → Get Prices shows the public groups' ratios). " +
				`Added but empty or 0: not known, never taken as 1. ${notAdded}`,
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
				'Whether calls whose cost cannot be known or bounded before they are sent (per-token models without a bound, ' +
				'per-video-token models, dynamic prices, no published group ratio) may pass Max Expected Spend. ' +
				'Off: such a call counts as over the cap.',
		},
		...groupOptions(),
		{
			displayName: 'Max Expected Spend',
			name: 'maxSpend',
			type: 'string',
			default: '1.00',
			placeholder: 'e.g. 1.50',
			description:
				"Refuse before the first paid request when what this execution's GenGateway nodes and Chat Model turns have " +
				"spent plus what these calls can cost is over this amount, in the site's display currency (as Pricing → Get " +
				'Prices shows it; on a default site $1 = ¤500000). Write ¤ for quota units in this same field (¤750000). ' +
				'Read and converted in exact decimals: a cap equal to the price passes. ' +
				"A currency other than the site's display currency (¥0.20 on a USD site) is refused. " +
				'The refusal and the hint show the rate. Not added: no cap.',
		},
		// Deprecated: workflows made before 0.2.0 keep it (shown and read while it holds a value); Add Option no longer
		// offers it, since Max Expected Spend takes ¤ quota units too (¤750000)
		{
			displayName: 'Max Expected Spend (¤ Quota Units)',
			name: 'maxExpectedSpend',
			type: 'number',
			default: 500000,
			typeOptions: { minValue: 0 },
			description:
				'Deprecated: write ¤ quota units in Max Expected Spend instead (e.g. ¤750000). Kept for workflows made before 0.2.0; with both set, the lower one holds.',
			displayOptions: { show: { maxExpectedSpend: [{ _cnd: { exists: true } }] } },
		},
		{
			displayName: 'Quote Only (Send Nothing)',
			name: 'quoteOnly',
			type: 'boolean',
			default: true,
			description:
				'Whether to check every item and output its expected cost (status quoted) without sending anything: ' +
				'put the price in front of a person (e.g. Send and Wait for Response) and run the paid node only once it is approved',
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
					? Math.min(spendInQuota(spend, undefined).cap!, capQuota ?? Infinity)
					: undefined,
		allowUnpriced: checked.allowUnpriced ?? false,
		// added but empty (an expression that gave nothing): the option's default, on; not added: off
		quoteOnly: checked.quoteOnly ?? Object.prototype.hasOwnProperty.call(o, 'quoteOnly'),
		group: groupChoice(o, checked.groupRatio),
	};
}

/**
 * The cap in whole ¤: a display-currency amount at the site's rate, in exact decimals (undefined when that rate cannot
 * be read: the cap then refuses, it is never dropped), ¤ as given; with both fields set, the lower one. `refusal`: the
 * amount names another currency than the site's display currency (the message names both).
 */
export function resolveCap(
	o: MoneyOptions,
	display: DisplaySettings | undefined,
): { cap?: number; unreadable?: boolean; refusal?: string } {
	if (o.spend === undefined) return { cap: o.capQuota };
	const r = spendInQuota(o.spend, display);
	if (r.cap === undefined) return { ...r, unreadable: true };
	return { cap: Math.min(r.cap, o.capQuota ?? Infinity) };
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
