/**
 * How the gateway charges a request: at the key's group ratio (published, hidden, or 1), with the formulas of
 * ../catalog/billing.ts, one ledger line per charge carrying its basis and the request's ID.
 */
import { perCallQuota, perTokenQuota, type TokenUsage } from '../catalog/billing';
import type { ModelEntry } from '../catalog/models';
import type { KeyInfo } from '../catalog/keys';
import type { LedgerEntry, SimState, TaskBilling } from '../state';
import type { Ctx } from './context';

/** The price basis of a request made now by the context's key. */
export function billingNow(ctx: Ctx): TaskBilling {
	const { sim, key } = ctx;
	return {
		requestId: ctx.log.requestId,
		group: key.group,
		groupRatio: sim.prices.ratioOf(key.group),
		quotaPerUnit: sim.quotaPerUnit,
	};
}

/** n per-call units (images, or one request): model price × group ratio × quota per unit, each rounded, × n. */
export function chargePerCall(
	ctx: Ctx,
	entry: ModelEntry,
	n: number,
	opts: { kind?: 'charge' | 'reserve'; taskId?: string; billing?: TaskBilling } = {},
): number {
	const b = opts.billing ?? billingNow(ctx);
	const amount = perCallQuota(entry, b.groupRatio, b.quotaPerUnit) * n;
	ctx.sim.charge(ctx.key, {
		kind: opts.kind ?? 'charge',
		model: entry.id,
		amount,
		groupRatio: b.groupRatio,
		taskId: opts.taskId,
		requestId: b.requestId,
		basis: {
			billing: 'per_call',
			modelPrice: entry.modelPrice ?? 0,
			n,
			quotaPerUnit: b.quotaPerUnit,
		},
	});
	return amount;
}

/** A token-billed request: the usage weighted by the model's ratios × model ratio × group ratio. */
export function chargeTokens(
	ctx: Ctx,
	entry: ModelEntry,
	usage: TokenUsage,
	taskId?: string,
): number {
	const b = billingNow(ctx);
	const amount = perTokenQuota(entry, b.groupRatio, usage);
	const ratios = {
		completionRatio: entry.completionRatio,
		cacheRatio: entry.cacheRatio,
		createCacheRatio: entry.createCacheRatio,
		imageRatio: entry.imageRatio,
		audioRatio: entry.audioRatio,
		audioCompletionRatio: entry.audioCompletionRatio,
	};
	for (const k of Object.keys(ratios) as Array<keyof typeof ratios>)
		if (ratios[k] === undefined) delete ratios[k];
	ctx.sim.charge(ctx.key, {
		kind: 'charge',
		model: entry.id,
		amount,
		groupRatio: b.groupRatio,
		taskId,
		requestId: b.requestId,
		basis: {
			billing: 'per_token',
			usage: { ...usage },
			modelRatio: entry.modelRatio ?? 1,
			...ratios,
		},
	});
	return amount;
}

/** A request to a language model (or any model billed by its usage): per call when its price is per call, else by the usage. */
export function chargeUsage(ctx: Ctx, entry: ModelEntry, usage: TokenUsage, n = 1): number {
	return entry.billing === 'per_call'
		? chargePerCall(ctx, entry, n)
		: chargeTokens(ctx, entry, usage);
}

/** Returns what a task was charged or reserved (a negative line at the basis of its acceptance). */
export function refundTask(
	sim: SimState,
	key: KeyInfo,
	task: { id: string; model: string; billing?: TaskBilling },
	amount: number,
	reason: NonNullable<LedgerEntry['reason']>,
): void {
	const b = task.billing;
	sim.charge(key, {
		kind: 'refund',
		model: task.model,
		amount: -amount,
		group: b?.group,
		groupRatio: b?.groupRatio ?? sim.prices.ratioOf(key.group),
		taskId: task.id,
		requestId: b?.requestId,
		reason,
	});
}
