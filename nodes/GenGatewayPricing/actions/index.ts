import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { createTransport } from '../../shared/credentials';
import { runFreeItems, type FreeOperation } from '../../shared/runners/free';
import type { GatewayTransport } from '../../shared/transport';
import { estimateVideoCostOperation, settleTaskOperation } from './fees';
import { getPricesOperation, listModelsOperation } from './lists';

const OPERATIONS: Record<
	string,
	(ctx: IExecuteFunctions, transport: GatewayTransport) => FreeOperation<unknown>
> = {
	getPrices: getPricesOperation,
	listModels: listModelsOperation,
	estimateVideoCost: estimateVideoCostOperation,
	settleTask: settleTaskOperation,
};

/** Pricing: the chosen operation on the free item runner. */
export async function runPricing(ctx: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const operation = ctx.getNodeParameter('operation', 0) as string;
	const make = OPERATIONS[operation];
	if (!make) throw new Error(`unknown operation "${operation}"`);
	const transport = await createTransport(ctx);
	// a price list or task that could not be read: the answer, not a task of the user's, failed
	return runFreeItems(ctx, transport, { failedAt: 'answer', ...make(ctx, transport) });
}
