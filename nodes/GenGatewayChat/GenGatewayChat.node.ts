import { runNode } from '../shared/exit';
import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { languageModelMethods } from '../shared/methods';
import { SUBTITLE_MODEL, docsUrl } from '../shared/ui';
import { sendChat } from './actions/chat';
import { chatDescription } from './description';

export class GenGatewayChat implements INodeType {
	description: INodeTypeDescription = {
		...chatDescription,
		icon: { light: 'file:../../icons/chat.svg', dark: 'file:../../icons/chat.dark.svg' },
		documentationUrl: docsUrl('gengateway-chat'),
		subtitle: `={{"chat: " + ${SUBTITLE_MODEL}}}`,
		usableAsTool: true,
		credentials: [{ name: 'genGatewayApi', required: true, testedBy: 'genGatewayApiTest' }],
	};

	methods = languageModelMethods;

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return runNode(
			this,
			() => sendChat(this),
			() => this.continueOnFail(),
		);
	}
}
