/** The Image Submit node's description: the node-level parts; each operation's own parameters are in its actions/ file. */
import { GATEWAY_OBJECT_SINCE } from '../shared/items/vocabulary';
import { actionNode } from '../shared/ui';
import { OPERATIONS } from './actions';
import { requestProperties, submitOptions } from './actions/common.descriptions';

const operations = Object.values(OPERATIONS);

export const imageSubmitDescription = actionNode({
	displayName: 'GenGateway Image Submit',
	name: 'genGatewayImageSubmit',
	// 1.1: the gateway's words in one object, `gateway: { status, state? }`; 1 keeps gateway_status and gateway_state
	version: [1, GATEWAY_OBJECT_SINCE.genGatewayImageSubmit],
	defaultVersion: GATEWAY_OBJECT_SINCE.genGatewayImageSubmit,
	description:
		'Creates images from a text prompt or edits your images; as an AI tool it waits and returns image URLs, sizes and cost',
	properties: [
		{
			displayName: 'Operation',
			name: 'operation',
			type: 'options',
			noDataExpression: true,
			options: operations.map((o) => o.option),
			default: 'generate',
		},
		...requestProperties,
		...operations.flatMap((o) => o.properties),
		submitOptions,
	],
});
