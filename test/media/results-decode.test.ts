/**
 * Inside a real n8n node execution: an image whose structure is sound but whose pixels do not decode, and an MP4
 * (made by ffmpeg) whose sample size or NAL length was damaged, are never stored; their sound originals are.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
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
	ResultInvalidError,
	storeImageResult,
	storeVideoResult,
	type StoredResult,
} from '../../nodes/shared/media/store';
import type { GatewayTransport } from '../../nodes/shared/transport';
import { cleanupBinaryData, initBinaryData, runWorkflow } from '../harness/workflow';
import { startServer, transportFor, withoutProxyEnv, type TestServer } from '../transport/support';

let gw: TestServer;
let temp: string;
let png: Buffer;
let mp4: Buffer;

function ffmpegMp4(): Buffer {
	const dir = mkdtempSync(join(tmpdir(), 'gg-decode-mp4-'));
	try {
		execFileSync('ffmpeg', [
			'-v',
			'error',
			'-y',
			'-f',
			'lavfi',
			'-i',
			'testsrc=size=64x64:rate=10',
			'-t',
			'1',
			'-pix_fmt',
			'yuv420p',
			'-c:v',
			'libx264',
			'-movflags',
			'+faststart',
			join(dir, 'v.mp4'),
		]);
		return readFileSync(join(dir, 'v.mp4'));
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}

beforeAll(async () => {
	withoutProxyEnv();
	gw = await startServer();
	await initBinaryData();
	png = await sharp({
		create: {
			width: 200,
			height: 150,
			channels: 3,
			background: '#000',
			noise: { type: 'gaussian', mean: 128, sigma: 40 },
		},
	})
		.png({ compressionLevel: 1 })
		.toBuffer();
	mp4 = ffmpegMp4();
});
afterAll(async () => {
	await gw.close();
	cleanupBinaryData();
});
beforeEach(() => {
	temp = mkdtempSync(join(tmpdir(), 'gg-decode-test-'));
});
afterEach(() => {
	expect(readdirSync(temp)).toEqual([]);
	rmSync(temp, { recursive: true, force: true });
});

async function inNode(
	fn: (ctx: IExecuteFunctions, t: GatewayTransport) => Promise<StoredResult>,
): Promise<{ stored?: StoredResult; error?: Error }> {
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
				const stored = await fn(this, transportFor(gw.origin));
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
	return { stored: { binary: item.binary!.data, meta: item.json.meta as never } };
}

/** The PNG without its second IDAT chunk: every remaining chunk and CRC intact, IEND last. */
function withoutSecondIdat(b: Buffer): Buffer {
	const idats: Array<[number, number]> = [];
	for (let p = 8; p < b.length; p += 12 + b.readUInt32BE(p))
		if (b.toString('latin1', p + 4, p + 8) === 'IDAT') idats.push([p, p + 12 + b.readUInt32BE(p)]);
	return Buffer.concat([b.subarray(0, idats[1][0]), b.subarray(idats[1][1])]);
}

/** The avcC's first picture parameter set made 4 bytes shorter in its length field (its bytes left in place). */
function shortenPps(b: Buffer): void {
	const avcC = b.indexOf('avcC') + 4;
	const spsLength = b.readUInt16BE(avcC + 6);
	const ppsLength = avcC + 8 + spsLength + 1;
	b.writeUInt16BE(b.readUInt16BE(ppsLength) - 4, ppsLength);
}

const serveMp4 = (body: Buffer) => (_req: IncomingMessage, res: ServerResponse) => {
	res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': body.length });
	res.end(body);
};

describe('a result is stored only when it decodes', () => {
	it('a PNG is stored; the same PNG with one IDAT chunk removed (CRCs valid) is not', async () => {
		const ok = await inNode((ctx, t) =>
			storeImageResult(ctx, t, { b64: png.toString('base64') }, 'img'),
		);
		expect(ok.stored?.meta).toMatchObject({ mimeType: 'image/png', width: 200, height: 150 });
		const bad = await inNode((ctx, t) =>
			storeImageResult(ctx, t, { b64: withoutSecondIdat(png).toString('base64') }, 'img'),
		);
		expect(bad.error).toBeInstanceOf(ResultInvalidError);
		expect(bad.error!.message).toMatch(/not a usable image .*its pixels do not decode to the end/);
	});

	it('an ffmpeg MP4 is stored; with one sample size in stsz changed it is not', async () => {
		gw.reset(serveMp4(mp4));
		const ok = await inNode((ctx, t) =>
			storeVideoResult(ctx, t, { path: '/v1/videos/v/content' }, 'vid', undefined, {
				tempDir: temp,
			}),
		);
		expect(ok.stored?.meta).toMatchObject({ mimeType: 'video/mp4', bytes: mp4.length });
		const damaged = Buffer.from(mp4);
		const stsz = damaged.indexOf('stsz');
		const first = stsz + 16;
		damaged.writeUInt32BE(damaged.readUInt32BE(first) - 1, first);
		gw.reset(serveMp4(damaged));
		const bad = await inNode((ctx, t) =>
			storeVideoResult(ctx, t, { path: '/v1/videos/v/content' }, 'vid', undefined, {
				tempDir: temp,
			}),
		);
		expect(bad.error).toBeInstanceOf(ResultInvalidError);
		expect(bad.error!.message).toMatch(
			/the video is not a usable file: .*NAL unit of \d+ bytes runs past the end of sample 1/,
		);
	});

	// files the media fuzzer found (test/fuzz/media.test.ts), kept as readable examples: ffmpeg reports errors on each
	it.each([
		[
			'a sync-sample table (stss) counting more entries than its box holds',
			(b: Buffer) =>
				b.writeUInt32BE(b.readUInt32BE(b.indexOf('stss') + 8) | 0x1000000, b.indexOf('stss') + 8),
			/'stss' box .* holds 4 bytes for 16777217 entries of 4/,
		],
		[
			'a picture parameter set whose length in avcC was shortened',
			(b: Buffer) => shortenPps(b),
			/'avcC' box of track 1 is damaged/,
		],
		[
			'a pixel aspect ratio (pasp) whose spacing has its top bit set',
			(b: Buffer) => (b[b.indexOf('pasp') + 4] ^= 0x80),
			/pixel aspect ratio \('pasp'\) of track 1 is damaged/,
		],
	])('an ffmpeg MP4 with %s is not stored', async (_what, damage, why) => {
		const damaged = Buffer.from(mp4);
		damage(damaged);
		expect(
			execFileSync('bash', ['-c', 'ffmpeg -v error -i pipe:0 -f null - 2>&1 || true'], {
				input: damaged,
				encoding: 'utf8',
			}),
		).not.toBe('');
		gw.reset(serveMp4(damaged));
		const bad = await inNode((ctx, t) =>
			storeVideoResult(ctx, t, { path: '/v1/videos/v/content' }, 'vid', undefined, {
				tempDir: temp,
			}),
		);
		expect(bad.error).toBeInstanceOf(ResultInvalidError);
		expect(bad.error!.message).toMatch(why);
	});
});
