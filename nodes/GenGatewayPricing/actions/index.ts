/** The Pricing node's operations, one file each (its option, parameters and run), and the one way to run them. */
import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	INodePropertyOptions,
} from 'n8n-workflow';
import { createTransport } from '../../shared/credentials';
import { runFreeItems, type FreeOperation } from '../../shared/runners/free';
import type { GatewayTransport } from '../../shared/transport';
import * as estimateVideoCost from './estimateVideoCost.operation';
import * as getPrices from './getPrices.operation';
import * as listModels from './listModels.operation';
import * as settleTask from './settleTask.operation';

interface PricingOperation {
	/** its entry in the Operation list */
	option: INodePropertyOptions;
	/** its own parameters, each shown under it only */
	properties: INodeProperties[];
	/** what it does with the items, on the free item runner */
	operation: (ctx: IExecuteFunctions, transport: GatewayTransport) => FreeOperation<unknown>;
}

/** The operations by value, in the order of the Operation list (alphabetical). */
export const OPERATIONS: Record<string, PricingOperation> = {
	estimateVideoCost,
	getPrices,
	listModels,
	settleTask,
};

/** Pricing: the chosen operation on the free item runner. */
export async function runPricing(ctx: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const operation = ctx.getNodeParameter('operation', 0) as string;
	const make = OPERATIONS[operation]?.operation;
	if (!make) throw new Error(`unknown operation "${operation}"`);
	const transport = await createTransport(ctx);
	// a price list or task that could not be read: the answer, not a task of the user's, failed
	return runFreeItems(ctx, transport, { failedAt: 'answer', ...make(ctx, transport) });
}
