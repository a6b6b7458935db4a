/**
 * The one runner of the paid nodes (Image Submit, Video Create, Chat, Responses), in named phases:
 *
 *   check      every item read and checked (parameters, expressions, binaries, rules, money options): nothing is sent
 *              when an item is invalid and the node stops on errors;
 *   price/cap  every item priced (the price list read beside the paid calls, within its own bound); Max Expected
 *              Spend — the strictest any item names — may refuse the whole batch here, before the first paid request;
 *              with Quote Only, the batch ends here: one `quoted` item per input, nothing sent;
 *   send       each item's paid request sent once (./send.ts: spend scope, the one 429 rule), in an adaptive window;
 *              the ledger (./ledger.ts) knows an item by its place, so a Retry On Fail re-run reuses what it got;
 *   finish     each answer turned into its item as soon as it came back (wait, download, read the answer);
 *   record     every item that reached the gateway gets its `cost` and its entry in the execution's money record;
 *   emit       one item per input, paired, on the output its outcome chose (./failures.ts: once money was spent the
 *              node never throws).
 */
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { exitOf } from '../exit';
import { readMoneyOptions, type MoneyOptions } from '../money/options';
import { ExecutionSpend } from '../money/record';
import type { GatewayTransport } from '../transport';
import { priceAndCap, recordCosts, startPricing } from './costs';
import {
	errorMode,
	failure,
	failureHint,
	failureItem,
	isFailure,
	type ErrorMode,
	type PaidFailure,
} from './failures';
import { callLedger, executionSignal, runIndexOf } from './ledger';
import {
	anyToSend,
	type Checked,
	type PaidOperation,
	type PaidRun,
	type PaidRunOptions,
	type Result,
} from './operation';
import { sendAndFinish } from './sendItems';

export type { FollowUp, PaidOperation, PaidRunOptions } from './operation';
export { MIN_REFUSAL_WAIT_MS } from './send';

/** Runs a node's input items through a paid operation, in the phases above (the twin of ./free.ts's runFreeItems). */
export async function runPaidItems<P, S>(
	ctx: IExecuteFunctions,
	transport: GatewayTransport,
	op: PaidOperation<P, S>,
	opts: PaidRunOptions,
): Promise<INodeExecutionData[][]> {
	const mode = errorMode(ctx);
	const results: Result[] = new Array(ctx.getInputData().length);
	// check
	const checked = await check(ctx, op, mode, results);
	const run = paidRun(ctx, transport, op, mode, results);
	const quoteOnly = opts.quoteOnly ?? checked.money.some((m) => m?.quoteOnly === true);
	const spend = new ExecutionSpend(ctx);
	// price and cap (Quote Only ends here)
	const batch = startPricing(run, checked);
	const quoted = await priceAndCap(run, checked, batch, spend, quoteOnly);
	if (quoted) return [quoted];
	if (anyToSend(checked.prepared)) await op.beforeSend?.(checked.prepared);
	// send, and finish each item as its answer comes back
	const sent = await sendAndFinish(run, checked.prepared, opts);
	// record
	if (sent.spent) await recordCosts(run, checked, batch, spend, sent);
	// emit
	return emit(ctx, results, { mode, spent: sent.spent });
}

/** The run the phases share: its items' places and, under Retry On Fail, the execution's ledger of paid calls. */
function paidRun<P, S>(
	ctx: IExecuteFunctions,
	transport: GatewayTransport,
	op: PaidOperation<P, S>,
	mode: ErrorMode,
	results: Result[],
): PaidRun<P, S> {
	const node = ctx.getNode();
	return {
		ctx,
		transport,
		op,
		mode,
		results,
		place: (i) => ({ node: node.id ?? node.name, run: runIndexOf(ctx), item: i }),
		ledger: node.retryOnFail === true ? callLedger<S>(executionSignal(ctx)) : undefined,
	};
}

/** check: every item and its money options; a bad money option refuses the whole batch, naming the item. */
async function check<P, S>(
	ctx: IExecuteFunctions,
	op: PaidOperation<P, S>,
	mode: ErrorMode,
	results: Result[],
): Promise<Checked<P>> {
	const n = ctx.getInputData().length;
	// dense arrays: a refused item is an `undefined` entry, never a hole that `map` would skip (Quote Only maps them)
	const prepared: Array<P | undefined> = Array.from({ length: n }, () => undefined);
	const money: Array<MoneyOptions | undefined> = Array.from({ length: n }, () => undefined);
	let moneyError: { err: unknown; i: number } | undefined;
	for (let i = 0; i < n; i++) {
		try {
			money[i] = readMoneyOptions(
				ctx.getNodeParameter('options', i, {}) as Record<string, unknown>,
			);
		} catch (err) {
			moneyError ??= { err, i };
		}
	}
	for (let i = 0; i < n; i++) {
		try {
			if (moneyError) throw withItem(moneyError.err, moneyError.i, i);
			prepared[i] = await op.prepare(i);
		} catch (err) {
			if (mode === 'stop') throw exitOf(ctx).error(err, i);
			results[i] = failure(err, 'validation', false);
		}
	}
	return { prepared, money };
}

/** The money options of item `at` refuse the batch: every item says which item and field. */
function withItem(err: unknown, at: number, i: number): Error {
	const message = err instanceof Error ? err.message : String(err);
	const e = new Error(
		at === i
			? message
			: `item ${at}: ${message} (the batch is refused: the spend options of every item are checked before any request)`,
	);
	(e as Error & { description?: string }).description =
		`Nothing was sent to the gateway. Item ${at}'s spend options break a rule: ${message}`;
	return e;
}

/** emit: one item per input, paired; once the batch spent money the node never throws (Retry On Fail would resend). */
function emit(
	ctx: IExecuteFunctions,
	results: Result[],
	o: { mode: ErrorMode; spent: boolean },
): INodeExecutionData[][] {
	const failures = results
		.map((r, i) => ({ r, i }))
		.filter((x): x is { r: PaidFailure; i: number } => isFailure(x.r));
	const uncertain = results.filter((r) => !isFailure(r) && r.json.status === 'uncertain').length;
	const hint = failureHint(
		ctx,
		results.length,
		failures.map(({ r, i }) => ({ f: r, i })),
		uncertain,
	);
	if (failures.length && o.mode === 'stop' && !o.spent) {
		const first = failures[0];
		throw exitOf(ctx).error(first.r.error, first.i);
	}
	if (hint) exitOf(ctx).hint(hint, 'warning');
	const paired = (item: INodeExecutionData, i: number): INodeExecutionData => ({
		...item,
		pairedItem: { item: i },
	});
	if (o.mode === 'errorOutput') {
		// n8n splits this output into success and error items keeping each side's order: successes first keep an
		// error item out of the first place, where Retry On Fail would read it
		const ok = results
			.map((r, i) => (isFailure(r) ? undefined : paired(r, i)))
			.filter((x): x is INodeExecutionData => !!x);
		const bad = failures.map(({ r, i }) => failureItem(ctx, r, i, 'errorOutput', false));
		return [[...ok, ...bad]];
	}
	return [
		results.map((r, i) =>
			isFailure(r) ? failureItem(ctx, r, i, o.mode, i === 0 && o.spent) : paired(r, i),
		),
	];
}
