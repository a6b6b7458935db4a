import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { toNodeError } from './errors';
import { Limit } from './limit';

/**
 * Runs `handler` for every input item, `concurrency` at a time (default one after another), so every input yields
 * exactly one output item (or, for handlers returning several, at least one) paired to it, in input order. Errors
 * become NodeApiError / NodeOperationError with the item index; with continueOnFail they become an error item,
 * else the first one (by item order) fails the node once every item has ended.
 */
export async function forEachItem(
	ctx: IExecuteFunctions,
	handler: (itemIndex: number) => Promise<INodeExecutionData | INodeExecutionData[]>,
	secrets: () => Array<string | undefined> = () => [],
	opts: { concurrency?: number } = {},
): Promise<INodeExecutionData[]> {
	const items = ctx.getInputData();
	const limit = new Limit(Math.max(1, opts.concurrency ?? 1));
	const settled = await Promise.all(
		items.map((_, i) =>
			limit.run(async () => {
				try {
					const res = await handler(i);
					return { items: (Array.isArray(res) ? res : [res]).map((r) => ({ ...r, pairedItem: { item: i } })) };
				} catch (err) {
					return { err };
				}
			}),
		),
	);
	const out: INodeExecutionData[] = [];
	for (const [i, r] of settled.entries()) {
		if ('err' in r) out.push(errorItem(ctx, r.err, i, secrets()));
		else out.push(...r.items);
	}
	return out;
}

/** The continueOnFail item for an error, or a throw when the node should fail (nodes that spend no money). */
export function errorItem(ctx: IExecuteFunctions, err: unknown, i: number, secrets: Array<string | undefined>): INodeExecutionData {
	const nodeError = toNodeError(ctx.getNode(), err, i, secrets);
	if (!ctx.continueOnFail()) throw nodeError;
	const json: IDataObject = { error: nodeError.message };
	if (nodeError.description) json.error_description = nodeError.description;
	const httpCode = (nodeError as { httpCode?: string | null }).httpCode;
	if (httpCode) json.http_code = httpCode;
	return { json, pairedItem: { item: i } };
}
