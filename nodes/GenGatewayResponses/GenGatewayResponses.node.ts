import { runNode } from '../shared/exit';
import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { languageModelMethods } from '../shared/methods';
import { SUBTITLE_MODEL, docsUrl } from '../shared/ui';
import { sendResponses } from './actions/responses';
import { responsesDescription } from './description';

export class GenGatewayResponses implements INodeType {
	description: INodeTypeDescription = {
		...responsesDescription,
		icon: { light: 'file:../../icons/responses.svg', dark: 'file:../../icons/responses.dark.svg' },
		documentationUrl: docsUrl('gengateway-responses'),
		subtitle: `={{"responses: " + ${SUBTITLE_MODEL}}}`,
		usableAsTool: true,
		credentials: [{ name: 'genGatewayApi', required: true, testedBy: 'genGatewayApiTest' }],
	};

	methods = languageModelMethods;

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return runNode(
			this,
			() => sendResponses(this),
			() => this.continueOnFail(),
		);
	}
}
