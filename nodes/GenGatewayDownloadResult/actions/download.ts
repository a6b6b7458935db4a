import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { createTransport } from '../../shared/credentials';
import { completedItem } from '../../shared/items/shapes';
import { runFreeItems } from '../../shared/runners/free';
import { DOWNLOAD_CONCURRENCY, WaitAndEmit } from '../../shared/tasks/emit';
import { checkImageTask, downloadImages, type ItemSource } from './imageTask';
import { readDownloadOptions, type DownloadOptions } from './options';
import { checkUrl, downloadUrl, type UrlSource } from './url';
import { checkVideoTask, downloadVideoTask } from './videoTask';

type Checked = { o: DownloadOptions } & (ItemSource | { via: 'url'; s: UrlSource });

/**
 * Download Result: each item's source — an item of the package's nodes or a task object (its files, or its task looked
 * up), a task ID, or a URL — downloaded and checked whole.
 */
export async function downloadResults(ctx: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const transport = await createTransport(ctx);
	let waiter: WaitAndEmit | undefined;
	const out = await runFreeItems<Checked>(ctx, transport, {
		concurrency: () => DOWNLOAD_CONCURRENCY,
		failedAt: 'download',
		check(i) {
			const source = ctx.getNodeParameter('source', i) as string;
			const o = readDownloadOptions(ctx, i);
			if (source === 'videoTask') return { o, via: 'task', s: checkVideoTask(ctx, i) };
			if (source === 'url') return { o, via: 'url', s: checkUrl(ctx, i) };
			return { o, ...checkImageTask(ctx, i) };
		},
		async run(c, i) {
			const out =
				c.via === 'task'
					? await downloadVideoTask(
							transport,
							(waiter ??= new WaitAndEmit(ctx, transport)),
							c.s,
							c.o,
							i,
						)
					: c.via === 'url'
						? await downloadUrl(ctx, transport, c.s, c.o)
						: await downloadImages(ctx, transport, c.s, c.o);
			return out.map((e) => ({ ...e, item: { ...e.item, json: completedItem(e.item.json) } }));
		},
		taskIdOf(i) {
			const source = ctx.getNodeParameter('source', i);
			if (source === 'videoTask') return ctx.getNodeParameter('taskId', i, '') as string;
			const task =
				source === 'imageTask'
					? (ctx.getNodeParameter('task', i, {}) as Record<string, unknown>)
					: undefined;
			return (task?.task_id ?? ctx.getInputData()[i]?.json.task_id) as string | undefined;
		},
	});
	// how long an unfinished task was waited for, in the node's hint
	(waiter as WaitAndEmit | undefined)?.finish();
	return out;
}
