import type { IExecuteFunctions, INodeExecutionData, INodeType } from 'n8n-workflow';
import { createTransport, credentialTest } from '../shared/credentials';
import { imageBatch } from '../shared/images/batch';
import type { ImageSubmitOptions } from '../shared/images/input';
import { modelSearch } from '../shared/models';
import { runPaidBatch } from '../shared/pipeline/batch';
import { readConcurrency, usable } from '../shared/pipeline/options';
import { imageSubmitDescription } from './description';

export class GenGatewayImageSubmit implements INodeType {
	description = imageSubmitDescription;

	methods = { listSearch: { searchImageModels: modelSearch('image') }, credentialTest };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const o = this.getNodeParameter('options', 0, {}) as ImageSubmitOptions;
		const transport = await createTransport(this, { submit: usable(o.submitTimeoutMs), syncImage: usable(o.syncTimeoutMs) });
		const asTool = typeof this.isToolExecution === 'function' && this.isToolExecution();
		return runPaidBatch(this, transport, imageBatch(this, transport, { asTool, binaryProperty: o.binaryPropertyName || 'data' }), {
			maxConcurrency: readConcurrency(o.maxConcurrency),
			refusalWindowMs: transport.timeouts.submit,
		});
	}
}
