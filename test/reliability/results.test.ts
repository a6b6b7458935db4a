/**
 * Results into n8n's binary store (in-process n8n, filesystem mode): only complete, usable files are stored;
 * a download cut mid-stream is tried again (videos resumed with Range where the host allows it, restarted where
 * not) within the download's time; when it keeps failing the error says the task succeeded and to download later;
 * an endless video stops at its size limit; temporary files never stay behind.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import {
	storeImageResult,
	storeVideoResult,
	ResultDownloadError,
	ResultInvalidError,
	type StoredResult,
} from '../../nodes/shared/media/store';
import type { GatewayTransport } from '../../nodes/shared/transport';
import { mp4Stream } from '../../simulator/media/mp4';
import { cleanupBinaryData, initBinaryData, runWorkflow } from '../harness/workflow';
import { startServer, transportFor, withoutProxyEnv, type TestServer } from '../transport/support';

let host: TestServer;
let gw: TestServer;
let png: Buffer;
let video: Buffer;
let temp: string;
let store: string;
beforeAll(async () => {
	withoutProxyEnv();
	[host, gw] = await Promise.all([startServer(), startServer()]);
	png = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#c84' } })
		.png()
		.toBuffer();
	const chunks: Buffer[] = [];
	for await (const c of mp4Stream(3 * 1024 * 1024, 5).stream) chunks.push(c as Buffer);
	video = Buffer.concat(chunks);
	store = await initBinaryData();
});
afterAll(async () => {
	await Promise.all([host.close(), gw.close()]);
	cleanupBinaryData();
});
beforeEach(() => {
	temp = mkdtempSync(join(tmpdir(), 'gg-results-test-'));
});
afterEach(() => {
	// whatever happened, the video's temporary folder is gone
	expect(readdirSync(temp)).toEqual([]);
	rmSync(temp, { recursive: true, force: true });
});

type Run = (ctx: IExecuteFunctions, t: GatewayTransport) => Promise<StoredResult>;

/** Runs `fn` inside a real n8n node execution; returns what it stored (and the bytes) or the error it threw. */
async function inNode(
	fn: Run,
	transport = transportFor(gw.origin),
): Promise<{ stored?: StoredResult; bytes?: Buffer; error?: Error }> {
	let error: Error | undefined;
	class Probe implements INodeType {
		description: INodeTypeDescription = {
			displayName: 'Probe',
			name: 'probe',
			group: ['transform'],
			version: 1,
			description: '',
			defaults: { name: 'Probe' },
			inputs: ['main'],
			outputs: ['main'],
			properties: [],
		};
		async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
			try {
				const stored = await fn(this, transport);
				return [[{ json: { meta: stored.meta } as never, binary: { data: stored.binary } }]];
			} catch (err) {
				error = err as Error;
				return [[{ json: {} }]];
			}
		}
	}
	const r = await runWorkflow({ nodes: [{ name: 'Probe', type: new Probe() }] });
	if (error) return { error };
	const item = r.output('Probe')[0];
	return {
		stored: { binary: item.binary!.data, meta: item.json.meta as never },
		bytes: await r.binaryBuffer(item),
	};
}

const serve =
	(body: Buffer, type: string, extra: Record<string, string | number> = {}) =>
	(_req: IncomingMessage, res: ServerResponse) => {
		res.writeHead(200, { 'content-type': type, 'content-length': body.length, ...extra });
		res.end(body);
	};

/** Sends the first `n` bytes (announcing the whole length), then resets the connection. */
const cutAfter =
	(body: Buffer, n: number, type: string) => (req: IncomingMessage, res: ServerResponse) => {
		res.writeHead(200, {
			'content-type': type,
			'content-length': body.length,
			etag: '"v1"',
			'accept-ranges': 'bytes',
		});
		res.write(body.subarray(0, n), () => setTimeout(() => req.socket.destroy(), 10));
	};

/** A host honouring `Range: bytes=N-` (206 with Content-Range), like a CDN. */
const ranged = (body: Buffer, type: string, req: IncomingMessage, res: ServerResponse) => {
	const m = /^bytes=(\d+)-$/.exec(String(req.headers.range ?? ''));
	if (!m) return serve(body, type, { etag: '"v1"', 'accept-ranges': 'bytes' })(req, res);
	const start = Number(m[1]);
	res.writeHead(206, {
		'content-type': type,
		'content-length': body.length - start,
		'content-range': `bytes ${start}-${body.length - 1}/${body.length}`,
		etag: '"v1"',
	});
	res.end(body.subarray(start));
};

const image = (url: string, opts = {}) =>
	inNode((ctx, t) => storeImageResult(ctx, t, { url }, 'img', undefined, opts));
const b64 = (b: string, opts = {}) =>
	inNode((ctx, t) => storeImageResult(ctx, t, { b64: b }, 'img', undefined, opts));
const videoAt = (path: string, opts = {}) =>
	inNode((ctx, t) =>
		storeVideoResult(ctx, t, { path }, 'vid', undefined, { tempDir: temp, ...opts }),
	);

describe('images: only complete files are stored', () => {
	it('a complete PNG is stored with its real size', async () => {
		host.reset(serve(png, 'image/png'));
		const r = await image(host.url('/r/a.png'));
		expect(r.stored?.meta).toMatchObject({
			mimeType: 'image/png',
			width: 64,
			height: 48,
			bytes: png.length,
		});
		expect(r.bytes!.equals(png)).toBe(true);
	});

	it('a PNG cut to 60% and served with a matching Content-Length is not a success', async () => {
		host.reset(serve(png.subarray(0, Math.floor(png.length * 0.6)), 'image/png'));
		const r = await image(host.url('/r/a.png'));
		expect(r.error).toBeInstanceOf(ResultInvalidError);
		expect(r.error!.message).toMatch(/not a usable image .*cut short/);
	});

	it('a PNG signature + IHDR (33 bytes, 100000x100000) is not a success', async () => {
		host.reset(serve(Buffer.from(png.subarray(0, 33)).fill(0xa0, 16, 24), 'image/png'));
		const r = await image(host.url('/r/a.png'));
		expect(r.error).toBeInstanceOf(ResultInvalidError);
	});

	it('b64_json with junk after a valid header is not a success; neither is a JPEG without scan data', async () => {
		const junk = Buffer.concat([png.subarray(0, 60), Buffer.from('x'.repeat(500))]).toString(
			'base64',
		);
		expect((await b64(junk)).error?.message).toMatch(/not a usable image/);
		const jpeg = await sharp({ create: { width: 16, height: 16, channels: 3, background: '#000' } })
			.jpeg()
			.toBuffer();
		const sos = jpeg.indexOf(Buffer.from([0xff, 0xda]));
		const noScan = Buffer.concat([
			jpeg.subarray(0, sos + 2 + jpeg.readUInt16BE(sos + 2)),
			Buffer.from([0xff, 0xd9]),
		]);
		expect((await b64(noScan.toString('base64'))).error?.message).toMatch(
			/scan without image data/,
		);
	});

	it('b64_json larger than the cap is refused before it is decoded', async () => {
		const big = Buffer.alloc(3 * 1024 * 1024).toString('base64');
		const r = await b64(big, { maxBytes: 1024 * 1024 });
		expect(r.error?.message).toMatch(
			/holds about 3 MiB, more than the limit of 1 MiB; it was not decoded/,
		);
		expect((await b64('@@@@notbase64')).error?.message).toMatch(/not Base64/);
		expect((await b64(`data:image/png;base64,${png.toString('base64')}`)).stored?.meta.width).toBe(
			64,
		);
	});

	it('a download cut mid-stream is tried again and succeeds', async () => {
		host.reset((req, res, _s, i) =>
			i === 0 ? cutAfter(png, 40, 'image/png')(req, res) : serve(png, 'image/png')(req, res),
		);
		const r = await image(host.url('/r/a.png'));
		expect(r.error).toBeUndefined();
		expect(r.bytes!.equals(png)).toBe(true);
		expect(host.seen).toHaveLength(2);
	});

	it('a download that keeps being cut fails saying the task succeeded and to download it later', async () => {
		host.reset(cutAfter(png, 40, 'image/png'));
		const r = await image(host.url('/r/a.png'));
		expect(r.error).toBeInstanceOf(ResultDownloadError);
		expect(r.error!.message).toMatch(
			/^the image download failed \(.*\) after 6 attempts in .*The task succeeded .*download it later with GenGateway Download Result/,
		);
	});

	it("the caller's deadline (e.g. Task Wait's wait window) stops new attempts, not the one under way", async () => {
		host.reset(serve(png, 'image/png'));
		const past = await inNode((ctx, t) =>
			storeImageResult(ctx, t, { url: host.url('/r/a.png') }, 'img', Date.now() - 1000),
		);
		expect(past.error).toBeUndefined();
		host.reset(cutAfter(png, 40, 'image/png'));
		const cut = await inNode((ctx, t) =>
			storeImageResult(ctx, t, { url: host.url('/r/a.png') }, 'img', Date.now() - 1000),
		);
		expect(cut.error).toBeInstanceOf(ResultDownloadError);
		expect(cut.error!.message).toMatch(/after 1 attempt in/);
		expect(host.seen).toHaveLength(1);
	});

	it("a host dripping a byte at a time fails at the download's max duration", async () => {
		let sent = 0;
		host.reset((req, res) => {
			res.writeHead(200, { 'content-type': 'image/png', 'content-length': png.length });
			const t = setInterval(() => res.write(png.subarray(sent, ++sent)), 50);
			req.socket.on('close', () => clearInterval(t));
		});
		const r = await image(host.url('/r/a.png'), { maxDurationMs: 700 });
		expect(r.error).toBeInstanceOf(ResultDownloadError);
		expect(r.error!.message).toMatch(/time limit/);
		// bytes, not a stopwatch: a byte per 50 ms gives at most 15 in 0.7 s (a busy machine sends fewer)
		expect(sent).toBeLessThanOrEqual(16);
	});

	it('HTML served as text/html is refused without reading it (and without an unhandled error)', async () => {
		host.reset(serve(Buffer.from('<html>' + 'x'.repeat(100000) + '</html>'), 'text/html'));
		const r = await image(host.url('/r/a.png'));
		expect(r.error?.message).toMatch(/Content-Type "text\/html", not an image/);
	});
});

describe('videos: into a temporary file, checked, then stored', () => {
	it('a complete MP4 is stored, byte for byte', async () => {
		gw.reset(serve(video, 'video/mp4'));
		const r = await videoAt('/v1/videos/t1/content');
		expect(r.error).toBeUndefined();
		expect(r.stored?.meta).toMatchObject({
			mimeType: 'video/mp4',
			bytes: video.length,
			fileName: 'vid.mp4',
		});
		expect(r.bytes!.equals(video)).toBe(true);
		expect(gw.seen[0].headers.authorization).toMatch(/^Bearer /);
	});

	it('/content reset mid-stream on a host that honours Range: resumed from where it broke off, stored whole', async () => {
		gw.reset((req, res, _s, i) =>
			i === 0
				? cutAfter(video, 1024 * 1024 + 5, 'video/mp4')(req, res)
				: ranged(video, 'video/mp4', req, res),
		);
		const r = await videoAt('/v1/videos/t1/content');
		expect(r.error).toBeUndefined();
		expect(r.bytes!.equals(video)).toBe(true);
		expect(gw.seen).toHaveLength(2);
		const written = Number(/^bytes=(\d+)-$/.exec(String(gw.seen[1].headers.range))![1]);
		expect(written).toBeGreaterThan(0);
		expect(written).toBeLessThanOrEqual(1024 * 1024 + 5);
		expect(gw.seen[1].headers['if-range']).toBe('"v1"');
	});

	it('a host that ignores Range (200 again): started over, the file stored once, not doubled', async () => {
		gw.reset((req, res, _s, i) =>
			i === 0
				? cutAfter(video, 700_000, 'video/mp4')(req, res)
				: serve(video, 'video/mp4')(req, res),
		);
		const r = await videoAt('/v1/videos/t1/content');
		expect(r.error).toBeUndefined();
		expect(r.stored?.meta.bytes).toBe(video.length);
		expect(r.bytes!.equals(video)).toBe(true);
	});

	it('a video that keeps being cut: ResultDownloadError (task succeeded, download later), nothing stored', async () => {
		const filesBefore = countFiles(store);
		gw.reset(cutAfter(video, 100_000, 'video/mp4'));
		const r = await videoAt('/v1/videos/t1/content');
		expect(r.error).toBeInstanceOf(ResultDownloadError);
		expect(r.error!.message).toMatch(/The task succeeded .*GenGateway Download Result/);
		expect(countFiles(store)).toBe(filesBefore);
	});

	it('an endless video stops at the size limit: the disk is not filled, nothing stored', async () => {
		const filesBefore = countFiles(store);
		gw.reset((req, res) => {
			res.writeHead(200, { 'content-type': 'video/mp4' });
			res.write(video.subarray(0, 200));
			const chunk = Buffer.alloc(256 * 1024, 0x2a);
			let gone = false;
			req.socket.on('close', () => (gone = true));
			const pump = () => {
				while (!gone) if (!res.write(chunk)) return void res.once('drain', pump);
			};
			pump();
		});
		const r = await videoAt('/v1/videos/t1/content', { maxBytes: 8 * 1024 * 1024 });
		expect(r.error).toBeInstanceOf(ResultInvalidError);
		expect(r.error!.message).toMatch(/too large: .*larger than the limit of 8 MiB/);
		expect(countFiles(store)).toBe(filesBefore);
	});

	it('a declared size above the limit is refused before any byte is written', async () => {
		gw.reset(serve(video, 'video/mp4'));
		const r = await videoAt('/v1/videos/t1/content', { maxBytes: 1024 * 1024 });
		expect(r.error?.message).toMatch(/the file of 3 MiB is larger than the limit of 1 MiB/);
	});

	it.each([
		['ftyp only', () => video.subarray(0, 32), /no 'moov' box/],
		[
			'cut inside mdat, with a matching Content-Length',
			() => video.subarray(0, video.length - 1000),
			/cut short/,
		],
		[
			'padded after the last box',
			() => Buffer.concat([video, Buffer.alloc(4096)]),
			/padded or joined/,
		],
		['an HTML page labelled video/mp4', () => Buffer.from('<html>502</html>'), /not a usable file/],
	])('%s is not a success, nothing stored', async (_name, body, why) => {
		const filesBefore = countFiles(store);
		gw.reset(serve(body(), 'video/mp4'));
		const r = await videoAt('/v1/videos/t1/content');
		expect(r.error).toBeInstanceOf(ResultInvalidError);
		expect(r.error!.message).toMatch(why);
		expect(countFiles(store)).toBe(filesBefore);
	});

	it('a wrong Content-Type is refused without reading the body', async () => {
		gw.reset(serve(Buffer.from('{"error":"x"}'), 'application/json'));
		const r = await videoAt('/v1/videos/t1/content');
		expect(r.error?.message).toMatch(/Content-Type "application\/json", not a video/);
	});

	it('memory stays bounded: 512 MiB through a temporary file into a file store, measured in a plain Node process', () => {
		const size = 512 * 1024 * 1024;
		const run = spawnSync(
			process.execPath,
			['--import', 'tsx', join(__dirname, 'fixtures', 'video-memory.ts'), String(size)],
			{ encoding: 'utf8', timeout: 60_000 },
		);
		expect(run.status).toBe(0);
		const r = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as {
			bytes: number;
			stored: number;
			ms: number;
			growthMiB: number;
		};
		console.log(
			`512 MiB video → temp file → file store (plain Node ${process.version}): ${r.ms} ms, RSS growth ${r.growthMiB} MiB`,
		);
		expect(r).toMatchObject({ bytes: size, stored: size });
		expect(r.growthMiB).toBeLessThan(128);
	});
});

function countFiles(dir: string): number {
	if (!existsSync(dir)) return 0;
	let n = 0;
	for (const e of readdirSync(dir, { withFileTypes: true }))
		n += e.isDirectory() ? countFiles(join(dir, e.name)) : 1;
	return n;
}
