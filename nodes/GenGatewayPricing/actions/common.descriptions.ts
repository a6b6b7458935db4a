/** The Pricing parameters that two operations share (written once, shown under both). */
import type { INodeProperties } from 'n8n-workflow';
import { optionsCollection } from '../../shared/ui';

/** Get Prices and List My Models: one list per run. */
export const listNotice: INodeProperties = {
	displayName:
		'Get Prices and List My Models return one list per run (paired with the first ' +
		'input item). Prices are the lowest of the publicly selectable groups; your ' +
		"key's group may cost more.",
	name: 'listNotice',
	type: 'notice',
	default: '',
	displayOptions: { show: { operation: ['getPrices', 'listModels'] } },
};

const FEE_OPS = ['estimateVideoCost', 'settleTask'];

/** Estimate Video Cost and Settle Task: the key's group multiplier, given or looked up by group name. */
export const feeProperties: INodeProperties[] = [
	{
		displayName: 'Group Multiplier',
		name: 'groupRatio',
		type: 'number',
		default: 0,
		typeOptions: { minValue: 0, numberPrecision: 4 },
		description:
			"Your key's group multiplier (the ratio of the group the key was created in; " +
			"Get Prices shows the public groups' ratios). 0 = not known: the fee is then " +
			'given at multiplier 1 and labelled at_multiplier_1, never as settled.',
		displayOptions: { show: { operation: FEE_OPS } },
	},
	optionsCollection(
		[
			{
				displayName: 'Group Name',
				name: 'groupName',
				type: 'string',
				default: '',
				placeholder: 'e.g. default',
				description:
					"Look the multiplier up by your key's group name in the public group_ratio instead (a group without a ratio is refused, never taken as 0)",
			},
		],
		{ displayOptions: { show: { operation: FEE_OPS } } },
	),
];
