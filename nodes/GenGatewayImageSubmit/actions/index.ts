/** The Image Submit operations, one file each (option, parameters, reading, rules, endpoint), and the one way to run them. */
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { createTransport } from '../../shared/credentials';
import { runPaidItems } from '../../shared/runners/paid';
import { readConcurrency, usable } from '../../shared/runners/options';
import { imageOperation } from './answer';
import * as edit from './edit.operation';
import * as generate from './generate.operation';
import type { ImageSubmitOperation, ImageSubmitOptions } from './input';

/** The operations by value, in the order of the Operation list. */
export const OPERATIONS: Record<string, ImageSubmitOperation> = { generate, edit };

/** Image Submit: every item checked, then each sent once on the paid pipeline. */
export async function submitImages(ctx: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const name = ctx.getNodeParameter('operation', 0) as string;
	const operation = OPERATIONS[name];
	if (!operation) throw new Error(`unknown operation "${name}"`);
	const o = ctx.getNodeParameter('options', 0, {}) as ImageSubmitOptions;
	const transport = await createTransport(ctx, {
		submit: usable(o.submitTimeoutMs),
		syncImage: usable(o.syncTimeoutMs),
	});
	const asTool = typeof ctx.isToolExecution === 'function' && ctx.isToolExecution();
	return runPaidItems(
		ctx,
		transport,
		imageOperation(ctx, transport, operation, {
			asTool,
			binaryProperty: o.binaryPropertyName || 'data',
		}),
		{
			maxConcurrency: readConcurrency(o.maxConcurrency),
			refusalWindowMs: transport.timeouts.submit,
		},
	);
}
