import { streamProperty, textOptionsProperty } from '../shared/text/description';
import { imageOptions } from '../shared/text/images';
import { actionNode, languageModelLocator } from '../shared/ui';

export const responsesDescription = actionNode({
	displayName: 'GenGateway Responses',
	name: 'genGatewayResponses',
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
