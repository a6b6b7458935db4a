/** Video Create's part of the item pipeline: read and check an item, create the task once, shape the output item. */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { exitOf } from '../../shared/exit';
import type { PaidOperation } from '../../shared/runners/paid';
import type { GatewayTransport, SubmitOutcome } from '../../shared/transport';
import {
	readVideoRequest,
	submitVideo,
	videoOrigin,
	videoOutput,
	type VideoRequest,
} from './request';
import { DEFAULT_VIDEO_INTERVAL_MS } from '../../shared/tasks/wait';
import { itemOf, WaitAndEmit } from '../../shared/tasks/emit';
import { userFields } from '../../shared/items/shapes';
import { failure, type PaidFailure } from '../../shared/runners/failures';
import { deltaTokenEstimate } from '../../shared/money/cost';
import { taskSpendKey } from '../../shared/money/record';

/** The delta clip's token estimate from its duration and resolution (reference videos add tokens not counted here). */
function deltaVideoEstimate(
	req: VideoRequest,
): { tokens: number; withReferenceVideo: boolean; how: string } | undefined {
	const b = req.body;
	const seconds = Number(b.seconds ?? b.duration ?? 5);
	const resolution = String(b.resolution ?? b.size ?? '480p');
	if (!Number.isFinite(seconds) || seconds <= 0) return undefined;
	const withReferenceVideo = req.materials.some((m) => m.type === 'video');
	const tokens = deltaTokenEstimate(resolution, seconds);
	return {
		tokens,
		withReferenceVideo,
		how: `${tokens} video tokens for ${seconds} s at ${resolution}, 24 fps${withReferenceVideo ? ', plus the reference videos (not counted)' : ''}`,
	};
}

/** the longest an AI agent's call of the tool waits for its video */
export const TOOL_VIDEO_WAIT_MINUTES = 10;

/**
 * As an AI agent's tool: the task waited for (bounded), since an agent cannot use a task ID; the video's address, or
 * this item's failure (the task was paid), never a success item saying "failed".
 */
async function waitAsTool(
	waiterOf: () => WaitAndEmit,
	origin: ReturnType<typeof videoOrigin>,
	req: VideoRequest,
	json: IDataObject & { task_id: string },
): Promise<INodeExecutionData | PaidFailure> {
	const waited = await waiterOf().run(
		{
			index: 0,
			taskId: json.task_id,
			kind: 'video',
			origin: origin.origin,
			deadline: Date.now() + TOOL_VIDEO_WAIT_MINUTES * 60_000,
			videoIntervalMs: DEFAULT_VIDEO_INTERVAL_MS,
		},
		{ binaryProperty: 'data', download: false, model: req.model, family: req.family },
	);
	const facts = userFields(json);
	if (waited.state === 'failed' && !waited.uncertain)
		return failure(waited.failure.error, waited.failure.failedAt, true, {
			taskId: json.task_id,
			fields: { ...facts, ...waited.fields },
		});
	return itemOf(waited, facts);
}

/** Each hint once per execution. */
function onceHinter(ctx: IExecuteFunctions): (message: string | undefined) => void {
	const hinted = new Set<string>();
	return (message) => {
		if (!message || hinted.has(message)) return;
		hinted.add(message);
		exitOf(ctx).hint(message);
	};
}

/** Video Create's operation in the paid pipeline: check, price (a delta clip by its estimate), send once, finish. */
export function videoOperation(
	ctx: IExecuteFunctions,
	transport: GatewayTransport,
): PaidOperation<VideoRequest, SubmitOutcome> {
	const origin = videoOrigin(transport);
	const asTool = typeof ctx.isToolExecution === 'function' && ctx.isToolExecution();
	let waiter: WaitAndEmit | undefined;
	const waiterOf = () => (waiter ??= new WaitAndEmit(ctx, transport));
	const hint = onceHinter(ctx);
	return {
		prepare: (i) => readVideoRequest(ctx, i, transport),
		async beforeSend(prepared) {
			for (const req of prepared) req?.hints.forEach(hint);
		},
		pricedAs: (req) => ({
			model: req.model,
			calls: 1,
			video: req.family === 'delta' ? deltaVideoEstimate(req) : undefined,
		}),
		// a delta video's spend is recorded by its task: Task Wait's settled fee replaces the estimate
		spendKeyOf: (out) => {
			const id = out.kind === 'accepted' ? out.taskId : undefined;
			return id && origin.origin ? taskSpendKey(origin.origin, id) : undefined;
		},
		quoteFields: (req) => ({
			family: req.family,
			model: req.model,
			prompt: typeof req.body.prompt === 'string' ? req.body.prompt : null,
		}),
		send: (req) => submitVideo(transport, req),
		taskIdOf: (out) => (out.kind === 'accepted' ? out.taskId : undefined),
		async finish(req, out) {
			const json = videoOutput(req, origin, out);
			if (!asTool || json.submission_uncertain === true || typeof json.task_id !== 'string')
				return { json };
			return waitAsTool(waiterOf, origin, req, { ...json, task_id: json.task_id });
		},
	};
}
