import type { IExecuteFunctions } from 'n8n-workflow';
import { DOWNLOAD_URL_FIELDS } from './fields';
import type { Emitted } from '../../shared/runners/free';
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

/** The file name an address gives (its last path segment without the extension), if it is a plain one. */
export function nameFromUrl(url: string): string | undefined {
	let last: string;
	try {
		last = decodeURIComponent(new URL(url).pathname.split('/').pop() ?? '');
	} catch {
		return undefined;
	}
	const stem = last.replace(/\.[A-Za-z0-9]{1,5}$/, '');
	return /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/.test(stem) ? stem : undefined;
}

/** A hosted result, fetched without the key: a video checked as MP4 while it streams, an image checked whole; named as the address names it. */
export async function downloadUrl(
	ctx: IExecuteFunctions,
	transport: GatewayTransport,
	s: UrlSource,
	o: DownloadOptions,
): Promise<Emitted[]> {
	const kind = s.video ? 'video' : 'image';
	return downloadImages(
		ctx,
		transport,
		{ kind, refs: [{ url: s.url, name: nameFromUrl(s.url) ?? kind }] },
		o,
	);
}
