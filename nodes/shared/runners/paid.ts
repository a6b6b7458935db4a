/**
 * The one item pipeline of the paid nodes (Image Submit, Video Create, Chat, Responses):
 * validate every item → send the paid requests in an adaptive window → record each outcome at once → finish each
 * item as soon as its request came back (wait, download, read the answer) → emit one item per input, paired.
 * Nothing is sent when an item is invalid and the node stops on errors; once the batch has spent money the node never
 * throws (see failures.ts). A POST is sent once, except after a 429, which created nothing.
 * The spend boundary is the transport's (see transport/spend.ts): an item is unspent only when no paid request left
 * for it or the transport itself proved that nothing was created; any other exception after the request left makes
 * the item spent with an unknown outcome. The retry ledger knows an item by its place in the input, so a re-run of
 * the node reuses what each item got whatever its expressions evaluate to now.
 * Money (../money/): every item is priced once all are checked; Max Expected Spend may refuse the whole batch there,
 * before the first paid request; every item that reached the gateway gets its `cost`, and the node's share goes to the
 * execution's custom data.
 */
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { exitOf } from '../exit';
import { GatewayHttpError, GatewayNetworkError, toNodeError } from '../errors';
import { AdaptiveLimit } from '../limit';
import type { GatewayTransport } from '../transport/http';
import { scaled } from '../transport/clock';
import { backoffDelay, DEFAULT_RETRY } from '../transport/retry';
import { nothingCreated, withinSpendScope } from '../transport/spend';
import { errorMode, failure, failureHint, failureItem, isFailure, type PaidFailure } from './failures';
import { retryLedger, type LedgerEntry } from './ledger';
import { BatchMoney } from '../money/batchMoney';
import type { PricedAs, TokenCount } from '../money/cost';
import { readMoneyOptions } from '../money/options';

export interface PaidBatch<P, S> {
	/** reads and checks item `i` (parameters, expressions, binaries, rules); sends nothing; throws what is wrong */
	prepare(i: number): Promise<P>;
	/** after every item was checked, before the first paid request (e.g. a price look-up) */
	beforeSend?(prepared: Array<P | undefined>): Promise<void>;
	/**
	 * Sends the paid request once and returns what came back, interpreting as little as it can: interpretation
	 * belongs in `finish`, after the spend is recorded. What it throws after the request left counts as spent.
	 */
	send(p: P, i: number): Promise<S>;
	/** turns the answer into the item, waiting or downloading as needed; a failure is returned, never thrown */
	finish(p: P, sent: S, i: number): Promise<INodeExecutionData | PaidFailure>;
	/** the task ID in an answer, for a failure nobody expected after it */
	taskIdOf?(sent: S): string | undefined;
	/** what the item is priced by: its model and the calls billed per call */
	pricedAs(p: P): PricedAs;
	/** the token usage of an answer (per-token models) */
	usageOf?(sent: S): TokenCount | undefined;
}

export interface BatchOptions {
	/** the window's upper bound (1 = one request at a time, in item order) */
	maxConcurrency: number;
	/** where the window starts (default min(4, max)) */
	startConcurrency?: number;
	/** how long after its first attempt a request refused with 429 may be sent again */
	refusalWindowMs: number;
	/** texts to redact from errors besides the transport's own key */
	secrets?: string[];
}

export const DEFAULT_START_WINDOW = 4;
/** a 429 without Retry-After is sent again no sooner than this */
export const MIN_REFUSAL_WAIT_MS = 1000;

/** The request left and something failed after it: the item is spent, its outcome unknown. */
class SpentError extends Error {
	constructor(readonly cause: unknown) {
		super(cause instanceof Error ? cause.message : String(cause));
	}
}

function cancelled(err: unknown, transport: GatewayTransport): boolean {
	return !!transport.signal?.aborted || (err instanceof GatewayNetworkError && err.cancelled);
}

export async function runPaidBatch<P, S>(ctx: IExecuteFunctions, transport: GatewayTransport, batch: PaidBatch<P, S>, opts: BatchOptions): Promise<INodeExecutionData[][]> {
	const items = ctx.getInputData();
	const mode = errorMode(ctx);
	const secrets = [...transport.redactionSecrets, ...(opts.secrets ?? [])];

	const prepared: Array<P | undefined> = [];
	const results: Array<INodeExecutionData | PaidFailure> = new Array(items.length);
	let money: BatchMoney | undefined;
	let moneyError: unknown;
	// the money options are the batch's: read from its first item
	if (items.length) {
		try {
			money = new BatchMoney(ctx, transport, readMoneyOptions(ctx.getNodeParameter('options', 0, {}) as Record<string, unknown>));
		} catch (err) {
			if (mode === 'stop') throw toNodeError(ctx.getNode(), err, 0, secrets);
			moneyError = err;
		}
	}
	for (let i = 0; i < items.length; i++) {
		try {
			if (moneyError) throw moneyError;
			prepared[i] = await batch.prepare(i);
		} catch (err) {
			if (mode === 'stop') throw toNodeError(ctx.getNode(), err, i, secrets);
			results[i] = failure(err, 'validation', false);
		}
	}
	const ledger = retryLedger<S>(ctx);
	if (money && prepared.some((p) => p !== undefined)) {
		await money.price(prepared.map((p) => (p === undefined ? undefined : batch.pricedAs(p))));
		// a re-run of the node (Retry On Fail) whose earlier try already sent items passed the cap then
		const rerun = !!ledger && items.some((_, i) => ledger.get(i) !== undefined);
		const refused = rerun ? undefined : await money.refusal();
		if (refused) {
			if (mode === 'stop') throw toNodeError(ctx.getNode(), refused, 0, secrets);
			prepared.forEach((p, i) => {
				if (p !== undefined) results[i] = failure(refused, 'budget', false);
			});
			prepared.length = 0;
		}
	}
	if (prepared.some((p) => p !== undefined)) await batch.beforeSend?.(prepared);

	const window = new AdaptiveLimit(Math.max(1, opts.maxConcurrency), opts.startConcurrency ?? DEFAULT_START_WINDOW);
	const answers: Array<LedgerEntry<S> | undefined> = [];
	let spent = false;

	const sendWithRefusals = async (p: P, i: number): Promise<S> => {
		let first: number | undefined;
		for (let attempt = 1; ; attempt++) {
			// a refused request goes again before the batch's unsent ones, so a long batch cannot starve it past its window
			await window.acquire(attempt > 1);
			// the refusal window counts from the item's first send, not from its wait for a place in the window
			first ??= Date.now();
			let sent: S;
			const attemptScope = withinSpendScope(() => batch.send(p, i));
			try {
				sent = await attemptScope.result;
			} catch (err) {
				window.release();
				if (!nothingCreated(attemptScope.record, err)) throw new SpentError(err);
				if (!(err instanceof GatewayHttpError) || err.status !== 429) throw err;
				// refused: nothing was created, so it may go again after its own wait, in a narrower window
				window.throttle();
				// the gateway's Retry-After as given (a little jitter so refused requests do not return together); a
				// growing back-off only without one: escalating past it would starve a request in a long batch
				const wait = scaled(err.retryAfterMs !== undefined ? err.retryAfterMs + Math.round(Math.random() * 250) : Math.max(MIN_REFUSAL_WAIT_MS, backoffDelay(attempt, DEFAULT_RETRY)));
				if (Date.now() + wait > first + opts.refusalWindowMs) throw err;
				await transport.sleep(wait);
				continue;
			}
			window.release();
			window.succeed();
			return sent;
		}
	};

	const runItem = async (i: number): Promise<void> => {
		const p = prepared[i];
		if (p === undefined) return;
		let entry = ledger?.get(i);
		if (entry === undefined) {
			try {
				entry = { sent: await sendWithRefusals(p, i) };
			} catch (err) {
				if (!(err instanceof SpentError)) {
					if (cancelled(err, transport)) throw err;
					results[i] = failure(err, 'submit', false);
					return;
				}
				entry = { lost: err.cause };
			}
			ledger?.record(i, entry);
		}
		answers[i] = entry;
		spent = true;
		if ('lost' in entry) {
			if (cancelled(entry.lost, transport)) throw entry.lost;
			results[i] = failure(entry.lost, 'answer', true, { fields: { submission_uncertain: true } });
			return;
		}
		const sent = entry.sent;
		try {
			results[i] = await batch.finish(p, sent, i);
		} catch (err) {
			if (cancelled(err, transport)) throw err;
			let taskId: string | undefined;
			try {
				taskId = batch.taskIdOf?.(sent);
			} catch {
				taskId = undefined;
			}
			results[i] = failure(err, 'answer', true, { taskId });
		}
	};
	await Promise.all(items.map((_, i) => runItem(i)));
	if (money) await withCosts(money, results, answers, batch);

	// the transport redacted every answer where it entered; this is the last look before anything reaches n8n
	return emit(ctx, results, { mode, spent, secrets }).map((output) => output.map((item) => ({ ...item, json: transport.redactValue(item.json) })));
}

/** Every item that reached the gateway gets its `cost` (a failed one too: it may be billed); then the node's share is recorded. */
async function withCosts<P, S>(money: BatchMoney, results: Array<INodeExecutionData | PaidFailure>, answers: Array<LedgerEntry<S> | undefined>, batch: PaidBatch<P, S>): Promise<void> {
	const costs = await Promise.all(
		results.map(async (r, i) => {
			if (isFailure(r) && !r.submitted) return undefined;
			const entry = answers[i];
			let usage: TokenCount | undefined;
			try {
				usage = entry && 'sent' in entry ? batch.usageOf?.(entry.sent) : undefined;
			} catch {
				usage = undefined;
			}
			return money.costFor(i, usage);
		}),
	);
	costs.forEach((cost, i) => {
		const r = results[i];
		if (!cost) return;
		if (isFailure(r)) r.fields = { ...(r.fields ?? {}), cost };
		else results[i] = { ...r, json: { ...r.json, cost } };
	});
	await money.record(costs);
}

function emit(ctx: IExecuteFunctions, results: Array<INodeExecutionData | PaidFailure>, o: { mode: ReturnType<typeof errorMode>; spent: boolean; secrets: string[] }): INodeExecutionData[][] {
	const failures = results.map((r, i) => ({ r, i })).filter((x): x is { r: PaidFailure; i: number } => isFailure(x.r));
	const uncertain = results.filter((r) => !isFailure(r) && r.json.submission_uncertain === true).length;
	const hint = failureHint(
		ctx,
		results.length,
		failures.map(({ r, i }) => ({ f: r, i })),
		uncertain,
		o.secrets,
	);
	if (failures.length && o.mode === 'stop' && !o.spent) {
		const first = failures[0];
		throw toNodeError(ctx.getNode(), first.r.error, first.i, o.secrets);
	}
	if (hint) exitOf(ctx).hint(hint, 'warning');
	const paired = (item: INodeExecutionData, i: number): INodeExecutionData => ({ ...item, pairedItem: { item: i } });
	if (o.mode === 'errorOutput') {
		// n8n splits this output into success and error items keeping each side's order: successes first keep an
		// error item out of the first place, where Retry On Fail would read it
		const ok = results.map((r, i) => (isFailure(r) ? undefined : paired(r, i))).filter((x): x is INodeExecutionData => !!x);
		const bad = failures.map(({ r, i }) => failureItem(ctx, r, i, 'errorOutput', o.secrets, false));
		return [[...ok, ...bad]];
	}
	return [results.map((r, i) => (isFailure(r) ? failureItem(ctx, r, i, o.mode, o.secrets, i === 0 && o.spent) : paired(r, i)))];
}
