import { streamProperty, textOptionsProperty } from '../shared/text/description';
import { imageOptions } from '../shared/text/images';
import { actionNode, languageModelLocator } from '../shared/ui';
import { GATEWAY_OBJECT_SINCE } from '../shared/items/vocabulary';

export const responsesDescription = actionNode({
	displayName: 'GenGateway Responses',
	name: 'genGatewayResponses',
	// 1.1: the gateway's words in one object, `gateway: { status, state? }`; 1 keeps gateway_status and gateway_state
	version: [1, GATEWAY_OBJECT_SINCE.genGatewayResponses],
	defaultVersion: GATEWAY_OBJECT_SINCE.genGatewayResponses,
	description:
		'Asks a language model of your gateway account through the Responses API and returns its answer',
	properties: [
		languageModelLocator(),
		{
			displayName: 'Input',
			name: 'input',
			type: 'string',
			typeOptions: { rows: 4 },
			default: '',
			placeholder: 'e.g. Write a product description for {{ $json.name }}',
			required: true,
			description:
				'The text input. For structured input items, use an expression that returns an array.',
		},
		streamProperty(),
		textOptionsProperty('model, input or stream', imageOptions()),
	],
});
