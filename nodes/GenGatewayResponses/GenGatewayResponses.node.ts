import { NodeConnectionTypes, type IExecuteFunctions, type INodeExecutionData, type INodeType, type INodeTypeDescription } from 'n8n-workflow';
import { createTransport, credentialTest } from '../shared/credentials';
import { modelSearch } from '../shared/models';
import { runPaidBatch } from '../shared/pipeline/batch';
import { streamProperty, textOptionsProperty, transportTimeout } from '../shared/text/description';
import { textBatch } from '../shared/text/batch';
import { RESERVED_FIELDS, mergeExtra, responsesBodySchema } from '../shared/text/schemas';
import { modelLocator, readModel, SUBTITLE_MODEL } from '../shared/ui';
import { parseOrThrow } from '../shared/validate';

export class GenGatewayResponses implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'GenGateway Responses',
		name: 'genGatewayResponses',
		icon: { light: 'file:../../icons/responses.svg', dark: 'file:../../icons/responses.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle: `={{"responses: " + ${SUBTITLE_MODEL}}}`,
		description: 'Asks a language model of your gateway account through the Responses API and returns its answer',
		defaults: { name: 'GenGateway Responses' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'genGatewayApi', required: true, testedBy: 'genGatewayApiTest' }],
		properties: [
			modelLocator('searchLanguageModels', 'alpha-chat-4o'),
			{
				displayName: 'Input',
				name: 'input',
				type: 'string',
				typeOptions: { rows: 4 },
				default: '',
				placeholder: 'e.g. Write a product description for {{ $json.name }}',
				required: true,
				description: 'The text input. For structured input items, use an expression that returns an array.',
			},
			streamProperty(),
			textOptionsProperty('model, input or stream'),
		],
	};

	methods = { listSearch: { searchLanguageModels: modelSearch('language') }, credentialTest };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const transport = await createTransport(this, { text: transportTimeout(this) });
		return runPaidBatch(
			this,
			transport,
			textBatch(this, transport, 'responses', (i, extraBody) => {
				const model = readModel(this, i);
				const body = mergeExtra({ model, input: this.getNodeParameter('input', i, ''), stream: this.getNodeParameter('stream', i, false) }, extraBody, 'Extra Body Fields', RESERVED_FIELDS.responses);
				return { body: parseOrThrow(responsesBodySchema, body), model };
			}),
			{ maxConcurrency: 1, refusalWindowMs: transport.timeouts.submit },
		);
	}
}
