import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { createTransport } from '../../shared/credentials';
import { runPaidItems } from '../../shared/runners/paid';
import { readConcurrency, usable } from '../../shared/runners/options';
import { videoOperation } from './answer';
import type { VideoCreateOptions } from './request';

/** Video Create (delta and gamma): every item checked, then each sent once on the paid pipeline. */
export async function createVideos(ctx: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const o = ctx.getNodeParameter('options', 0, {}) as VideoCreateOptions;
	const transport = await createTransport(ctx, { videoSubmit: usable(o.submitTimeoutMs) });
	return runPaidItems(ctx, transport, videoOperation(ctx, transport), {
		maxConcurrency: readConcurrency(o.maxConcurrency),
		refusalWindowMs: transport.timeouts.videoSubmit,
	});
}
