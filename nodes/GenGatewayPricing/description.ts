/** The Pricing node's description: the node-level parts; each operation's parameters are in its actions/ file. */
import { actionNode } from '../shared/ui';
import { OPERATIONS } from './actions';
import { feeProperties, listNotice } from './actions/common.descriptions';

const operations = Object.values(OPERATIONS);

export const pricingDescription = actionNode({
	displayName: 'GenGateway Pricing',
	name: 'genGatewayPricing',
	description:
		'Shows model prices in your currency, the models your key can call, and what a video costs',
	properties: [
		{
			displayName: 'Operation',
			name: 'operation',
			type: 'options',
			noDataExpression: true,
			options: operations.map((o) => o.option),
			default: 'getPrices',
		},
		listNotice,
		...operations.flatMap((o) => o.properties),
		...feeProperties,
	],
});
