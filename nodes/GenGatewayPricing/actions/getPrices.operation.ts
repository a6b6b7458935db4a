/** Get Prices: the public price list in the display currency, optionally filtered by model. */
import type {
	IDataObject,
	IExecuteFunctions,
	INodeProperties,
	INodePropertyOptions,
} from 'n8n-workflow';
import { lowestPrice } from '../../shared/money/prices';
import { loadPricing } from '../../shared/money/lookup';
import type { GatewayTransport } from '../../shared/transport';
import { displayHints, listOperation, type OperationResult } from './list';
import { priceRow } from './rows';

export const option: INodePropertyOptions = {
	name: 'Get Prices',
	value: 'getPrices',
	action: 'Get public prices',
	description: 'Lowest public price per model in the display currency (the key is not sent)',
};

export const properties: INodeProperties[] = [
	{
		displayName: 'Model Filter',
		name: 'modelFilter',
		type: 'string',
		default: '',
		placeholder: 'e.g. alpha-image',
		description: 'Only models whose ID contains this text (empty: all)',
		displayOptions: { show: { operation: ['getPrices'] } },
	},
];

/**
 * One row per catalog model, lowest public price in the display currency. No key is sent. A public group without a
 * ratio is the gateway's set-up, the same on every run: the rows it concerns say so (`skipped_groups`, `note`), no
 * execution hint repeats it.
 */
export async function getPrices(
	transport: GatewayTransport,
	filter = '',
): Promise<OperationResult> {
	const { pricing, display } = await loadPricing(transport);
	const f = filter.trim().toLowerCase();
	const items = pricing.data
		.filter((e) => !f || e.model_name.toLowerCase().includes(f))
		.map(
			(e) =>
				priceRow(
					lowestPrice(e, pricing, display.quotaPerUnit),
					display,
					pricing.usable_group,
				) as IDataObject,
		);
	return { items, hints: displayHints(display) };
}

export const operation = (ctx: IExecuteFunctions, transport: GatewayTransport) =>
	listOperation(ctx, (i) =>
		getPrices(transport, ctx.getNodeParameter('modelFilter', i, '') as string),
	);
