import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { toNodeError } from './errors';

/** An error that knows which task it belongs to, so a continueOnFail item keeps the task ID. */
export class TaskError extends Error {
	constructor(
		public readonly inner: unknown,
		public readonly taskId: string | undefined,
		public readonly extra: IDataObject = {},
	) {
		super(inner instanceof Error ? inner.message : String(inner));
		this.name = 'TaskError';
	}
}

/**
 * Runs `handler` for every input item, in order, so every input yields exactly one output item
 * (or, for handlers returning several, at least one) paired to it. Errors become NodeApiError /
 * NodeOperationError with the item index; with continueOnFail they become an error item.
 */
export async function forEachItem(
	ctx: IExecuteFunctions,
	handler: (itemIndex: number) => Promise<INodeExecutionData | INodeExecutionData[]>,
	secrets: () => Array<string | undefined> = () => [],
): Promise<INodeExecutionData[]> {
	const items = ctx.getInputData();
	const out: INodeExecutionData[] = [];
	for (let i = 0; i < items.length; i++) {
		try {
			const res = await handler(i);
			for (const r of Array.isArray(res) ? res : [res]) out.push({ ...r, pairedItem: { item: i } });
		} catch (err) {
			out.push(errorItem(ctx, err, i, secrets()));
		}
	}
	return out;
}

/** The continueOnFail item for an error, or a throw when the node should fail. */
export function errorItem(ctx: IExecuteFunctions, err: unknown, i: number, secrets: Array<string | undefined>): INodeExecutionData {
	const inner = err instanceof TaskError ? err.inner : err;
	const nodeError = toNodeError(ctx.getNode(), inner, i, secrets);
	if (!ctx.continueOnFail()) throw nodeError;
	const json: IDataObject = { error: nodeError.message };
	if (nodeError.description) json.errorDescription = nodeError.description;
	const httpCode = (nodeError as { httpCode?: string | null }).httpCode;
	if (httpCode) json.httpCode = httpCode;
	if (err instanceof TaskError) {
		if (err.taskId) json.task_id = err.taskId;
		Object.assign(json, err.extra);
	}
	return { json, pairedItem: { item: i } };
}
