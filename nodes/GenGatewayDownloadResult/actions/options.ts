import type { IExecuteFunctions } from 'n8n-workflow';
import { InputRuleError } from '../../shared/errors';
import type { VideoResultOptions } from '../../shared/results';

export interface DownloadOptions {
	prop: string;
	urlsOnly: boolean;
	splitImages: boolean;
	video: VideoResultOptions;
}

/** The node's Options for one item (as an AI-agent tool, addresses only: an agent reads no binary). */
export function readDownloadOptions(ctx: IExecuteFunctions, i: number): DownloadOptions {
	const o = ctx.getNodeParameter('options', i, {}) as { binaryPropertyName?: string; splitImages?: boolean; urlsOnly?: boolean; maxVideoMiB?: unknown };
	const videoMiB = o.maxVideoMiB === undefined || o.maxVideoMiB === '' ? undefined : Number(o.maxVideoMiB);
	if (videoMiB !== undefined && !(Number.isFinite(videoMiB) && videoMiB > 0)) throw new InputRuleError([{ field: 'Max Video Size (MiB)', rule: `must be more than 0 (got ${JSON.stringify(o.maxVideoMiB)})` }]);
	const asTool = typeof ctx.isToolExecution === 'function' && ctx.isToolExecution();
	return {
		prop: o.binaryPropertyName || 'data',
		urlsOnly: !!o.urlsOnly || asTool,
		splitImages: !!o.splitImages,
		video: { maxBytes: videoMiB === undefined ? undefined : Math.round(videoMiB * 2 ** 20) },
	};
}
