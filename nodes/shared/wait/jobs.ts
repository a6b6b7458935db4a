/** Builds wait jobs from input items (Image Submit / Video Create output, or expressions). */
import type { IDataObject } from 'n8n-workflow';
import { InputRuleError } from '../errors';
import type { OriginKind } from '../transport/http';
import type { WaitJob } from './waitTasks';

export interface JobMeta {
	family?: 'delta' | 'gamma';
	model?: string;
	withReferenceVideo?: boolean;
	waitStartedAt: number;
}

const TASK_ID = /^[A-Za-z0-9_-]{1,200}$/;

/**
 * `originParam`: `base` / `video` force the origin of a video task; `auto` takes the input item's origin (else the video
 * origin when the credential has one) and, if the task is unknown there, asks the other origin before failing it.
 */
export function buildJob(index: number, json: IDataObject, taskIdParam: unknown, kindParam: string, limits: { deadlineMs: number; maxWaitMs: number; now: number; initialDelayMs?: number; originParam?: string; hasVideoOrigin?: boolean }): { job: WaitJob; meta: JobMeta } {
	if (typeof taskIdParam !== 'string' || !TASK_ID.test(taskIdParam.trim())) {
		throw new InputRuleError([{ field: 'Task ID', rule: taskIdParam === undefined || taskIdParam === null || taskIdParam === '' ? 'is empty: map the task_id of the submitting node' : 'must be 1 to 200 characters of A-Z a-z 0-9 _ -' }]);
	}
	const taskId = taskIdParam.trim();
	const model = typeof json.model === 'string' ? json.model : undefined;
	let kind: 'image' | 'video';
	if (kindParam === 'image' || kindParam === 'video') kind = kindParam;
	else kind = json.kind === 'video' || (model && /-video-/.test(model)) ? 'video' : 'image';
	const originParam = limits.originParam ?? 'auto';
	const fromItem: OriginKind | undefined = json.origin === 'video' || json.origin === 'base' ? json.origin : undefined;
	const origin: OriginKind = originParam === 'base' || originParam === 'video' ? originParam : (fromItem ?? (kind === 'video' && limits.hasVideoOrigin ? 'video' : 'base'));
	const family = json.family === 'delta' || json.family === 'gamma' ? json.family : model?.startsWith('gamma-') ? 'gamma' : kind === 'video' ? 'delta' : undefined;
	const started = typeof json.wait_started_at === 'number' && json.wait_started_at > 0 && json.wait_started_at <= limits.now ? json.wait_started_at : limits.now;
	const overall = started + limits.deadlineMs;
	const deadline = limits.maxWaitMs > 0 ? Math.min(overall, limits.now + limits.maxWaitMs) : overall;
	return {
		job: {
			index,
			taskId,
			kind,
			origin,
			otherOrigin: kind === 'video' && originParam === 'auto' && limits.hasVideoOrigin ? (origin === 'video' ? 'base' : 'video') : undefined,
			pollPath: typeof json.poll_path === 'string' ? json.poll_path : undefined,
			pollUrl: typeof json.poll_url === 'string' ? json.poll_url : undefined,
			pollAfterMs: typeof json.poll_after_ms === 'number' ? json.poll_after_ms : undefined,
			deadline,
			finalDeadline: overall,
			initialDelayMs: limits.initialDelayMs,
		},
		meta: { family, model, withReferenceVideo: typeof json.with_reference_video === 'boolean' ? json.with_reference_video : undefined, waitStartedAt: started },
	};
}
