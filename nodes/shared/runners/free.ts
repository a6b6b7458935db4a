/**
 * The item runner of the nodes that spend no money (Task Wait, Download Result, Pricing), the free twin of the paid
 * pipeline: every item is checked before any is run, so with Stop Workflow a bad item fails the node having sent
 * nothing; the checked items run a few at a time; each input item yields its output item(s), paired to it, on the
 * output the operation chose, redacted of the key.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { exitOf } from '../exit';
import { failedItem } from '../items/shapes';
import type { FailedAt } from '../items/vocabulary';
import { Limit } from '../limit';
import { isTaskId } from '../rules/taskId';
import type { GatewayTransport } from '../transport';

/** An output item and the output it goes to (default 0). */
export interface Emitted {
	output?: number;
	item: INodeExecutionData;
}

export interface FreeOperation<P> {
	/** reads and checks one item; a throw refuses that item */
	check(itemIndex: number): P;
	/** the item's work; a throw is that item's failure */
	run(checked: P, itemIndex: number): Promise<Emitted | Emitted[]>;
	/** items run at once (read from the first checked item; default one after another) */
	concurrency?(first: P | undefined): number;
	/** the node's number of outputs (default 1) */
	outputs?: number;
	/** where a refused or failed item goes under Continue (default 0) */
	failedOutput?: number;
	/** only the first item is run: the answer does not depend on the item (a list); the others yield nothing */
	firstItemOnly?: boolean;
	/** where a run that threw failed (a refused check is always `validation`); default `task` */
	failedAt?: FailedAt;
	/** the task ID an item names, read leniently for its failed item (default: the input item's `task_id`) */
	taskIdOf?(itemIndex: number): string | undefined;
}

/**
 * A run's failure that knows where it failed and what it knows about the task (Task Wait's words: `task`, `running`,
 * `download`, with `gateway_status`, `http_status` …), which the failed item carries instead of the operation's default.
 */
export class ItemFailure extends Error {
	constructor(
		message: string,
		readonly failedAt: FailedAt,
		readonly fields: IDataObject = {},
	) {
		super(message);
		this.name = 'ItemFailure';
	}
}

type Settled<P> = { ok: true; checked: P } | { ok: false; err: unknown; failedAt: FailedAt };

export async function runFreeItems<P>(
	ctx: IExecuteFunctions,
	transport: GatewayTransport,
	op: FreeOperation<P>,
): Promise<INodeExecutionData[][]> {
	const count = op.firstItemOnly
		? Math.min(1, ctx.getInputData().length)
		: ctx.getInputData().length;
	const checks: Array<Settled<P>> = [];
	for (let i = 0; i < count; i++) {
		try {
			checks.push({ ok: true, checked: op.check(i) });
		} catch (err) {
			checks.push({ ok: false, err, failedAt: 'validation' });
		}
	}
	const exit = exitOf(ctx);
	// Stop Workflow: the first refused item fails the node before anything is sent for any item
	const refused = checks.findIndex((c) => !c.ok);
	if (refused >= 0 && !exit.continueOnFail())
		throw exit.error((checks[refused] as { err: unknown }).err, refused);

	const first = checks.find((c): c is { ok: true; checked: P } => c.ok)?.checked;
	const limit = new Limit(Math.max(1, op.concurrency?.(first) ?? 1));
	const ran = await Promise.all(
		checks.map(async (c, i): Promise<Settled<Emitted[]>> => {
			if (!c.ok) return c;
			try {
				const out = await limit.run(() => op.run(c.checked, i));
				return { ok: true, checked: Array.isArray(out) ? out : [out] };
			} catch (err) {
				if (transport.signal?.aborted) throw err;
				const failedAt = err instanceof ItemFailure ? err.failedAt : (op.failedAt ?? 'task');
				return { ok: false, err, failedAt };
			}
		}),
	);

	const outputs: INodeExecutionData[][] = Array.from({ length: op.outputs ?? 1 }, () => []);
	for (const [i, r] of ran.entries()) {
		const emitted = r.ok
			? r.checked
			: [
					{
						output: op.failedOutput,
						item: errorItem(ctx, r.err, r.failedAt, i, taskIdOf(ctx, op, i)),
					},
				];
		for (const e of emitted) outputs[e.output ?? 0].push({ ...e.item, pairedItem: { item: i } });
	}
	return outputs;
}

function taskIdOf<P>(ctx: IExecuteFunctions, op: FreeOperation<P>, i: number): string | null {
	try {
		const id = op.taskIdOf ? op.taskIdOf(i) : ctx.getInputData()[i]?.json.task_id;
		return isTaskId(id) ? id : null;
	} catch {
		return null;
	}
}

/**
 * The Continue item for an error — `status: "failed"`, `failed_at`, the item's task ID, `error`, `error_description`,
 * `http_code`, as every node's failed items — or a throw under Stop Workflow.
 */
function errorItem(
	ctx: IExecuteFunctions,
	err: unknown,
	failedAt: FailedAt,
	itemIndex: number,
	taskId: string | null,
): INodeExecutionData {
	const exit = exitOf(ctx);
	const nodeError = exit.error(err, itemIndex);
	if (!exit.continueOnFail()) throw nodeError;
	const httpCode = (nodeError as { httpCode?: string | null }).httpCode;
	const extra: IDataObject = {
		error: nodeError.message,
		...(nodeError.description ? { error_description: nodeError.description } : {}),
		...(httpCode ? { http_code: httpCode } : {}),
	};
	const known = err instanceof ItemFailure ? err.fields : {};
	const json = failedItem({ ...known, task_id: taskId }, failedAt, extra);
	// under Continue (using error output) n8n moves an item whose JSON holds only `error` there (see ./failures.ts)
	if (ctx.getNode().onError === 'continueErrorOutput') {
		const { error: message, error_description: description, ...facts } = json;
		return { json: { error: { message, ...(description ? { description } : {}), ...facts } } };
	}
	return { json };
}
