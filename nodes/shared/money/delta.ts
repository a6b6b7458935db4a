/** Delta-video: reference-video detection and settlement of a finished task. Pure. */
import { isObj } from '../jsonObject';
import { videoStatusPhase } from '../tasks/phases';
import {
	DEFAULT_QUOTA_PER_UNIT,
	DELTA_VIDEO_UNIT_PRICES,
	numberOf,
	settlementUsage,
	videoFeeQuota,
	type DeltaUnitPrices,
	type DeltaUnitPriceTable,
	type TokenSource,
} from './prices';

export interface ReferenceVideoInfo {
	withReferenceVideo: boolean;
	/** which field decided it */
	source: string;
}

const isVideoItem = (c: unknown): boolean =>
	isObj(c) &&
	(c.type === 'video_url' ||
		c.role === 'reference_video' ||
		c.type === 'video' ||
		c.type === 'reference_video');

/**
 * Whether a task has a reference video, read from what is at hand: a `with_reference_video` boolean
 * (Video Create's output), its `materials` list, or a delta create body (`metadata.content` items of type
 * `video_url` / role `reference_video`; the `images` shorthand holds images only). Image, audio and
 * first/last-frame references count as no reference video. Undefined when nothing tells.
 */
export function referenceVideoOf(input: unknown, depth = 0): ReferenceVideoInfo | undefined {
	if (!isObj(input) || depth > 3) return undefined;
	if (typeof input.with_reference_video === 'boolean')
		return { withReferenceVideo: input.with_reference_video, source: 'with_reference_video' };
	if (Array.isArray(input.materials))
		return { withReferenceVideo: input.materials.some(isVideoItem), source: 'materials' };
	const meta = isObj(input.metadata) ? input.metadata : undefined;
	if (meta && Array.isArray(meta.content))
		return { withReferenceVideo: meta.content.some(isVideoItem), source: 'metadata.content' };
	if (Array.isArray(input.content))
		return { withReferenceVideo: input.content.some(isVideoItem), source: 'content' };
	for (const k of ['request', 'body', 'task']) {
		const inner = referenceVideoOf(input[k], depth + 1);
		if (inner) return { ...inner, source: `${k}.${inner.source}` };
	}
	if (
		Array.isArray(input.images) ||
		(meta &&
			(typeof meta.first_frame_image === 'string' || typeof meta.last_frame_image === 'string'))
	) {
		return {
			withReferenceVideo: false,
			source: Array.isArray(input.images) ? 'images' : 'metadata frames',
		};
	}
	return undefined;
}

export type SettlementStatus =
	'settled' | 'at_multiplier_1' | 'needs_manual_check' | 'refunded' | 'not_finished';

export interface DeltaSettlement {
	/** settled: fee from trusted usage at the key's known group multiplier; at_multiplier_1: the same figure at
	 * multiplier 1 because the key's multiplier is not known (the charge is this × that multiplier);
	 * needs_manual_check: no trusted usage, no unit price, an expired or unrecognised task (never free);
	 * refunded: explicit failure/cancellation (the reservation is returned); not_finished: still running */
	status: SettlementStatus;
	task_id: string | null;
	model: string | null;
	task_status: string | null;
	tokens: number | null;
	token_source: TokenSource | null;
	with_reference_video: boolean | null;
	/** option (the caller said), a field of the task (e.g. with_reference_video, metadata.content), or assumed_none */
	reference_video_source: string | null;
	/** base units (USD at a default site) per 1M video tokens */
	unit_price: number | null;
	/** the key's group multiplier; null when not known */
	group_ratio: number | null;
	quota_per_unit: number;
	/** the fee in whole quota units (¤) */
	fee_quota: number | null;
	/** the fee in base units: fee_quota / quota_per_unit */
	fee_base: number | null;
	note: string;
}

export interface SettleOptions {
	/** set when the caller knows; otherwise read from the task, else assumed none (the higher price) */
	withReferenceVideo?: boolean;
	/** overrides the task's model */
	model?: string;
	quotaPerUnit?: number;
}

function unitTableOf(
	unitPrices: DeltaUnitPriceTable | DeltaUnitPrices | undefined,
	model: string | null,
): DeltaUnitPrices | undefined {
	if (!unitPrices) return model ? DELTA_VIDEO_UNIT_PRICES[model] : undefined;
	if (
		typeof (unitPrices as DeltaUnitPrices).noReferenceVideo === 'number' &&
		typeof (unitPrices as DeltaUnitPrices).withReferenceVideo === 'number'
	)
		return unitPrices as DeltaUnitPrices;
	return model ? (unitPrices as DeltaUnitPriceTable)[model] : undefined;
}

/**
 * The fee of a finished delta-video task: tokens from `usage.completion_tokens`, else a valid
 * `usage.total_tokens`; fee = tokens / 1e6 × unit price × group multiplier, in whole quota units.
 * `groupRatio` is the key's group multiplier when known (an option the user set, or the public group_ratio of the
 * group the user named); undefined when not known: the fee is then computed at multiplier 1 and labelled
 * `at_multiplier_1`, never `settled`. No public endpoint tells a key's group, so it is never guessed.
 * Task states are read with the shared video status vocabulary (status.ts); Task Wait's own JSON is read by its
 * `gateway.status` (`gateway_status` before Task Wait 1.1) (its `status: failed` can mean a failed download of a completed task).
 * With no trusted usage the result is `needs_manual_check` (the reservation is kept; it is never free).
 * `task` may be a gateway task object (`GET /v1/videos/{id}`), Task Wait's output JSON, or either wrapped
 * in `task` / `data`. `unitPrices` is a per-model table (default: the spec's) or one model's pair.
 * Throws only for a group ratio that is given but not a positive number.
 */
export function settleDeltaFee(
	task: unknown,
	unitPrices: DeltaUnitPriceTable | DeltaUnitPrices | undefined,
	groupRatio: number | undefined,
	opts: SettleOptions = {},
): DeltaSettlement {
	const quotaPerUnit = checkedSettleTerms(groupRatio, opts);
	const t = readDeltaTask(task, opts);
	const ref = referenceOf(t.outer, opts);
	const pair = unitTableOf(unitPrices, t.model);
	const base: DeltaSettlement = {
		status: 'needs_manual_check',
		task_id: t.taskId,
		model: t.model,
		task_status: t.rawStatus,
		tokens: t.usage?.tokens ?? null,
		token_source: t.usage?.source ?? null,
		with_reference_video: ref.withRef,
		reference_video_source: ref.source,
		unit_price: null,
		group_ratio: groupRatio ?? null,
		quota_per_unit: quotaPerUnit,
		fee_quota: null,
		fee_base: null,
		note: '',
	};
	const unsettled = unsettledOf(base, t, !!pair);
	if (unsettled || !pair || !t.usage) return unsettled ?? base;
	let assumed = '';
	let { withRef, source } = ref;
	if (withRef === null) {
		withRef = false;
		source = 'assumed_none';
		assumed =
			'; whether it had a reference video is not known, so the higher no-reference-video price was used';
	}
	const unit = withRef ? pair.withReferenceVideo : pair.noReferenceVideo;
	const fee = videoFeeQuota(t.usage.tokens, unit, groupRatio ?? 1, quotaPerUnit);
	const formula = `${t.usage.tokens} video tokens (${t.usage.source}) / 1,000,000 × ${unit}`;
	return {
		...base,
		status: groupRatio === undefined ? 'at_multiplier_1' : 'settled',
		with_reference_video: withRef,
		reference_video_source: source,
		unit_price: unit,
		fee_quota: fee,
		fee_base: fee / quotaPerUnit,
		note:
			groupRatio === undefined
				? `${formula} at group multiplier 1, in whole quota units: your key's group multiplier is not known ` +
					`(give it, or your group's name), so this is not the settled fee; the charge is this × that multiplier${assumed}`
				: `${formula} × group ratio ${groupRatio}, in whole quota units${assumed}`,
	};
}

/** The settlement's terms checked: a known group ratio is positive (never 0), and the site's quota per unit. */
function checkedSettleTerms(groupRatio: number | undefined, opts: SettleOptions): number {
	if (
		groupRatio !== undefined &&
		(typeof groupRatio !== 'number' || !Number.isFinite(groupRatio) || groupRatio <= 0)
	)
		throw new Error(
			'groupRatio: must be a positive number, or undefined when not known (an unknown multiplier is never 0)',
		);
	const quotaPerUnit = opts.quotaPerUnit ?? DEFAULT_QUOTA_PER_UNIT;
	if (!Number.isFinite(quotaPerUnit) || quotaPerUnit <= 0)
		throw new Error('quotaPerUnit: must be a positive number');
	return quotaPerUnit;
}

/** What a delta task says of itself, from a task object, Task Wait's item (either version) or a wrapped task. */
interface DeltaTaskFacts {
	outer: Record<string, unknown>;
	model: string | null;
	taskId: string | null;
	rawStatus: string | null;
	phase: ReturnType<typeof videoStatusPhase> | undefined;
	word: string | undefined;
	usage: ReturnType<typeof settlementUsage>;
	submissionUncertain: boolean;
}

function readDeltaTask(task: unknown, opts: SettleOptions): DeltaTaskFacts {
	const outer = isObj(task) ? task : {};
	const layers = [outer, outer.task, outer.data].filter(isObj);
	const pick = (k: string): unknown =>
		layers.map((l) => l[k]).find((v) => v !== undefined && v !== null && v !== '');
	const str = (v: unknown) =>
		typeof v === 'string' && v ? v : typeof v === 'number' ? String(v) : null;
	// Task Wait's item shows the gateway's word as `gateway.status` (1.1) or `gateway_status` (1)
	const gateway = pick('gateway');
	const rawStatus =
		str(pick('gateway_status')) ??
		str(isObj(gateway) ? gateway.status : null) ??
		str(pick('status'));
	return {
		outer,
		model: opts.model ?? str(pick('model')),
		taskId: str(outer.task_id) ?? str(outer.id) ?? str(pick('task_id')) ?? str(pick('id')),
		rawStatus,
		phase: rawStatus ? videoStatusPhase(rawStatus) : undefined,
		word: rawStatus?.trim().toLowerCase(),
		usage: layers.map((l) => settlementUsage(l)).find((u) => u !== undefined),
		submissionUncertain: pick('submission_uncertain') === true,
	};
}

/** Whether the task had a reference video: the node's option, else what the task or item shows, else not known. */
function referenceOf(
	outer: Record<string, unknown>,
	opts: SettleOptions,
): { withRef: boolean | null; source: string | null } {
	if (opts.withReferenceVideo !== undefined)
		return { withRef: opts.withReferenceVideo, source: 'option' };
	const found = referenceVideoOf(outer);
	return found
		? { withRef: found.withReferenceVideo, source: found.source }
		: { withRef: null, source: null };
}

/** A task that cannot be settled from its usage, with why: unknown outcome, expired, failed, pending, no price or usage. */
function unsettledOf(
	base: DeltaSettlement,
	t: DeltaTaskFacts,
	priced: boolean,
): DeltaSettlement | undefined {
	if (t.submissionUncertain && t.phase !== 'succeeded')
		return {
			...base,
			note: 'the submission outcome is unknown: check the task and usage records before settling or submitting again (it is not free)',
		};
	if (t.phase === 'failed' && t.word === 'expired')
		return {
			...base,
			note:
				'the task expired (its record was cleaned up, possibly after it completed): ' +
				'whether it was charged is not known here, check the usage logs (it is not free)',
		};
	if (t.phase === 'failed')
		return {
			...base,
			status: 'refunded',
			fee_quota: 0,
			fee_base: 0,
			note: 'the task failed or was cancelled: its reservation is returned (check the refund line in the usage logs)',
		};
	if (t.phase === 'pending')
		return {
			...base,
			status: 'not_finished',
			note: 'the task has not finished: the estimate stays reserved and is settled to actual usage on completion (wait for it, e.g. with Task Wait)',
		};
	if (t.rawStatus && !t.phase)
		return {
			...base,
			note: `unrecognised task status "${t.rawStatus}": the reservation needs a check in the usage logs (it is not free)`,
		};
	if (!priced)
		return {
			...base,
			note: t.model
				? `no delta-video unit price for model "${t.model}": check the usage logs (it is not free)`
				: 'the task names no model: check the usage logs (it is not free)',
		};
	if (!t.usage)
		return {
			...base,
			note:
				'no trusted usage (usage.completion_tokens or a valid usage.total_tokens): ' +
				'the reservation is kept and needs a check in the usage logs (it is not free)',
		};
	return undefined;
}

/** A group's ratio by name from the price list; undefined when the list has no positive ratio for it (never 0 by default). */
export function groupRatioOf(
	groupRatio: Record<string, unknown>,
	group: string,
): number | undefined {
	const n = Object.prototype.hasOwnProperty.call(groupRatio ?? {}, group)
		? numberOf(groupRatio[group])
		: undefined;
	return n !== undefined && n > 0 ? n : undefined;
}
