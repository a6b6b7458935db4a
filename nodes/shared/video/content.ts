/**
 * A finished delta video from `/v1/videos/{id}/content`. The spec: "A failed download of a delta video can be retried
 * on the content endpoint" and "with an ID and a failed query or download, keep querying or downloading the same
 * task". So a 4xx from `/content` is tried again, with back-off, until the wait's deadline; when that ends, a
 * ResultDownloadError says to download it later (the paid video is not given up as unusable).
 */
import type { IExecuteFunctions } from 'n8n-workflow';
import { GatewayHttpError } from '../errors';
import {
	ResultDownloadError,
	storeVideoResult,
	type StoredResult,
	type VideoResultOptions,
} from '../media/store';
import type { GatewayTransport, OriginKind } from '../transport';
import { backoffDelay, DEFAULT_RETRY } from '../transport/retry';

export interface DeltaContentJob {
	taskId: string;
	origin: OriginKind;
	/** epoch ms: no new attempt after a 4xx starts after this */
	deadline: number;
	/** the shortest pause between attempts after a 4xx (the video query interval) */
	intervalMs: number;
}

const is4xx = (status: number | undefined): status is number =>
	status !== undefined && status >= 400 && status < 500 && status !== 429;

export async function storeDeltaVideo(
	ctx: IExecuteFunctions,
	transport: GatewayTransport,
	job: DeltaContentJob,
	opts: VideoResultOptions = {},
): Promise<StoredResult> {
	const path = `/v1/videos/${job.taskId}/content`;
	let status: number | undefined;
	// the download layer reports a 4xx only as an unusable file; its status is read from the transport's own error
	const watched: GatewayTransport = Object.create(transport);
	watched.download = (target, o) =>
		transport.download(target, o).catch((err: unknown) => {
			if (err instanceof GatewayHttpError) status = err.status;
			throw err;
		});
	for (let attempt = 1; ; attempt++) {
		status = undefined;
		try {
			return await storeVideoResult(
				ctx,
				watched,
				{ path, origin: job.origin },
				job.taskId,
				job.deadline + 10 * 60_000,
				opts,
			);
		} catch (err) {
			if (err instanceof ResultDownloadError || !is4xx(status)) throw err;
			const wait = Math.max(job.intervalMs, backoffDelay(attempt, DEFAULT_RETRY));
			if (Date.now() + wait >= job.deadline) {
				throw new ResultDownloadError(
					`the video's content endpoint answered HTTP ${status} ` +
						`(${(err as Error).message}) on ${attempt} attempt${attempt === 1 ? '' : 's'} ` +
						`until the wait's deadline. ` +
						'The task completed and its video may still be there: download it later on the content endpoint with this task_id (GenGateway Download Result).',
				);
			}
			await transport.sleep(wait);
		}
	}
}
