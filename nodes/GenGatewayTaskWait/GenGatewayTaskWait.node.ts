import type { IExecuteFunctions, INodeExecutionData, INodeType } from 'n8n-workflow';
import { credentialTest } from '../shared/credentials';
import { waitForTasks } from './actions/wait';
import { taskWaitDescription } from './description';

export class GenGatewayTaskWait implements INodeType {
	description = taskWaitDescription;

	methods = { credentialTest };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return waitForTasks(this);
	}
}
