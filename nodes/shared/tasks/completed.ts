/**
 * A completed task's results: its images or video stored as validated binaries (downloaded and checked whole) or, when
 * not downloading, their addresses; for a delta video its usage and settled fee. Its item: `completedResult`.
 */
import type { IBinaryData, IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { partialImagesWarning } from '../items/shapes';
import { storeImageResult, storeVideoResult, type StoredResult } from '../media/store';
import { settleVideo, type Settled } from '../money/settle';
import type { GatewayTransport } from '../transport';
import { storeDeltaVideo } from '../video/content';
import type { NormalisedTask } from './phases';
import { propName, type EmitOptions, type TaskResult } from './result';
import { DEFAULT_VIDEO_INTERVAL_MS, type WaitJob, type WaitOutcome } from './wait';

/**
 * The delta-video fee and cost from the task's usage: `settled` at the key's multiplier when the user gave it, else
 * labelled `at_multiplier_1`. Never a failure of the item (its video is delivered): a fee that cannot be computed says why.
 */
async function feeOf(
	transport: GatewayTransport,
	raw: Record<string, unknown>,
	opts: EmitOptions,
): Promise<Settled | { fee: IDataObject }> {
	try {
		return await settleVideo(transport, raw, {
			model: opts.model,
			withReferenceVideo: opts.withReferenceVideo,
			group: opts.group ?? {},
		});
	} catch (err) {
		return { fee: { status: 'not_computed', reason: (err as Error).message } };
	}
}

/** The files of a completed task, stored (validated binaries) when downloading, else their addresses. */
export interface Stored {
	files: IDataObject[];
	binary: Record<string, IBinaryData>;
}

/** A completed image task's images: each downloaded and decoded, or (no download) its address. */
export async function storeImages(
	ctx: IExecuteFunctions,
	transport: GatewayTransport,
	job: WaitJob,
	task: NormalisedTask,
	opts: EmitOptions,
): Promise<Stored> {
	const out: Stored = { files: [], binary: {} };
	for (const [k, ref] of task.results.entries()) {
		if (!opts.download) {
			out.files.push({ url: ref.url ?? null, has_b64: !!ref.b64 });
			continue;
		}
		// a download under way outlives a Max Wait window, not the task's overall deadline (nor the image download timeout)
		const untilFinal = Math.max(1, (job.finalDeadline ?? job.deadline) - Date.now());
		const stored: StoredResult = await storeImageResult(
			ctx,
			transport,
			ref,
			`${job.taskId}${k ? `_${k}` : ''}`,
			job.deadline,
			{ maxDurationMs: Math.min(untilFinal, transport.timeouts.imageDownload) },
		);
		out.binary[propName(opts.binaryProperty, k)] = stored.binary;
		out.files.push({ ...stored.meta, binaryProperty: propName(opts.binaryProperty, k) });
	}
	return out;
}

/** A completed video task's video: downloaded and checked as MP4 (gamma by its URL, delta from /content), or its address. */
export async function storeVideo(
	ctx: IExecuteFunctions,
	transport: GatewayTransport,
	job: WaitJob,
	task: NormalisedTask,
	opts: EmitOptions,
): Promise<Stored> {
	const family = opts.family ?? job.family;
	if (family === 'gamma' && !task.results[0]?.url)
		throw new Error('video task completed without a result URL');
	if (!opts.download)
		return {
			files: [
				{
					url: task.results[0]?.url ?? null,
					content_path: family === 'gamma' ? null : `/v1/videos/${job.taskId}/content`,
				},
			],
			binary: {},
		};
	const stored =
		family === 'gamma'
			? await storeVideoResult(
					ctx,
					transport,
					{ url: task.results[0]?.url },
					job.taskId,
					job.deadline + 10 * 60_000,
					{ maxBytes: opts.maxVideoBytes },
				)
			: await storeDeltaVideo(
					ctx,
					transport,
					{
						taskId: job.taskId,
						origin: job.origin,
						deadline: job.deadline,
						intervalMs: job.videoIntervalMs ?? DEFAULT_VIDEO_INTERVAL_MS,
					},
					{ maxBytes: opts.maxVideoBytes },
				);
	return {
		files: [{ ...stored.meta, binaryProperty: opts.binaryProperty }],
		binary: { [opts.binaryProperty]: stored.binary },
	};
}

/** A completed task's item: its files, and for a delta video its usage and settled fee (the spend record's entry). */
export async function completedResult(
	transport: GatewayTransport,
	job: WaitJob,
	outcome: Extract<WaitOutcome, { state: 'completed' }>,
	opts: EmitOptions,
	common: IDataObject,
	{ files, binary }: Stored,
): Promise<TaskResult> {
	const task = outcome.task;
	const fields: IDataObject = {
		...common,
		files,
		request_id: task.requestId ?? null,
		billing_status: task.billingStatus ?? null,
	};
	const done = {
		state: 'completed' as const,
		fields,
		gatewayStatus: task.rawStatus ?? null,
		...(Object.keys(binary).length ? { binary } : {}),
	};
	if (job.kind === 'image')
		Object.assign(fields, partialImagesWarning(opts.imagesExpected, files.length));
	if (job.kind !== 'video') return done;
	fields.progress = task.progress ?? 100;
	fields.usage = (task.usage as IDataObject) ?? null;
	if ((opts.family ?? job.family) !== 'delta' || !opts.model) return done;
	const settled = await feeOf(transport, outcome.raw, opts);
	fields.fee = settled.fee;
	if (!('cost' in settled)) return done;
	fields.cost = settled.cost;
	return {
		...done,
		settled: { taskId: job.taskId, origin: job.origin, entry: settled.entry, cost: settled.cost },
	};
}
