import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { createTransport } from '../../shared/credentials';
import { imageOperation } from './answer';
import type { ImageSubmitOptions } from './input';
import { runPaidItems } from '../../shared/runners/paid';
import { readConcurrency, usable } from '../../shared/runners/options';

/** Image Submit (Generate and Edit): every item checked, then each sent once on the paid pipeline. */
export async function submitImages(ctx: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const o = ctx.getNodeParameter('options', 0, {}) as ImageSubmitOptions;
	const transport = await createTransport(ctx, {
		submit: usable(o.submitTimeoutMs),
		syncImage: usable(o.syncTimeoutMs),
	});
	const asTool = typeof ctx.isToolExecution === 'function' && ctx.isToolExecution();
	return runPaidItems(
		ctx,
		transport,
		imageOperation(ctx, transport, { asTool, binaryProperty: o.binaryPropertyName || 'data' }),
		{
			maxConcurrency: readConcurrency(o.maxConcurrency),
			refusalWindowMs: transport.timeouts.submit,
		},
	);
}
