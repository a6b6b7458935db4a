/**
 * Downloads and validates generated results into n8n's binary store. A result is stored only when it is a
 * complete, usable file: images are checked whole before they are stored, videos are checked while they download
 * into a temporary file, which is handed to the binary store only once the whole MP4 is there and sound.
 */
import { createReadStream, type ReadStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IBinaryData, IExecuteFunctions } from 'n8n-workflow';
import { exitOf } from '../exit';
import { mib } from '../transport/body';
import { downloadImage, downloadVideo, type ResultSource } from './fetch';
import {
	InvalidMediaError,
	ResultDownloadError,
	ResultInvalidError,
	type ImageLimits,
} from './errors';
import { validateImage } from './image';
import type { ResultRef } from '../tasks/phases';
import type { GatewayTransport, OriginKind } from '../transport';

export { ResultDownloadError, ResultInvalidError };

/** Largest image accepted, downloaded or Base64. */
export const MAX_IMAGE_BYTES = 100 * 1024 * 1024;
/** Largest video accepted by default: generous (generated videos are tens of MiB), but a body cannot fill the disk. */
export const DEFAULT_MAX_VIDEO_BYTES = 2 * 1024 * 1024 * 1024;

export interface StoredResult {
	binary: IBinaryData;
	meta: {
		fileName: string;
		mimeType: string;
		bytes: number;
		width?: number;
		height?: number;
		sourceUrl?: string;
	};
}

export interface ImageResultOptions {
	/** largest image accepted, from a URL or Base64 (refused before decoding); default MAX_IMAGE_BYTES (100 MiB) */
	maxBytes?: number;
	/** the whole download, retries included; default the transport's `imageDownload` timeout (120 s) */
	maxDurationMs?: number;
	/** largest picture accepted; default 16384 px a side, 100 megapixels */
	limits?: Partial<ImageLimits>;
}

export interface VideoResultOptions {
	/** largest video accepted (declared or counted while it streams); default DEFAULT_MAX_VIDEO_BYTES (2 GiB) */
	maxBytes?: number;
	/** the whole download, retries and resumes included; default the transport's `videoDownload` timeout (180 s) */
	maxDurationMs?: number;
	/** where the video is kept while it downloads and is checked; default the system's temporary folder */
	tempDir?: string;
}

const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

/** Base64 (optionally a data: URL) decoded, its size checked before decoding. */
function decodeBase64(b64: string, maxBytes: number): Buffer {
	const comma = b64.startsWith('data:') ? b64.indexOf(',') : -1;
	const body = comma >= 0 ? b64.slice(comma + 1) : b64;
	const clean = /\s/.test(body) ? body.replace(/\s+/g, '') : body;
	const approx = Math.floor((clean.length * 3) / 4);
	if (approx > maxBytes + 2)
		throw new ResultInvalidError(
			`the Base64 result holds about ${mib(approx)}, more than the limit of ${mib(maxBytes)}; it was not decoded`,
		);
	if (!BASE64.test(clean))
		throw new ResultInvalidError('the Base64 result holds characters that are not Base64');
	const bytes = Buffer.from(
		clean,
		clean.includes('-') || clean.includes('_') ? 'base64url' : 'base64',
	);
	if (!bytes.length) throw new ResultInvalidError('Base64 result is empty');
	return bytes;
}

/** The download's own time bound: `maxDurationMs` (default: its kind's timeout) from now, retries and resumes included. */
function ownDeadline(
	transport: GatewayTransport,
	kind: 'imageDownload' | 'videoDownload',
	maxDurationMs: number | undefined,
): number {
	return (
		Date.now() + (maxDurationMs && maxDurationMs > 0 ? maxDurationMs : transport.timeouts[kind])
	);
}

/**
 * An image result from a hosted URL (fetched without the key) or Base64; stored only when it is a complete image.
 * `deadline` (as before): no new attempt starts after it; the download itself is bounded by `opts.maxDurationMs`.
 */
export async function storeImageResult(
	ctx: IExecuteFunctions,
	transport: GatewayTransport,
	ref: ResultRef,
	baseName: string,
	deadline?: number,
	opts: ImageResultOptions = {},
): Promise<StoredResult> {
	const maxBytes = opts.maxBytes ?? MAX_IMAGE_BYTES;
	let bytes: Buffer;
	if (ref.b64) bytes = decodeBase64(ref.b64, maxBytes);
	else if (ref.url)
		bytes = (
			await downloadImage(transport, ref.url, {
				deadline: ownDeadline(transport, 'imageDownload', opts.maxDurationMs),
				retryUntil: deadline,
				maxBytes,
			})
		).bytes;
	else throw new ResultInvalidError('result item has neither url nor b64_json');
	let info: Awaited<ReturnType<typeof validateImage>>;
	try {
		info = await validateImage(bytes, opts.limits);
	} catch (err) {
		if (!(err instanceof InvalidMediaError)) throw err;
		throw new ResultInvalidError(
			`result is not a usable image (${bytes.length} bytes): ${err.message}`,
		);
	}
	const fileName = `${baseName}.${info.extension}`;
	const binary = await exitOf(ctx).binary(bytes, fileName, info.mimeType);
	return {
		binary,
		meta: {
			fileName: binary.fileName ?? fileName,
			mimeType: info.mimeType,
			bytes: bytes.length,
			width: info.width,
			height: info.height,
			sourceUrl: ref.url,
		},
	};
}

/**
 * A video downloaded into a temporary file (checked as MP4 while it streams, resumed after a cut where the host
 * allows it), then streamed into the binary store. Never held whole in memory; the temporary file is always removed.
 * `deadline` (as before): no new attempt starts after it; the download itself is bounded by `opts.maxDurationMs`.
 */
export async function storeVideoResult(
	ctx: IExecuteFunctions,
	transport: GatewayTransport,
	source: { path?: string; url?: string; origin?: OriginKind },
	baseName: string,
	deadline?: number,
	opts: VideoResultOptions = {},
): Promise<StoredResult> {
	if (!source.path && !source.url)
		throw new ResultInvalidError('the video has neither a content path nor a URL');
	const maxBytes = opts.maxBytes ?? DEFAULT_MAX_VIDEO_BYTES;
	const until = ownDeadline(transport, 'videoDownload', opts.maxDurationMs);
	const dir = await mkdtemp(join(opts.tempDir ?? tmpdir(), 'gg-video-'));
	let reader: ReadStream | undefined;
	try {
		const file = join(dir, 'video.mp4');
		const got = await downloadVideo(transport, source as ResultSource, file, {
			deadline: until,
			retryUntil: deadline,
			maxBytes,
		});
		const fileName = `${baseName}.mp4`;
		reader = createReadStream(file);
		const binary = await exitOf(ctx).binary(reader, fileName, 'video/mp4');
		return {
			binary,
			meta: {
				fileName: binary.fileName ?? fileName,
				mimeType: 'video/mp4',
				bytes: got.bytes,
				sourceUrl: source.url,
			},
		};
	} finally {
		reader?.destroy();
		await rm(dir, { recursive: true, force: true });
	}
}
