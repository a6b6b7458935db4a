import type { IExecuteFunctions } from 'n8n-workflow';
import { DOWNLOAD_URL_FIELDS } from '../../shared/download/fields';
import type { Emitted } from '../../shared/runners/free';
import { storeVideoResult } from '../../shared/media/store';
import type { GatewayTransport } from '../../shared/transport';
import { readFields } from '../../shared/validate';
import { downloadImages } from './imageTask';
import type { DownloadOptions } from './options';

export interface UrlSource {
	url: string;
	video: boolean;
}

export function checkUrl(ctx: IExecuteFunctions, i: number): UrlSource {
	const { url } = readFields(DOWNLOAD_URL_FIELDS, { url: ctx.getNodeParameter('url', i) });
	return { url, video: (ctx.getNodeParameter('resultType', i) as string) === 'video' };
}

/** A hosted result, fetched without the key: a video checked as MP4 while it streams, an image checked whole. */
export async function downloadUrl(ctx: IExecuteFunctions, transport: GatewayTransport, s: UrlSource, o: DownloadOptions): Promise<Emitted | Emitted[]> {
	if (!s.video) return downloadImages(ctx, transport, { refs: [{ url: s.url }] }, o);
	if (o.urlsOnly) return { item: { json: { url: s.url } } };
	const stored = await storeVideoResult(ctx, transport, { url: s.url }, 'video', undefined, o.video);
	return { item: { json: { ...stored.meta }, binary: { [o.prop]: stored.binary } } };
}
