/** Downloads and validates generated results into n8n's binary store. */
import { PassThrough, type Readable } from 'node:stream';
import type { IBinaryData, IExecuteFunctions } from 'n8n-workflow';
import { hasMp4Signature, sniffImage } from './binary';
import type { ResultRef } from './status';
import type { GatewayTransport, OriginKind } from './transport/http';

export const MAX_IMAGE_BYTES = 100 * 1024 * 1024;

export class ResultInvalidError extends Error {
	constructor(message: string) {
		super(message);
		this.name = 'ResultInvalidError';
	}
}

export interface StoredResult {
	binary: IBinaryData;
	meta: { fileName: string; mimeType: string; bytes: number; width?: number; height?: number; sourceUrl?: string };
}

async function readCapped(body: Readable, cap: number): Promise<Buffer> {
	const chunks: Buffer[] = [];
	let total = 0;
	for await (const c of body) {
		total += (c as Buffer).length;
		if (total > cap) {
			body.destroy();
			throw new ResultInvalidError(`result is larger than ${cap / 1048576} MiB`);
		}
		chunks.push(c as Buffer);
	}
	return Buffer.concat(chunks);
}

/** An image result from a hosted URL (fetched without the key) or Base64; checked to be a real image. */
export async function storeImageResult(ctx: IExecuteFunctions, transport: GatewayTransport, ref: ResultRef, baseName: string, deadline?: number): Promise<StoredResult> {
	let bytes: Buffer;
	if (ref.b64) {
		const clean = ref.b64.replace(/^data:[^;]+;base64,/, '');
		bytes = Buffer.from(clean, 'base64');
		if (!bytes.length) throw new ResultInvalidError('Base64 result is empty');
	} else if (ref.url) {
		const res = await transport.download(ref.url, { withKey: false, timeout: 'imageDownload', deadline });
		if (!/^image\//i.test(res.contentType)) {
			res.body.destroy();
			throw new ResultInvalidError(`result URL answered Content-Type "${res.contentType || 'none'}", not an image`);
		}
		const read = await readCapped(res.body, MAX_IMAGE_BYTES).then(
			(b) => ({ bytes: b }),
			(err: Error) => ({ error: err instanceof ResultInvalidError ? err : new ResultInvalidError(`download of the result was cut off: ${err.message}`) }),
		);
		if ('error' in read) throw read.error;
		bytes = read.bytes;
		if (res.contentLength !== undefined && bytes.length !== res.contentLength) {
			throw new ResultInvalidError(`download truncated: ${bytes.length} of ${res.contentLength} bytes`);
		}
		if (!bytes.length) throw new ResultInvalidError('result URL answered an empty body');
	} else {
		throw new ResultInvalidError('result item has neither url nor b64_json');
	}
	const info = sniffImage(bytes);
	if (!info) throw new ResultInvalidError(`result is not a decodable image (${bytes.length} bytes${looksLikeHtml(bytes) ? ', looks like HTML' : ''})`);
	const fileName = `${baseName}.${info.extension}`;
	const binary = await ctx.helpers.prepareBinaryData(bytes, fileName, info.mimeType);
	return { binary, meta: { fileName, mimeType: info.mimeType, bytes: bytes.length, width: info.width, height: info.height, sourceUrl: ref.url } };
}

function looksLikeHtml(b: Buffer): boolean {
	const head = b.subarray(0, 64).toString('utf8').trimStart().toLowerCase();
	return head.startsWith('<!doctype') || head.startsWith('<html');
}

/**
 * A video streamed into the binary store, never held whole in memory: the first bytes must be an
 * MP4 `ftyp` box and the byte count must match Content-Length.
 */
export async function storeVideoResult(
	ctx: IExecuteFunctions,
	transport: GatewayTransport,
	source: { path?: string; url?: string; origin?: OriginKind },
	baseName: string,
	deadline?: number,
): Promise<StoredResult> {
	const res = source.path
		? await transport.download(source.path, { withKey: true, origin: source.origin, timeout: 'videoDownload', deadline })
		: await transport.download(source.url!, { withKey: false, timeout: 'videoDownload', deadline });
	if (res.contentType && !/^(video\/|application\/octet-stream|binary\/octet-stream)/i.test(res.contentType)) {
		res.body.destroy();
		throw new ResultInvalidError(`video download answered Content-Type "${res.contentType}", not a video`);
	}
	const out = new PassThrough();
	// the failure is reported from here; the binary store only needs to see the stream end early
	out.on('error', () => undefined);
	let seen = 0;
	let head = Buffer.alloc(0);
	let checked = false;
	let failure: Error | undefined;
	const fail = (err: Error) => {
		failure ??= err;
		res.body.destroy();
		out.destroy(failure);
	};
	res.body.on('data', (chunk: Buffer) => {
		seen += chunk.length;
		if (!checked) {
			head = Buffer.concat([head, chunk]);
			if (head.length < 8) return;
			checked = true;
			if (!hasMp4Signature(head)) return fail(new ResultInvalidError('video download is not an MP4 (no ftyp box at the start)'));
			if (!out.write(head)) res.body.pause();
			return;
		}
		if (!out.write(chunk)) res.body.pause();
	});
	out.on('drain', () => res.body.resume());
	res.body.on('error', (err) => fail(new ResultInvalidError(`video download was cut off after ${seen} bytes: ${err.message}`)));
	res.body.on('end', () => {
		if (!checked) return fail(new ResultInvalidError(seen ? 'video download is too short to be an MP4' : 'video download is empty'));
		if (res.contentLength !== undefined && seen !== res.contentLength) {
			return fail(new ResultInvalidError(`video download truncated: ${seen} of ${res.contentLength} bytes`));
		}
		out.end();
	});
	const fileName = `${baseName}.mp4`;
	let binary: IBinaryData;
	try {
		binary = await ctx.helpers.prepareBinaryData(out, fileName, 'video/mp4');
	} catch (err) {
		throw failure ?? err;
	}
	if (failure) throw failure;
	return { binary, meta: { fileName, mimeType: 'video/mp4', bytes: seen, sourceUrl: source.url } };
}
