/**
 * The item runner of the nodes that spend no money (Task Wait, Download Result, Pricing), the free twin of the paid
 * pipeline: every item is checked before any is run, so with Stop Workflow a bad item fails the node having sent
 * nothing; the checked items run a few at a time; each input item yields its output item(s), paired to it, on the
 * output the operation chose, redacted of the key.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { toNodeError } from '../errors';
import { Limit } from '../limit';
import type { GatewayTransport } from '../transport/http';

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
}

type Settled<P> = { ok: true; checked: P } | { ok: false; err: unknown };

export async function runFreeItems<P>(ctx: IExecuteFunctions, transport: GatewayTransport, op: FreeOperation<P>): Promise<INodeExecutionData[][]> {
	const count = op.firstItemOnly ? Math.min(1, ctx.getInputData().length) : ctx.getInputData().length;
	const checks: Array<Settled<P>> = [];
	for (let i = 0; i < count; i++) {
		try {
			checks.push({ ok: true, checked: op.check(i) });
		} catch (err) {
			checks.push({ ok: false, err });
		}
	}
	const secrets = transport.redactionSecrets;
	// Stop Workflow: the first refused item fails the node before anything is sent for any item
	const refused = checks.findIndex((c) => !c.ok);
	if (refused >= 0 && !ctx.continueOnFail()) throw toNodeError(ctx.getNode(), (checks[refused] as { err: unknown }).err, refused, secrets);

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
				return { ok: false, err };
			}
		}),
	);

	const outputs: INodeExecutionData[][] = Array.from({ length: op.outputs ?? 1 }, () => []);
	for (const [i, r] of ran.entries()) {
		const emitted = r.ok ? r.checked : [{ output: op.failedOutput, item: errorItem(ctx, r.err, i, secrets) }];
		for (const e of emitted) outputs[e.output ?? 0].push({ ...e.item, json: transport.redactValue(e.item.json), pairedItem: { item: i } });
	}
	return outputs;
}

/** The Continue item for an error (`error`, `error_description`, `http_code`), or a throw under Stop Workflow. */
function errorItem(ctx: IExecuteFunctions, err: unknown, itemIndex: number, secrets: Array<string | undefined>): INodeExecutionData {
	const nodeError = toNodeError(ctx.getNode(), err, itemIndex, secrets);
	if (!ctx.continueOnFail()) throw nodeError;
	const json: IDataObject = { error: nodeError.message };
	if (nodeError.description) json.error_description = nodeError.description;
	const httpCode = (nodeError as { httpCode?: string | null }).httpCode;
	if (httpCode) json.http_code = httpCode;
	return { json };
}
