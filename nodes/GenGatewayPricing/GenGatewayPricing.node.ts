import { runNode } from '../shared/exit';
import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { plainMethods } from '../shared/methods';
import { runPricing } from './actions';
import { pricingDescription } from './description';
import { docsUrl } from '../shared/ui';

export class GenGatewayPricing implements INodeType {
	description: INodeTypeDescription = {
		...pricingDescription,
		icon: { light: 'file:../../icons/pricing.svg', dark: 'file:../../icons/pricing.dark.svg' },
		documentationUrl: docsUrl('gengateway-pricing'),
		subtitle:
			'={{ $parameter["operation"] === "getPrices" ? "Get Prices" : ' +
			'$parameter["operation"] === "listModels" ? "List My Models" : ' +
			'$parameter["operation"] === "estimateVideoCost" ? "Estimate Video Cost: " + ' +
			'$parameter["videoModel"] : "Settle Task" }}',
		usableAsTool: true,
		credentials: [{ name: 'genGatewayApi', required: true, testedBy: 'genGatewayApiTest' }],
	};

	methods = plainMethods;

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return runNode(
			this,
			() => runPricing(this),
			() => this.continueOnFail(),
		);
	}
}
