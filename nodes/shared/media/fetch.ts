/**
 * Downloads of results, whole: a download cut mid-stream, stalled, or short of its Content-Length is a network
 * failure of a GET and is tried again with back-off within the download's time. Images are fetched into memory
 * (small, capped); videos into a file, resumed with a Range request where the host allows it, checked as MP4 while
 * they stream. When every attempt fails, a ResultDownloadError says so (the task succeeded: download it later).
 */
import { open as openFile, type FileHandle } from 'node:fs/promises';
import { GatewayHttpError, GatewayNetworkError } from '../errors';
import { BodyError, discard, secs } from '../transport/body';
import type { DownloadOptions, GatewayTransport, StreamResponse } from '../transport';
import { backoffDelay } from '../transport/retry';
import { InvalidMediaError, ResultDownloadError, ResultInvalidError } from './errors';
import { checkMp4Samples, mp4Checker } from './mp4';

export interface ResultSource {
	/** an authenticated path on a gateway origin (`/v1/videos/{id}/content`) */
	path?: string;
	/** a hosted result URL, fetched without the key */
	url?: string;
	origin?: DownloadOptions['origin'];
}

interface Attempting {
	transport: GatewayTransport;
	/** epoch ms: the whole download (every attempt and wait) ends by then */
	deadline: number;
	/** epoch ms: no new attempt starts after this (the caller's deadline; the attempt under way may finish) */
	retryUntil?: number;
	/** "image" / "video", for messages */
	what: string;
}

/** Opening the download failed after the transport's own retries (it retries GETs before the body starts). */
class OpenFailed extends Error {
	constructor(readonly cause: unknown) {
		super((cause as Error)?.message ?? String(cause));
	}
}

function open(p: Promise<StreamResponse>): Promise<StreamResponse> {
	return p.catch((err: unknown) => {
		throw new OpenFailed(err);
	});
}

/** Whether a failure is one a GET may be retried on (the network, not the file). */
function retryable(err: unknown): boolean {
	if (err instanceof BodyError) return err.retryable;
	if (err instanceof GatewayHttpError) return err.status === 429 || err.status >= 500;
	return err instanceof GatewayNetworkError && !err.cancelled;
}

/** Runs `attempt` until it succeeds, fails for good, or the time is up; network failures are retried with back-off. */
async function withRetries<T>(a: Attempting, attempt: (n: number) => Promise<T>): Promise<T> {
	const started = Date.now();
	const policy = a.transport.retryPolicy;
	for (let n = 1; ; n++) {
		try {
			return await attempt(n);
		} catch (caught) {
			const exhausted = caught instanceof OpenFailed;
			const err = exhausted ? caught.cause : caught;
			if (err instanceof GatewayNetworkError && err.cancelled) throw err;
			if (a.transport.signal?.aborted)
				throw new GatewayNetworkError('Execution cancelled', 'CANCELLED', false, true);
			if (err instanceof ResultInvalidError) throw err;
			if (err instanceof InvalidMediaError)
				throw new ResultInvalidError(`the ${a.what} is not a usable file: ${err.message}`);
			if (err instanceof BodyError && err.failure === 'TOO_LARGE')
				throw new ResultInvalidError(`the ${a.what} is too large: ${err.message}`);
			const reason = (err as Error).message;
			if (!retryable(err) && !(err instanceof BodyError && err.failure === 'DEADLINE')) {
				throw new ResultInvalidError(`the ${a.what} could not be downloaded: ${reason}`);
			}
			const delay = backoffDelay(
				n,
				policy,
				err instanceof GatewayHttpError ? err.retryAfterMs : undefined,
			);
			if (
				exhausted ||
				!retryable(err) ||
				n >= policy.maxAttempts ||
				Date.now() + delay >= Math.min(a.deadline, a.retryUntil ?? Infinity)
			) {
				throw new ResultDownloadError(
					`the ${a.what} download failed (${reason}) after ${n} attempt${n === 1 ? '' : 's'} in ${secs(Date.now() - started)}. ` +
						`The task succeeded and its result may still be available: download it later with GenGateway Download Result.`,
				);
			}
			await a.transport.sleep(delay);
		}
	}
}

const IMAGE_TYPE = /^image\//i;
const VIDEO_TYPE = /^(video\/|application\/octet-stream|binary\/octet-stream)/i;

/** An image from a hosted URL (no key), whole, at most `maxBytes`. */
export async function downloadImage(
	transport: GatewayTransport,
	url: string,
	opts: { deadline: number; retryUntil?: number; maxBytes: number },
): Promise<{ bytes: Buffer; res: StreamResponse }> {
	return withRetries(
		{ transport, deadline: opts.deadline, retryUntil: opts.retryUntil, what: 'image' },
		async () => {
			const res = await open(
				transport.download(url, {
					withKey: false,
					timeout: 'imageDownload',
					deadline: opts.deadline,
					maxDurationMs: Math.max(1, opts.deadline - Date.now()),
					maxBytes: opts.maxBytes,
				}),
			);
			if (!IMAGE_TYPE.test(res.contentType)) {
				discard(res.body);
				throw new ResultInvalidError(
					`result URL answered Content-Type "${res.contentType || 'none'}", not an image`,
				);
			}
			const chunks: Buffer[] = [];
			let total = 0;
			for await (const c of res.body) {
				chunks.push(c as Buffer);
				total += (c as Buffer).length;
			}
			if (!total) throw new ResultInvalidError('result URL answered an empty body');
			return { bytes: Buffer.concat(chunks, total), res };
		},
	);
}

/**
 * Sequential writes to a file that can be started over (truncated). Each chunk is written before the next is read
 * (one chunk in flight, no write queue), so the network's buffers can die young and be freed by V8's cheap
 * young-generation collections; a queue of chunks lets more of them outlive one (bench P3: n8n's RSS growth).
 */
class FileSink {
	private file?: FileHandle;
	private at = 0;

	constructor(private readonly path: string) {}

	/** Creates (empties) the file. */
	async open(): Promise<FileHandle> {
		return (this.file ??= await openFile(this.path, 'w'));
	}

	async write(chunk: Buffer): Promise<void> {
		const file = await this.open();
		for (let done = 0; done < chunk.length;) {
			const { bytesWritten } = await file.write(chunk, done, chunk.length - done, this.at);
			done += bytesWritten;
			this.at += bytesWritten;
		}
	}

	async restart(): Promise<void> {
		this.at = 0;
		await this.file?.truncate(0);
	}

	async close(): Promise<void> {
		const file = this.file;
		this.file = undefined;
		await file?.close();
	}
}

/** One video's download state across its tries: the bytes written, the MP4 check so far, what a resume must name. */
class VideoDownload {
	written = 0;
	resumed = 0;
	private checker = mp4Checker();
	private validator: string | undefined;
	private total: number | undefined;
	readonly sink: FileSink;

	constructor(
		private readonly transport: GatewayTransport,
		private readonly source: ResultSource,
		private readonly opts: { deadline: number; maxBytes: number },
		path: string,
	) {
		this.sink = new FileSink(path);
	}

	/** One try: the whole file, or (after a cut) the rest of it from the bytes already written. */
	async attempt(): Promise<void> {
		const res = await this.open();
		if (res.contentType && !VIDEO_TYPE.test(res.contentType)) {
			discard(res.body);
			throw new ResultInvalidError(
				`video download answered Content-Type "${res.contentType}", not a video`,
			);
		}
		if (this.written > 0) await this.resumeOrRestart(res);
		if (this.written === 0) {
			this.validator = strongValidator(res);
			this.total = res.range?.total ?? res.contentLength;
		}
		for await (const c of res.body) {
			const chunk = c as Buffer;
			this.checker.push(chunk);
			await this.sink.write(chunk);
			this.written += chunk.length;
		}
		if (this.total !== undefined && this.written !== this.total)
			throw new BodyError(
				`GET: the video ended after ${this.written} of ${this.total} bytes`,
				'TRUNCATED',
				this.written,
				this.total,
			);
	}

	/** The GET of this try: Range from the bytes written, If-Range with the file's validator. */
	private open(): Promise<StreamResponse> {
		const { transport, source, opts } = this;
		const range =
			this.written > 0
				? { start: this.written, ...(this.validator ? { ifRange: this.validator } : {}) }
				: undefined;
		const common = {
			timeout: 'videoDownload' as const,
			deadline: opts.deadline,
			maxDurationMs: Math.max(1, opts.deadline - Date.now()),
			maxBytes: opts.maxBytes,
			range,
		};
		return open(
			source.path
				? transport.download(source.path, { withKey: true, origin: source.origin, ...common })
				: transport.download(source.url!, { withKey: false, ...common }),
		);
	}

	/** After a cut: the rest continues the file (206 at our offset, same total), or the file starts over. */
	private async resumeOrRestart(res: StreamResponse): Promise<void> {
		const continues =
			res.status === 206 &&
			res.range?.start === this.written &&
			(this.total === undefined || res.range.total === undefined || res.range.total === this.total);
		if (continues) {
			this.resumed++;
			return;
		}
		if (res.status !== 206) return this.restart();
		// a range we did not ask for: start over with the whole file next time
		discard(res.body);
		await this.restart();
		throw new BodyError(
			`GET: the host answered another range (${res.range ? `${res.range.start}-${res.range.end}` : 'unreadable'}) than asked`,
			'TRUNCATED',
			0,
		);
	}

	private async restart(): Promise<void> {
		this.written = 0;
		this.checker = mp4Checker();
		await this.sink.restart();
	}

	/** The whole file's samples checked: a usable video, or ResultInvalidError saying why not. */
	async check(path: string): Promise<void> {
		try {
			await checkMp4Samples(this.checker.end(), { path });
		} catch (err) {
			if (!(err instanceof InvalidMediaError)) throw err;
			throw new ResultInvalidError(`the video is not a usable file: ${err.message}`);
		}
	}
}

/**
 * A video into the file at `path`, checked as MP4 while it streams. After a cut it asks for the rest (Range from
 * the bytes it has, If-Range with the file's ETag or Last-Modified); a host that sends the whole file again (200)
 * or another range starts it over, truncating the file. Returns the bytes written.
 */
export async function downloadVideo(
	transport: GatewayTransport,
	source: ResultSource,
	path: string,
	opts: { deadline: number; retryUntil?: number; maxBytes: number },
): Promise<{ bytes: number; resumed: number }> {
	const d = new VideoDownload(transport, source, opts, path);
	try {
		await d.sink.open();
		await withRetries(
			{ transport, deadline: opts.deadline, retryUntil: opts.retryUntil, what: 'video' },
			() => d.attempt(),
		);
	} finally {
		await d.sink.close();
	}
	await d.check(path);
	return { bytes: d.written, resumed: d.resumed };
}

/** What a Range request may name to get the rest of the same file: a strong ETag, else Last-Modified. */
function strongValidator(res: StreamResponse): string | undefined {
	const h = (name: string) => {
		const v = res.headers[name];
		return Array.isArray(v) ? v[0] : v;
	};
	const etag = h('etag');
	if (etag && !etag.startsWith('W/')) return etag;
	return h('last-modified');
}
