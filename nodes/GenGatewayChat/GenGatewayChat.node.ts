import { NodeConnectionTypes, type IExecuteFunctions, type INodeExecutionData, type INodeType, type INodeTypeDescription } from 'n8n-workflow';
import { createTransport } from '../shared/credentials';
import { InputRuleError } from '../shared/errors';
import { modelSearch } from '../shared/models';
import { forEachItem } from '../shared/router';
import { chatBodySchema, mergeExtra } from '../shared/text/schemas';
import { sendText, textItem } from '../shared/text/run';
import { DEFAULT_TIMEOUTS } from '../shared/transport/timeouts';
import { modelLocator, readModel } from '../shared/ui';
import { parseOrThrow } from '../shared/validate';

export class GenGatewayChat implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'GenGateway Chat',
		name: 'genGatewayChat',
		icon: { light: 'file:../../icons/chat.svg', dark: 'file:../../icons/chat.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle: '={{"chat: " + ($parameter["model"].value || $parameter["model"])}}',
		description: 'Chat completions through the gateway (/v1/chat/completions), plain or streamed',
		defaults: { name: 'GenGateway Chat' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'genGatewayApi', required: true }],
		properties: [
			modelLocator('searchLanguageModels', 'alpha-chat-4o'),
			{
				displayName: 'Messages From',
				name: 'messagesFrom',
				type: 'options',
				options: [
					{ name: 'List Below', value: 'ui' },
					{ name: 'JSON Array (Expression)', value: 'json' },
				],
				default: 'ui',
			},
			{
				displayName: 'Messages',
				name: 'messages',
				type: 'fixedCollection',
				typeOptions: { multipleValues: true, sortable: true },
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
							{ displayName: 'Content', name: 'content', type: 'string', typeOptions: { rows: 3 }, default: '' },
						],
					},
				],
			},
			{
				displayName: 'Messages JSON',
				name: 'messagesJson',
				type: 'json',
				default: '[{"role":"user","content":"Hello"}]',
				description: 'An array of {role, content} messages, e.g. from an expression',
				displayOptions: { show: { messagesFrom: ['json'] } },
			},
			{ displayName: 'Stream', name: 'stream', type: 'boolean', default: false, description: 'Whether to stream the answer (forwarded to n8n chat/webhook streaming when the workflow streams)' },
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add Option',
				default: {},
				options: [
					{ displayName: 'Extra Body Fields (JSON)', name: 'extraBody', type: 'json', default: '{}', description: 'Fields the spec does not list (temperature, max_tokens, …). They never override model, messages or stream.' },
					{ displayName: 'Simplify Output', name: 'simplify', type: 'boolean', default: true, description: 'Whether to return text, finish reason and usage only instead of the full response' },
					{ displayName: 'Stream Idle Timeout (Ms)', name: 'idleTimeoutMs', type: 'number', default: DEFAULT_TIMEOUTS.streamIdle, description: 'Fail when a stream sends nothing for this long' },
					{ displayName: 'Request Timeout (Ms)', name: 'timeoutMs', type: 'number', default: DEFAULT_TIMEOUTS.text },
				],
			},
		],
	};

	methods = { listSearch: { searchLanguageModels: modelSearch('language') } };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const opts0 = this.getNodeParameter('options', 0, {}) as { timeoutMs?: number };
		const transport = await createTransport(this, { text: opts0.timeoutMs });
		return [
			await forEachItem(this, async (i) => {
				const options = this.getNodeParameter('options', i, {}) as { extraBody?: unknown; simplify?: boolean; idleTimeoutMs?: number };
				const from = this.getNodeParameter('messagesFrom', i) as string;
				let messages: unknown;
				if (from === 'json') {
					messages = this.getNodeParameter('messagesJson', i);
					if (typeof messages === 'string') {
						try {
							messages = JSON.parse(messages);
						} catch {
							throw new InputRuleError([{ field: 'Messages JSON', rule: 'must be a JSON array of {role, content} messages' }]);
						}
					}
				} else {
					messages = ((this.getNodeParameter('messages', i, {}) as { values?: unknown[] }).values ?? []) as unknown;
				}
				let body: Record<string, unknown>;
				try {
					body = mergeExtra({ model: readModel(this, i), messages, stream: this.getNodeParameter('stream', i) as boolean }, options.extraBody, 'Extra Body Fields');
				} catch (err) {
					if (err instanceof InputRuleError) throw err;
					throw new InputRuleError([{ field: 'Extra Body Fields', rule: 'must be a JSON object' }]);
				}
				const valid = parseOrThrow(chatBodySchema, body);
				const outcome = await sendText(this, transport, 'chat', valid, i, options.idleTimeoutMs ?? DEFAULT_TIMEOUTS.streamIdle);
				return { json: textItem(outcome, options.simplify !== false) };
			}),
		];
	}
}
