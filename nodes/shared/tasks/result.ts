/**
 * What one wait ends in (`TaskResult`), typed once: completed (its fields, stored files and settled fee), failed (its
 * typed failure) or still running; the options a wait is emitted with, and the item each result becomes through the
 * output contract (`itemOf`). The wait path that produces them: emit.ts.
 */
import type { IBinaryData, IDataObject, INodeExecutionData } from 'n8n-workflow';
import { completedItem, failedItem, runningItem, uncertainItem } from '../items/shapes';
import type { FailedAt } from '../items/vocabulary';
import type { GroupChoice } from '../money/cost';
import type { SpendEntry } from '../money/record';
import type { WaitJob } from './wait';

export interface EmitOptions {
	binaryProperty: string;
	/** download results into binary data (false: URLs only, e.g. when run as an AI-agent tool) */
	download: boolean;
	/** what the user said about the key's group multiplier (Task Wait's options); undefined: not known */
	group?: GroupChoice;
	model?: string;
	family?: 'delta' | 'gamma';
	withReferenceVideo?: boolean;
	/** largest video accepted, in bytes (default: the results module's 2 GiB) */
	maxVideoBytes?: number;
	/** fields carried from the input item (e.g. wait_started_at) */
	carry?: IDataObject;
	/** image tasks: the `n` asked for; fewer images delivered is said on the Completed item */
	imagesExpected?: number;
}

export interface WaitFailure {
	error: Error;
	failedAt: FailedAt;
}

/** A settled delta fee: its entry for the execution's money record (one per task). */
export interface Settlement {
	taskId: string;
	origin: string;
	entry: SpendEntry;
	cost: IDataObject;
}

/**
 * What a wait ended in, read once: the state, the fields that state says about the task (task_id, kind, origin,
 * model, polls, files, fee …, without `status`), the gateway's word, the stored files, the typed failure.
 */
export type TaskResult =
	| {
			state: 'completed';
			fields: IDataObject;
			gatewayStatus: string | null;
			binary?: Record<string, IBinaryData>;
			settled?: Settlement;
	  }
	| { state: 'failed'; fields: IDataObject; failure: WaitFailure; uncertain: boolean }
	| { state: 'running'; fields: IDataObject; gatewayStatus: string | null };

/** The output of Task Wait a result goes to: Completed (0), Failed (1), Still Running (2). */
export const outputOf = (r: TaskResult): 0 | 1 | 2 =>
	r.state === 'completed' ? 0 : r.state === 'failed' ? 1 : 2;

/** The item of a result, built once through the output contract; `facts` (the node's own fields) come first. */
export function itemOf(r: TaskResult, facts: IDataObject = {}): INodeExecutionData {
	const fields = { ...facts, ...r.fields };
	if (r.state === 'completed')
		return r.binary && Object.keys(r.binary).length
			? { json: completedItem(fields, r.gatewayStatus), binary: r.binary }
			: { json: completedItem(fields, r.gatewayStatus) };
	if (r.state === 'running') return { json: runningItem(fields, r.gatewayStatus, {}) };
	if (r.uncertain) return { json: uncertainItem(fields, r.failure.error.message) };
	return { json: failedItem(fields, r.failure.failedAt, { error: r.failure.error.message }) };
}

/** A failed result, from the same words. */
export function failedResult(
	fields: IDataObject,
	failedAt: FailedAt,
	error: string,
	extra: IDataObject = {},
	uncertain = false,
): TaskResult {
	return {
		state: 'failed',
		fields: { ...fields, ...extra },
		failure: { error: new Error(error), failedAt },
		uncertain,
	};
}

export function propName(base: string, k: number): string {
	return k === 0 ? base : `${base}_${k}`;
}

/**
 * The task an item names, as a wait knows it: its origin and its ID, whatever else the item says (a full Image Submit
 * item, the gateway's task object, a bare task ID of unknown kind). Items naming the same task on the same origin share
 * one wait (one query per interval) and, when they ask for the same output, one download.
 */
export function taskKey(
	job: WaitJob,
	opts?: Pick<EmitOptions, 'binaryProperty' | 'download'>,
): string {
	return JSON.stringify([
		job.origin,
		job.taskId,
		opts?.binaryProperty ?? null,
		opts?.download ?? null,
	]);
}
