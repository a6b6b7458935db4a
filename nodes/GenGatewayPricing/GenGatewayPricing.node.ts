import type { IExecuteFunctions, INodeExecutionData, INodeType } from 'n8n-workflow';
import { credentialTest } from '../shared/credentials';
import { runPricing } from './actions';
import { pricingDescription } from './description';

export class GenGatewayPricing implements INodeType {
	description = pricingDescription;

	methods = { credentialTest };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return runPricing(this);
	}
}
