import { runNode } from '../shared/exit';
import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { plainMethods } from '../shared/methods';
import { downloadResults } from './actions/download';
import { downloadResultDescription } from './description';
import { docsUrl } from '../shared/ui';

export class GenGatewayDownloadResult implements INodeType {
	description: INodeTypeDescription = {
		...downloadResultDescription,
		icon: {
			light: 'file:../../icons/downloadResult.svg',
			dark: 'file:../../icons/downloadResult.dark.svg',
		},
		documentationUrl: docsUrl('gengateway-download-result'),
		subtitle:
			'={{ {"imageTask": "download the item\'s result", "videoTask": "download by task ID", "url": "download URL"}[$parameter["source"]] }}',
		usableAsTool: true,
		credentials: [{ name: 'genGatewayApi', required: true, testedBy: 'genGatewayApiTest' }],
	};

	methods = plainMethods;

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return runNode(
			this,
			() => downloadResults(this),
			() => this.continueOnFail(),
		);
	}
}
