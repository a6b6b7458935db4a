import { NodeConnectionTypes, type IExecuteFunctions, type INodeExecutionData, type INodeType, type INodeTypeDescription } from 'n8n-workflow';
import { createTransport, credentialTest } from '../shared/credentials';
import { modelSearch } from '../shared/models';
import { runPaidBatch } from '../shared/pipeline/batch';
import { streamProperty, textOptionsProperty, transportTimeout } from '../shared/text/description';
import { textBatch } from '../shared/text/batch';
import { RESERVED_FIELDS, chatBodySchema, mergeExtra, messagesFromJson } from '../shared/text/schemas';
import { modelLocator, readModel, SUBTITLE_MODEL } from '../shared/ui';
import { parseOrThrow } from '../shared/validate';

export class GenGatewayChat implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'GenGateway Chat',
		name: 'genGatewayChat',
		icon: { light: 'file:../../icons/chat.svg', dark: 'file:../../icons/chat.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle: `={{"chat: " + ${SUBTITLE_MODEL}}}`,
		description: 'Sends messages to a language model of your gateway account and returns its answer',
		defaults: { name: 'GenGateway Chat' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'genGatewayApi', required: true, testedBy: 'genGatewayApiTest' }],
		properties: [
			modelLocator('searchLanguageModels', 'alpha-chat-4o'),
			{
				displayName: 'Messages From',
				name: 'messagesFrom',
				type: 'options',
				options: [
					{ name: 'List Below', value: 'ui', description: 'System, user and assistant messages entered here' },
					{ name: 'JSON Array', value: 'json', description: 'An array of {role, content} messages, e.g. from an expression' },
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
							{ displayName: 'Content', name: 'content', type: 'string', typeOptions: { rows: 3 }, default: '', placeholder: 'e.g. Summarise this ticket in two sentences: {{ $json.text }}' },
						],
					},
				],
			},
			{
				displayName: 'Messages JSON',
				name: 'messagesJson',
				type: 'json',
				default: '[{"role":"user","content":"Hello"}]',
				description: 'An array of {role, content} messages (roles: system, user, assistant, tool, developer), e.g. <code>{{ $json.messages }}</code>',
				displayOptions: { show: { messagesFrom: ['json'] } },
			},
			streamProperty(),
			textOptionsProperty('model, messages or stream'),
		],
	};

	methods = { listSearch: { searchLanguageModels: modelSearch('language') }, credentialTest };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const transport = await createTransport(this, { text: transportTimeout(this) });
		return runPaidBatch(
			this,
			transport,
			textBatch(this, transport, 'chat', (i, extraBody) => {
				const messages =
					this.getNodeParameter('messagesFrom', i, 'ui') === 'json'
						? messagesFromJson(this.getNodeParameter('messagesJson', i), 'Messages JSON')
						: ((this.getNodeParameter('messages', i, {}) as { values?: unknown[] }).values ?? []);
				const model = readModel(this, i);
				const body = mergeExtra({ model, messages, stream: this.getNodeParameter('stream', i, false) }, extraBody, 'Extra Body Fields', RESERVED_FIELDS.chat);
				return { body: parseOrThrow(chatBodySchema, body), model };
			}),
			{ maxConcurrency: 1, refusalWindowMs: transport.timeouts.submit },
		);
	}
}
