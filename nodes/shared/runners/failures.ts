/**
 * How a failed item of a paid node comes out, under each of n8n's error settings, and the execution hint that
 * counts failures. Once a batch has spent money (a request accepted, or its outcome unknown), the node never throws
 * and never puts `json.error` on the first item of its first output: n8n's Retry On Fail reads exactly that as a
 * failed try and would run the node, and every paid request of the batch, again.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { exitOf } from '../exit';
import { failedItem } from '../items/shapes';
import type { FailedAt } from '../items/vocabulary';

export type { FailedAt };

export interface PaidFailure {
	failed: true;
	error: unknown;
	/** whether the request reached the gateway (it may be billed) */
	submitted: boolean;
	taskId?: string | null;
	failedAt: FailedAt;
	/** the node's own fields for the item (model, mode, partial_text, billing_status …) */
	fields?: IDataObject;
}

export function isFailure(r: INodeExecutionData | PaidFailure): r is PaidFailure {
	return (r as PaidFailure).failed === true;
}

export function failure(
	error: unknown,
	failedAt: FailedAt,
	submitted: boolean,
	extra: { taskId?: string | null; fields?: IDataObject } = {},
): PaidFailure {
	return { failed: true, error, failedAt, submitted, taskId: extra.taskId, fields: extra.fields };
}

export type ErrorMode = 'stop' | 'regular' | 'errorOutput';

/** n8n's error setting of the node: Stop Workflow, Continue (regular output), Continue (using error output). */
export function errorMode(ctx: IExecuteFunctions): ErrorMode {
	if (ctx.getNode().onError === 'continueErrorOutput') return 'errorOutput';
	return exitOf(ctx).continueOnFail() ? 'regular' : 'stop';
}

interface Described {
	message: string;
	description?: string;
	httpCode?: string;
}

export function describeFailure(
	ctx: IExecuteFunctions,
	f: PaidFailure,
	itemIndex: number,
): Described {
	const e = exitOf(ctx).error(f.error, itemIndex);
	const httpCode = (e as { httpCode?: string | null }).httpCode ?? undefined;
	return { message: e.message, description: e.description ?? undefined, httpCode };
}

/**
 * The item for a failure. Regular output: the node's fields plus `status: "failed"`, `failed_at`, `submitted`,
 * `task_id`, `error_message`, `error_description`, `http_code`, and `error` — except on the first item of a batch that
 * spent money (n8n's Retry On Fail reads `json.error` there). Error output: n8n moves an item whose JSON holds only
 * `error` there and builds it as the input item's fields plus that `error` (an item carrying an n8n error would have
 * its JSON replaced by the message), so everything — `status`, `failed_at`, `task_id`, `submitted` … — is inside `error`.
 */
export function failureItem(
	ctx: IExecuteFunctions,
	f: PaidFailure,
	itemIndex: number,
	mode: ErrorMode,
	firstOfSpentBatch: boolean,
): INodeExecutionData {
	const d = describeFailure(ctx, f, itemIndex);
	const json = failedItem(f.fields ?? {}, f.failedAt, {
		task_id: f.taskId ?? null,
		submitted: f.submitted,
		...(d.httpCode ? { http_code: d.httpCode } : {}),
		error_message: d.message,
		...(d.description ? { error_description: d.description } : {}),
	});
	if (mode === 'errorOutput') {
		const { error_message: _m, error_description: _d, ...facts } = json;
		return {
			json: {
				error: {
					message: d.message,
					...(d.description ? { description: d.description } : {}),
					...facts,
				},
			},
			pairedItem: { item: itemIndex },
		};
	}
	if (!firstOfSpentBatch) json.error = d.message;
	return { json, pairedItem: { item: itemIndex } };
}

/** "2 of 5 items failed: 1 × …; 1 × …" plus the unknown outcomes, for the execution hint. */
export function failureHint(
	ctx: IExecuteFunctions,
	total: number,
	failures: Array<{ f: PaidFailure; i: number }>,
	uncertain: number,
): string | undefined {
	const parts: string[] = [];
	if (failures.length) {
		const reasons = new Map<string, number>();
		for (const { f, i } of failures) {
			const d = describeFailure(ctx, f, i);
			const why = `${f.failedAt}: ${d.message.length > 120 ? `${d.message.slice(0, 117)}…` : d.message}`;
			reasons.set(why, (reasons.get(why) ?? 0) + 1);
		}
		const list = [...reasons.entries()].map(([why, n]) => `${n} × ${why}`).join('; ');
		const sent = failures.filter((x) => x.f.submitted).length;
		parts.push(
			`${failures.length} of ${total} item${total === 1 ? '' : 's'} failed (${list}).` +
				(sent
					? ` ${sent} of them reached the gateway and may be billed: they were not sent again.`
					: ' None of them created anything at the gateway.'),
		);
	}
	if (uncertain)
		parts.push(
			`${uncertain} item${uncertain === 1 ? "'s" : "s'"} outcome is unknown (status uncertain): check the usage records before sending again.`,
		);
	return parts.length ? parts.join(' ') : undefined;
}
