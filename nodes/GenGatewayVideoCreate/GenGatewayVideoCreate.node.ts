import { runNode } from '../shared/exit';
import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { videoModelMethods } from '../shared/methods';
import { SUBTITLE_MODEL, subtitleModelOf, docsUrl } from '../shared/ui';
import { createVideos } from './actions/create';
import { videoCreateDescription } from './description';

export class GenGatewayVideoCreate implements INodeType {
	description: INodeTypeDescription = {
		...videoCreateDescription,
		icon: {
			light: 'file:../../icons/videoCreate.svg',
			dark: 'file:../../icons/videoCreate.dark.svg',
		},
		// version 1.1 keeps a gamma node's model in gammaModel (version 1: in model, for both families)
		documentationUrl: docsUrl('gengateway-video-create'),
		subtitle:
			`={{$parameter["family"] + ": " + ($parameter["family"] === "gamma" && ` +
			`$parameter["gammaModel"] !== undefined ? ${subtitleModelOf('gammaModel')} : ` +
			`${SUBTITLE_MODEL})}}`,
		usableAsTool: true,
		credentials: [{ name: 'genGatewayApi', required: true, testedBy: 'genGatewayApiTest' }],
	};

	methods = videoModelMethods;

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return runNode(
			this,
			() => createVideos(this),
			() => this.continueOnFail(),
		);
	}
}
