import { exitOf } from '../../shared/exit';
import type { IExecuteFunctions } from 'n8n-workflow';
import type { FreeOperation } from '../../shared/runners/free';
import { getPrices, listMyModels, type OperationResult } from './operations';
import type { GatewayTransport } from '../../shared/transport';
import { readFields } from '../../shared/validate';
import { PRICING_LIST_FIELDS } from './fields';

/** A list that does not depend on the input item: read once (first item), its rows paired to that item. */
function listOperation(
	ctx: IExecuteFunctions,
	read: (i: number) => Promise<OperationResult>,
): FreeOperation<null> {
	return {
		firstItemOnly: true,
		check: () => null,
		async run(_, i) {
			const res = await read(i);
			for (const message of new Set(res.hints)) exitOf(ctx).hint(message);
			return res.items.map((json) => ({ item: { json } }));
		},
	};
}

/** Get Prices: the public price list in the display currency, optionally filtered by model. */
export const getPricesOperation = (ctx: IExecuteFunctions, transport: GatewayTransport) =>
	listOperation(ctx, (i) =>
		getPrices(transport, ctx.getNodeParameter('modelFilter', i, '') as string),
	);

/** List My Models: the models this key can call, with their prices. */
export const listModelsOperation = (ctx: IExecuteFunctions, transport: GatewayTransport) =>
	listOperation(ctx, (i) =>
		listMyModels(
			transport,
			readFields(PRICING_LIST_FIELDS, {
				includeOthers: ctx.getNodeParameter('includeOthers', i, true),
			}).includeOthers ?? true,
		),
	);
