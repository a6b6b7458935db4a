import { runNode } from '../shared/exit';
import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { imageModelMethods } from '../shared/methods';
import { SUBTITLE_MODEL, docsUrl } from '../shared/ui';
import { submitImages } from './actions';
import { imageSubmitDescription } from './description';

export class GenGatewayImageSubmit implements INodeType {
	description: INodeTypeDescription = {
		...imageSubmitDescription,
		icon: {
			light: 'file:../../icons/imageSubmit.svg',
			dark: 'file:../../icons/imageSubmit.dark.svg',
		},
		documentationUrl: docsUrl('gengateway-image-submit'),
		subtitle: `={{$parameter["operation"] + " (" + $parameter["mode"] + "): " + ${SUBTITLE_MODEL}}}`,
		usableAsTool: true,
		credentials: [{ name: 'genGatewayApi', required: true, testedBy: 'genGatewayApiTest' }],
	};

	methods = imageModelMethods;

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return runNode(
			this,
			() => submitImages(this),
			() => this.continueOnFail(),
		);
	}
}
