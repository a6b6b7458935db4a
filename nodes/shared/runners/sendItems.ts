/**
 * The paid runner's send and finish phases (./paid.ts): each checked item's paid request sent once (./send.ts: spend
 * scope, the one 429 rule) in an adaptive window, its follow-up if the answer calls for one, and the answer turned into
 * the item as soon as it came back. The ledger (./ledger.ts) knows an item by its place, so a Retry On Fail re-run
 * reuses what it got.
 */
import { uncertainItem } from '../items/shapes';
import { AdaptiveLimit } from '../limit';
import { failure } from './failures';
import type { LedgerEntry, Place } from './ledger';
import type { PaidRun, PaidRunOptions, Result } from './operation';
import { isCancellation, sendPaid, SpentError } from './send';

export const DEFAULT_START_WINDOW = 8;

/** What the send phase hands the record: what each item got, and how many paid requests it sent. */
export interface Sent<S> {
	answers: Array<LedgerEntry<S> | undefined>;
	/** the paid requests each item sent (this run or, under Retry On Fail, an earlier one): what its record counts */
	requests: number[];
	/** a request reached the gateway: the batch spent money (or may have) */
	spent: boolean;
}

/** Every paid POST of an item — the first, a follow-up — goes through the one send, in its own spend scope. */
type Send<S> = (post: () => Promise<S>) => Promise<S>;

/** send and finish: every checked item sent once in the batch's window, each answer made its item. */
export async function sendAndFinish<P, S>(
	run: PaidRun<P, S>,
	prepared: Array<P | undefined>,
	opts: PaidRunOptions,
): Promise<Sent<S>> {
	const window = new AdaptiveLimit(
		Math.max(1, opts.maxConcurrency),
		opts.startConcurrency ?? DEFAULT_START_WINDOW,
	);
	const send: Send<S> = (post) =>
		sendPaid(post, {
			refusalWindowMs: opts.refusalWindowMs,
			sleep: (ms) => run.transport.sleep(ms),
			window,
		});
	const sent: Sent<S> = { answers: [], requests: [], spent: false };
	// every item's send settles (and is in the ledger) before the node ends, even when one item throws: a Retry On Fail
	// try starting while another item's POST is still on its way would not find it and would pay it again
	const ran = await Promise.allSettled(prepared.map((p, i) => sendItem(run, p, i, send, sent)));
	const thrown = ran.find((r): r is PromiseRejectedResult => r.status === 'rejected');
	if (thrown) throw thrown.reason;
	return sent;
}

/** One item: its first request (or what an earlier try got at its place), its follow-up, its finish. */
async function sendItem<P, S>(
	run: PaidRun<P, S>,
	p: P | undefined,
	i: number,
	send: Send<S>,
	sent: Sent<S>,
): Promise<void> {
	if (p === undefined) return;
	let entry = run.ledger?.get(run.place(i));
	if (entry === undefined) {
		entry = await sendFirst(run, p, i, send);
		if (entry === undefined) return;
		run.ledger?.record(run.place(i), entry);
	}
	sent.requests[i] = 1;
	if ('sent' in entry) {
		const next = await followUp(run, p, entry, i, { ...run.place(i), step: 1 }, send);
		entry = next.entry;
		sent.requests[i] += next.sent ? 1 : 0;
	}
	sent.answers[i] = entry;
	sent.spent = true;
	run.results[i] = await finishItem(run, p, entry, i);
}

/**
 * The item's first paid request: its answer, or a spent call (it left, its outcome unknown); undefined when it was
 * refused and created nothing (the item's failure is written).
 */
async function sendFirst<P, S>(
	run: PaidRun<P, S>,
	p: P,
	i: number,
	send: Send<S>,
): Promise<LedgerEntry<S> | undefined> {
	try {
		return { sent: await send(() => run.op.send(p, i)) };
	} catch (err) {
		if (err instanceof SpentError) return { lost: err.cause };
		if (isCancellation(err, run.transport.signal)) throw err;
		run.results[i] = failure(err, 'submit', false, { fields: run.op.quoteFields?.(p) });
		return undefined;
	}
}

/**
 * The item's follow-up request, sent once at its own place (a re-run reuses what it got), joined to the first answer;
 * `sent`: a follow-up request left (a refused one created nothing).
 */
async function followUp<P, S>(
	run: PaidRun<P, S>,
	p: P,
	first: { sent: S },
	i: number,
	at: Place,
	send: Send<S>,
): Promise<{ entry: LedgerEntry<S>; sent: boolean }> {
	const next = run.op.followUp?.(p, first.sent, i);
	if (!next) return { entry: first, sent: false };
	let second: LedgerEntry<S> | { refused: unknown } | undefined = run.ledger?.get(at);
	if (second === undefined) {
		try {
			second = { sent: await send(() => next.send()) };
		} catch (err) {
			second = err instanceof SpentError ? { lost: err.cause } : { refused: err };
		}
		// a refusal created nothing: a re-run may send the follow-up again, never the first request
		if (!('refused' in second)) run.ledger?.record(at, second);
		// a cancelled execution stops here, whether or not the follow-up had left (what left is recorded above)
		const why = 'refused' in second ? second.refused : 'lost' in second ? second.lost : undefined;
		if (why !== undefined && isCancellation(why, run.transport.signal)) throw why;
	}
	return { entry: { sent: next.join(second) }, sent: !('refused' in second) };
}

/** finish: the answer into the item; an exception after the request left is an unknown outcome, never a resend. */
async function finishItem<P, S>(
	run: PaidRun<P, S>,
	p: P,
	entry: LedgerEntry<S>,
	i: number,
): Promise<Result> {
	if ('lost' in entry) {
		if (isCancellation(entry.lost, run.transport.signal)) throw entry.lost;
		const reason = entry.lost instanceof Error ? entry.lost.message : String(entry.lost);
		return {
			json: uncertainItem(
				{ task_id: null, ...(run.op.quoteFields?.(p) ?? {}) },
				`the request left and then failed: ${reason}`,
			),
		};
	}
	try {
		return await run.op.finish(p, entry.sent, i);
	} catch (err) {
		if (isCancellation(err, run.transport.signal)) throw err;
		let taskId: string | undefined;
		try {
			taskId = run.op.taskIdOf?.(entry.sent);
		} catch {
			taskId = undefined;
		}
		return failure(err, 'answer', true, { taskId });
	}
}
