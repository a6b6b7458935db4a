import type { IExecuteFunctions } from 'n8n-workflow';
import { DOWNLOAD_OPTION_FIELDS } from './fields';
import type { VideoResultOptions } from '../../shared/media/store';
import { readFields } from '../../shared/validate';

/** how long a task looked up and not finished is queried by default */
export const DEFAULT_WAIT_SECONDS = 30;

export interface DownloadOptions {
	prop: string;
	urlsOnly: boolean;
	splitImages: boolean;
	video: VideoResultOptions;
	/** a task looked up and not finished: queried until it ends, for at most this long */
	waitMs: number;
}

/** The node's Options for one item (as an AI-agent tool, addresses only: an agent reads no binary). */
export function readDownloadOptions(ctx: IExecuteFunctions, i: number): DownloadOptions {
	const o = ctx.getNodeParameter('options', i, {}) as {
		binaryPropertyName?: string;
		splitImages?: unknown;
		urlsOnly?: unknown;
		maxVideoMiB?: unknown;
		waitSeconds?: unknown;
	};
	const checked = readFields(DOWNLOAD_OPTION_FIELDS, {
		maxVideoMiB: o.maxVideoMiB,
		waitSeconds: o.waitSeconds,
		splitImages: o.splitImages,
		urlsOnly: o.urlsOnly,
	});
	const videoMiB = checked.maxVideoMiB;
	const asTool = typeof ctx.isToolExecution === 'function' && ctx.isToolExecution();
	return {
		prop: o.binaryPropertyName || 'data',
		urlsOnly: checked.urlsOnly === true || asTool,
		splitImages: checked.splitImages === true,
		video: { maxBytes: videoMiB === undefined ? undefined : Math.round(videoMiB * 2 ** 20) },
		waitMs: (checked.waitSeconds ?? DEFAULT_WAIT_SECONDS) * 1000,
	};
}
