import type { IExecuteFunctions, INodeExecutionData, INodeType } from 'n8n-workflow';
import { createTransport, credentialTest } from '../shared/credentials';
import { runPaidBatch } from '../shared/pipeline/batch';
import { readConcurrency, usable } from '../shared/pipeline/options';
import { videoBatch } from '../shared/video/batch';
import type { VideoCreateOptions } from '../shared/video/create';
import { searchVideoModels } from '../shared/video/models';
import { videoCreateDescription } from './description';

export class GenGatewayVideoCreate implements INodeType {
	description = videoCreateDescription;

	methods = { listSearch: { searchVideoModels }, credentialTest };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const o = this.getNodeParameter('options', 0, {}) as VideoCreateOptions;
		const transport = await createTransport(this, { videoSubmit: usable(o.submitTimeoutMs) });
		return runPaidBatch(this, transport, videoBatch(this, transport), {
			maxConcurrency: readConcurrency(o.maxConcurrency),
			refusalWindowMs: transport.timeouts.videoSubmit,
		});
	}
}
