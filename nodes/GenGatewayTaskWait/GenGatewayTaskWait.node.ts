import { runNode } from '../shared/exit';
import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { plainMethods } from '../shared/methods';
import { waitForTasks } from './actions/wait';
import { taskWaitDescription } from './description';
import { docsUrl } from '../shared/ui';

export class GenGatewayTaskWait implements INodeType {
	description: INodeTypeDescription = {
		...taskWaitDescription,
		icon: { light: 'file:../../icons/taskWait.svg', dark: 'file:../../icons/taskWait.dark.svg' },
		documentationUrl: docsUrl('gengateway-task-wait'),
		subtitle:
			'={{"wait for " + ($parameter["taskKind"] === "auto" ? "tasks" : $parameter["taskKind"] + " tasks")}}',
		usableAsTool: true,
		credentials: [{ name: 'genGatewayApi', required: true, testedBy: 'genGatewayApiTest' }],
	};

	methods = plainMethods;

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return runNode(
			this,
			() => waitForTasks(this),
			() => this.continueOnFail(),
		);
	}
}
