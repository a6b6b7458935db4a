/**
 * The money options every paid node shares (in its Options collection): the spend cap, whether unpriced models may
 * pass it, and the key's group multiplier (a number, or a group name read from the public ratios). Task Wait shares
 * the group options. Checked before anything is sent; a bad value names its field and rule.
 */
import type { INodeProperties } from 'n8n-workflow';
import { OPTION_RULES } from '../rules/options';
import { fieldSet } from '../rules/rule';
import { readFields } from '../validate';
import type { GroupChoice } from './cost';

export const MONEY_OPTION_FIELDS = fieldSet('Spend options', {
	maxExpectedSpend: { label: 'Max Expected Spend (¤)', rule: OPTION_RULES.quota },
	groupRatio: { label: 'Group Multiplier', rule: OPTION_RULES.multiplierOrZero },
});

const PAID_NOT_ADDED = 'Not added: Group Name, else the lowest publicly selectable group.';

export function groupOptions(notAdded = PAID_NOT_ADDED): INodeProperties[] {
	return [
		{
			displayName: 'Group Multiplier',
			name: 'groupRatio',
			type: 'number',
			default: 0,
			typeOptions: { minValue: 0, numberPrecision: 4 },
			description: `Your key's group multiplier (Pricing → Get Prices shows the public groups' ratios). Added but empty or 0: not known, and costs are then labelled at_multiplier_1, never taken as 1. ${notAdded}`,
		},
		{
			displayName: 'Group Name',
			name: 'groupName',
			type: 'string',
			default: '',
			placeholder: 'e.g. default',
			description: "Your key's group: its multiplier is read from the public group_ratio (a group without a ratio leaves the multiplier unknown, never 0)",
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
				'Whether items whose cost cannot be known before the call (per-token and per-video-token models, dynamic prices, an unknown multiplier) may pass Max Expected Spend. Off: such an item counts as over the cap.',
		},
		...groupOptions(),
		{
			displayName: 'Max Expected Spend (¤)',
			name: 'maxExpectedSpend',
			type: 'number',
			default: 500000,
			typeOptions: { minValue: 0 },
			description:
				"Refuse the whole batch before its first paid request when its expected cost plus what this execution's GenGateway nodes have already spent ($execution.customData gengateway_spent) is over this many ¤ (site quota units; Pricing → Get Prices with display TOKENS shows ¤). Not added: no cap.",
		},
	];
}

export interface MoneyOptions {
	/** whole ¤; undefined: no cap */
	cap?: number;
	allowUnpriced: boolean;
	group: GroupChoice;
}

interface RawMoney {
	maxExpectedSpend?: unknown;
	allowUnpriced?: unknown;
	groupRatio?: unknown;
	groupName?: unknown;
}

/** Reads the money options of one item's Options collection (throws naming the field when a value breaks its rule). */
export function readMoneyOptions(raw: RawMoney | undefined): MoneyOptions {
	const o = raw ?? {};
	const checked = readFields(MONEY_OPTION_FIELDS, { maxExpectedSpend: o.maxExpectedSpend, groupRatio: o.groupRatio });
	return { cap: checked.maxExpectedSpend, allowUnpriced: o.allowUnpriced === true, group: groupChoice(o, checked.groupRatio) };
}

/** `groupRatio` checked: positive → the multiplier; added but empty or 0 → unknown (never 1); not added → the group name or the lowest public group. */
export function groupChoice(o: RawMoney, ratio: number | undefined): GroupChoice {
	const added = Object.prototype.hasOwnProperty.call(o, 'groupRatio');
	const name = typeof o.groupName === 'string' && o.groupName.trim() ? o.groupName.trim() : undefined;
	if (ratio !== undefined && ratio > 0) return { ratio };
	if (added) return { ratioLeftEmpty: true, groupName: name };
	return { groupName: name };
}
