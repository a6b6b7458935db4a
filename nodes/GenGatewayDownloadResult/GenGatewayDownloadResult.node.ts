import type { IExecuteFunctions, INodeExecutionData, INodeType } from 'n8n-workflow';
import { credentialTest } from '../shared/credentials';
import { downloadResults } from './actions/download';
import { downloadResultDescription } from './description';

export class GenGatewayDownloadResult implements INodeType {
	description = downloadResultDescription;

	methods = { credentialTest };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return downloadResults(this);
	}
}
