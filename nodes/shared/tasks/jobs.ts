/** Builds wait jobs from input items (Image Submit / Video Create output, or expressions). */
import { videoFamilyOf } from '../models';
import type { IDataObject } from 'n8n-workflow';
import { fieldSet } from '../rules/rule';
import { TASK_ID_RULE } from '../rules/taskId';
import type { OriginKind } from '../transport';
import { readFields } from '../validate';
import type { WaitJob } from './wait';

export const WAIT_TASK_FIELDS = fieldSet('Task Wait task', {
	taskId: { label: 'Task ID', rule: TASK_ID_RULE },
});

export interface JobMeta {
	family?: 'delta' | 'gamma';
	model?: string;
	withReferenceVideo?: boolean;
	/** image tasks: the `n` Image Submit asked for */
	imagesExpected?: number;
	waitStartedAt: number;
}

type JobLimits = {
	deadlineMs: number;
	maxWaitMs: number;
	now: number;
	initialDelayMs?: number;
	originParam?: string;
	hasVideoOrigin?: boolean;
};

/**
 * The task's kind: the node's Task Kind when set, else what the item says (its kind, a video model or family); and
 * whether nothing says (a stored task_id alone: asked as an image, then as a video).
 */
function kindOf(
	json: IDataObject,
	kindParam: string,
): { kind: 'image' | 'video'; kindUnknown: boolean } {
	const model = typeof json.model === 'string' ? json.model : undefined;
	if (kindParam === 'image' || kindParam === 'video')
		return { kind: kindParam, kindUnknown: false };
	const kind =
		json.kind === 'video' ||
		(model && /-video-/.test(model)) ||
		json.family === 'delta' ||
		json.family === 'gamma'
			? 'video'
			: 'image';
	const kindUnknown =
		kind === 'image' &&
		json.kind !== 'image' &&
		!model &&
		json.poll_path === undefined &&
		json.poll_url === undefined;
	return { kind, kindUnknown };
}

/** When the wait started (an earlier Still Running item's, never in the future) and the deadlines it gives. */
function deadlinesOf(json: IDataObject, limits: JobLimits) {
	const started =
		typeof json.wait_started_at === 'number' &&
		json.wait_started_at > 0 &&
		json.wait_started_at <= limits.now
			? json.wait_started_at
			: limits.now;
	const overall = started + limits.deadlineMs;
	const deadline =
		limits.maxWaitMs > 0 ? Math.min(overall, limits.now + limits.maxWaitMs) : overall;
	return { started, deadline, finalDeadline: overall };
}

/**
 * `originParam`: `base` / `video` force the origin of a video task; `auto` takes the input item's origin (else the video
 * origin when the credential has one) and, if the task is unknown there, asks the other origin before failing it.
 */
export function buildJob(
	index: number,
	json: IDataObject,
	taskIdParam: unknown,
	kindParam: string,
	limits: JobLimits,
): { job: WaitJob; meta: JobMeta } {
	const { taskId } = readFields(WAIT_TASK_FIELDS, { taskId: taskIdParam });
	const { kind, kindUnknown } = kindOf(json, kindParam);
	const originParam = limits.originParam ?? 'auto';
	const fromItem: OriginKind | undefined =
		json.origin === 'video' || json.origin === 'base' ? json.origin : undefined;
	const origin: OriginKind = kindUnknown
		? 'base'
		: originParam === 'base' || originParam === 'video'
			? originParam
			: (fromItem ?? (kind === 'video' && limits.hasVideoOrigin ? 'video' : 'base'));
	const { started, deadline, finalDeadline } = deadlinesOf(json, limits);
	return {
		job: {
			index,
			taskId,
			kind,
			origin,
			otherOrigin:
				kind === 'video' && originParam === 'auto' && limits.hasVideoOrigin
					? origin === 'video'
						? 'base'
						: 'video'
					: undefined,
			pollPath: typeof json.poll_path === 'string' ? json.poll_path : undefined,
			pollUrl: typeof json.poll_url === 'string' ? json.poll_url : undefined,
			pollAfterMs: typeof json.poll_after_ms === 'number' ? json.poll_after_ms : undefined,
			deadline,
			finalDeadline,
			initialDelayMs: limits.initialDelayMs,
			...(kindUnknown
				? { videoFallback: videoFallback(originParam, fromItem, limits.hasVideoOrigin) }
				: {}),
		},
		meta: {
			family: videoFamilyOf(json),
			model: typeof json.model === 'string' ? json.model : undefined,
			withReferenceVideo:
				typeof json.with_reference_video === 'boolean' ? json.with_reference_video : undefined,
			imagesExpected:
				kind === 'image' && Number.isSafeInteger(json.n) && (json.n as number) > 1
					? (json.n as number)
					: undefined,
			waitStartedAt: started,
		},
	};
}

/** Where a task of unknown kind is asked as a video: the origin the item or the node names, else the video origin first. */
function videoFallback(
	originParam: string,
	fromItem: OriginKind | undefined,
	hasVideoOrigin: boolean | undefined,
): { origin: OriginKind; otherOrigin?: OriginKind } {
	const origin: OriginKind =
		originParam === 'base' || originParam === 'video'
			? originParam
			: (fromItem ?? (hasVideoOrigin ? 'video' : 'base'));
	return {
		origin,
		otherOrigin:
			originParam === 'auto' && hasVideoOrigin
				? origin === 'video'
					? 'base'
					: 'video'
				: undefined,
	};
}
