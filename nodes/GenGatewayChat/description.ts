import { streamProperty, textOptionsProperty } from '../shared/text/description';
import { imageOptions } from '../shared/text/images';
import { responseFormatOptions } from '../shared/text/jsonSchema';
import { actionNode, languageModelLocator } from '../shared/ui';
import { GATEWAY_OBJECT_SINCE } from '../shared/items/vocabulary';

const responseFormat = responseFormatOptions('the item fails saying why');

export const chatDescription = actionNode({
	displayName: 'GenGateway Chat',
	name: 'genGatewayChat',
	// 1.1: Response Format is one option whose schema field shows when JSON Schema is picked; 1 keeps the four options
	// 1.2: the gateway's words in one object, `gateway: { status }`; 1 and 1.1 keep gateway_status
	version: [1, 1.1, GATEWAY_OBJECT_SINCE.genGatewayChat],
	defaultVersion: GATEWAY_OBJECT_SINCE.genGatewayChat,
	description: 'Sends messages to a language model of your gateway account and returns its answer',
	properties: [
		languageModelLocator(),
		{
			displayName: 'Messages From',
			name: 'messagesFrom',
			type: 'options',
			options: [
				{
					name: 'List Below',
					value: 'ui',
					description: 'System, user and assistant messages entered here',
				},
				{
					name: 'JSON Array',
					value: 'json',
					description: 'An array of {role, content} messages, e.g. from an expression',
				},
			],
			default: 'ui',
		},
		{
			displayName: 'Messages',
			name: 'messages',
			type: 'fixedCollection',
			typeOptions: { multipleValues: true, sortable: true },
			placeholder: 'Add Message',
			default: { values: [{ role: 'user', content: '' }] },
			displayOptions: { show: { messagesFrom: ['ui'] } },
			options: [
				{
					displayName: 'Message',
					name: 'values',
					values: [
						{
							displayName: 'Role',
							name: 'role',
							type: 'options',
							options: [
								{ name: 'System', value: 'system' },
								{ name: 'User', value: 'user' },
								{ name: 'Assistant', value: 'assistant' },
							],
							default: 'user',
						},
						{
							displayName: 'Content',
							name: 'content',
							type: 'string',
							typeOptions: { rows: 3 },
							default: '',
							placeholder: 'e.g. Summarise this ticket in two sentences: {{ $json.text }}',
						},
					],
				},
			],
		},
		{
			displayName: 'Messages JSON',
			name: 'messagesJson',
			type: 'json',
			default: '[{"role":"user","content":"Hello"}]',
			description:
				'An array of {role, content} messages (roles: system, user, assistant, tool, developer), e.g. <code>{{ $json.messages }}</code>',
			displayOptions: { show: { messagesFrom: ['json'] } },
		},
		streamProperty(),
		textOptionsProperty(
			'model, messages or stream (nor response_format with a Response Format other than Text)',
			[...imageOptions(), responseFormat.format, ...Object.values(responseFormat.v1)],
		),
	],
});
