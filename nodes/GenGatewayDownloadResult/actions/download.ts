import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { createTransport } from '../../shared/credentials';
import { completedItem } from '../../shared/items/shapes';
import { runFreeItems } from '../../shared/runners/free';
import { DOWNLOAD_CONCURRENCY } from '../../shared/tasks/emit';
import { checkImageTask, downloadImages, type ImageSource } from './imageTask';
import { readDownloadOptions, type DownloadOptions } from './options';
import { checkUrl, downloadUrl, type UrlSource } from './url';
import { checkVideoTask, downloadVideoTask, type VideoTaskSource } from './videoTask';

type Checked = { o: DownloadOptions } & ({ source: 'videoTask'; s: VideoTaskSource } | { source: 'url'; s: UrlSource } | { source: 'imageTask'; s: ImageSource });

/** Download Result: each item's source (image task object, video task ID or URL) downloaded and checked whole. */
export async function downloadResults(ctx: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const transport = await createTransport(ctx);
	return runFreeItems<Checked>(ctx, transport, {
		concurrency: () => DOWNLOAD_CONCURRENCY,
		failedAt: 'download',
		check(i) {
			const source = ctx.getNodeParameter('source', i) as string;
			const o = readDownloadOptions(ctx, i);
			if (source === 'videoTask') return { o, source, s: checkVideoTask(ctx, i) };
			if (source === 'url') return { o, source, s: checkUrl(ctx, i) };
			return { o, source: 'imageTask', s: checkImageTask(ctx, i) };
		},
		async run(c) {
			const out = c.source === 'videoTask' ? await downloadVideoTask(ctx, transport, c.s, c.o) : c.source === 'url' ? await downloadUrl(ctx, transport, c.s, c.o) : await downloadImages(ctx, transport, c.s, c.o);
			return (Array.isArray(out) ? out : [out]).map((e) => ({ ...e, item: { ...e.item, json: completedItem(e.item.json) } }));
		},
	});
}
