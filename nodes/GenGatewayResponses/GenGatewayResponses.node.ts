import { NodeConnectionTypes, type IExecuteFunctions, type INodeExecutionData, type INodeType, type INodeTypeDescription } from 'n8n-workflow';
import { createTransport } from '../shared/credentials';
import { InputRuleError } from '../shared/errors';
import { modelSearch } from '../shared/models';
import { forEachItem } from '../shared/router';
import { mergeExtra, responsesBodySchema } from '../shared/text/schemas';
import { sendText, textItem } from '../shared/text/run';
import { DEFAULT_TIMEOUTS } from '../shared/transport/timeouts';
import { modelLocator, readModel } from '../shared/ui';
import { parseOrThrow } from '../shared/validate';

export class GenGatewayResponses implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'GenGateway Responses',
		name: 'genGatewayResponses',
		icon: { light: 'file:../../icons/responses.svg', dark: 'file:../../icons/responses.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle: '={{"responses: " + ($parameter["model"].value || $parameter["model"])}}',
		description: 'The Responses API through the gateway (/v1/responses), plain or streamed',
		defaults: { name: 'GenGateway Responses' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'genGatewayApi', required: true }],
		properties: [
			modelLocator('searchLanguageModels', 'alpha-chat-4o'),
			{
				displayName: 'Input',
				name: 'input',
				type: 'string',
				typeOptions: { rows: 4 },
				default: '',
				required: true,
				description: 'The text input. For structured input items, use an expression that returns an array.',
			},
			{ displayName: 'Stream', name: 'stream', type: 'boolean', default: false, description: 'Whether to stream the answer (forwarded to n8n chat/webhook streaming when the workflow streams)' },
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add Option',
				default: {},
				options: [
					{ displayName: 'Extra Body Fields (JSON)', name: 'extraBody', type: 'json', default: '{}', description: 'Fields the spec does not list (temperature, max_tokens, …). They never override model, input or stream.' },
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
				const input = this.getNodeParameter('input', i) as unknown;
				let body: Record<string, unknown>;
				try {
					body = mergeExtra({ model: readModel(this, i), input, stream: this.getNodeParameter('stream', i) as boolean }, options.extraBody, 'Extra Body Fields');
				} catch (err) {
					if (err instanceof InputRuleError) throw err;
					throw new InputRuleError([{ field: 'Extra Body Fields', rule: 'must be a JSON object' }]);
				}
				const valid = parseOrThrow(responsesBodySchema, body);
				const outcome = await sendText(this, transport, 'responses', valid, i, options.idleTimeoutMs ?? DEFAULT_TIMEOUTS.streamIdle);
				return { json: textItem(outcome, options.simplify !== false) };
			}),
		];
	}
}
