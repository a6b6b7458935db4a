/** imageBytes: results padded to a size while staying valid, decodable, unique files, without an encode per result. */
import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { imageSize } from 'image-size';
import sharp from 'sharp';
import { useSimulator } from '../harness/simulator';
import { encodeCount } from '../../simulator/media/images';
import { client } from './client';

/** Walks the PNG chunks, checking every CRC; returns the chunk types in order. */
function pngChunks(buf: Buffer): string[] {
	expect(buf.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
	const types: string[] = [];
	let i = 8;
	while (i < buf.length) {
		const len = buf.readUInt32BE(i);
		const type = buf.subarray(i + 4, i + 8).toString('latin1');
		expect(buf.readUInt32BE(i + 8 + len)).toBe(crc32(buf.subarray(i + 4, i + 8 + len)));
		types.push(type);
		i += 12 + len;
	}
	expect(i).toBe(buf.length);
	return types;
}

/** Walks the JPEG segments up to the scan; returns the markers. */
function jpegMarkers(buf: Buffer): number[] {
	expect(buf.subarray(0, 2).toString('hex')).toBe('ffd8');
	expect(buf.subarray(-2).toString('hex')).toBe('ffd9');
	const markers: number[] = [];
	let i = 2;
	for (;;) {
		expect(buf[i]).toBe(0xff);
		markers.push(buf[i + 1]);
		if (buf[i + 1] === 0xda) return markers;
		i += 2 + buf.readUInt16BE(i + 2);
	}
}

/** Walks the RIFF chunks; returns the chunk types. */
function webpChunks(buf: Buffer): string[] {
	expect(buf.subarray(0, 4).toString('latin1')).toBe('RIFF');
	expect(buf.readUInt32LE(4)).toBe(buf.length - 8);
	expect(buf.subarray(8, 12).toString('latin1')).toBe('WEBP');
	const types: string[] = [];
	let i = 12;
	while (i < buf.length) {
		const len = buf.readUInt32LE(i + 4);
		types.push(buf.subarray(i, i + 4).toString('latin1'));
		i += 8 + len + (len % 2);
	}
	expect(i).toBe(buf.length);
	return types;
}

async function decodes(buf: Buffer, width: number, height: number): Promise<void> {
	const { info } = await sharp(buf).raw().toBuffer({ resolveWithObject: true });
	expect([info.width, info.height]).toEqual([width, height]);
	expect(imageSize(buf)).toMatchObject({ width, height });
}

describe.each(['png', 'jpeg', 'webp'] as const)('imageBytes with %s results', (format) => {
	const sim = useSimulator({
		quiet: true,
		taskLatencyMs: 10,
		syncLatencyMs: 0,
		imageBytes: 300_001,
		imageFormat: format,
	});
	const c = client(() => sim);
	const { untilDone, fetchResult, call } = c;
	const gen = (json: Record<string, unknown>, path?: string) =>
		c.gen({ model: 'alpha-image-2-2k', ...json }, path);

	it('hosted results are padded within the format, decodable by sharp, and each one differs', async () => {
		const sync = (await gen({ n: 2 }, '/v1/images/generations')).json;
		const task = await untilDone((await gen({ size: '1536x1024' })).json.task_id);
		const a = (await fetchResult(sync.data[0].url)).buf;
		const b = (await fetchResult(sync.data[1].url)).buf;
		const c = (await fetchResult(task.json.data[0].url)).buf;
		for (const buf of [a, b, c]) expect(buf.length).toBeGreaterThanOrEqual(300_001);
		expect(a.length).toBeLessThan(300_001 + 64);
		expect(a.equals(b)).toBe(false);
		await decodes(a, 1024, 1024);
		await decodes(c, 1536, 1024);
		if (format === 'png') {
			const types = pngChunks(a);
			expect(types.at(-1)).toBe('IEND');
			expect(types).toEqual(expect.arrayContaining(['IHDR', 'IDAT', 'tEXt', 'paDd']));
		}
		if (format === 'jpeg')
			expect(jpegMarkers(a).filter((m) => m === 0xfe).length).toBeGreaterThan(1);
		if (format === 'webp')
			expect(webpChunks(a)).toEqual(['VP8X', expect.stringMatching(/^VP8[ L]$/), 'SIMT', 'SIMP']);
	});

	it('b64_json answers (sync and native) carry the padded file too', async () => {
		const sync = (await gen({ response_format: 'b64_json' }, '/v1/images/generations')).json;
		const buf = Buffer.from(sync.data[0].b64_json, 'base64');
		expect(buf.length).toBeGreaterThanOrEqual(300_001);
		await decodes(buf, 1024, 1024);
		const native = await call(
			'POST',
			'/v1beta/models/beta-3.1-flash-image-preview:generateContent',
			{ json: { contents: [{ parts: [{ text: 'x' }] }] } },
		);
		const part = native.json.candidates[0].content.parts.find(
			(p: Record<string, any>) => p.inlineData || p.inline_data,
		);
		const inline = Buffer.from((part.inlineData ?? part.inline_data).data, 'base64');
		expect(inline.length).toBeGreaterThanOrEqual(300_001);
		await decodes(inline, 1024, 1024);
	});
});

describe('imageBytes at scale', () => {
	const sim = useSimulator({
		quiet: true,
		syncLatencyMs: 0,
		imageBytes: 1_500_000,
		imageFormat: 'png',
	});
	const { gen, fetchResult } = client(() => sim);

	it('500 results of 1.5 MB: one encode, each result unique', async () => {
		const urls: string[] = (
			await gen({ n: 500, size: '1536x864' }, '/v1/images/generations')
		).json.data.map((d: { url: string }) => d.url);
		expect(urls).toHaveLength(500);
		const before = encodeCount();
		const hashes = new Set<string>();
		let i = 0;
		await Promise.all(
			Array.from({ length: 20 }, async () => {
				while (i < urls.length) {
					const url = urls[i++];
					// a GET may meet a reset on a loaded machine (750 MB over loopback): it is fetched again, as clients do
					const r = await fetchResult(url)
						.catch(() => fetchResult(url))
						.catch(() => fetchResult(url));
					expect(r.buf.length).toBeGreaterThanOrEqual(1_500_000);
					hashes.add(createHash('sha1').update(r.buf).digest('hex'));
				}
			}),
		);
		expect(encodeCount() - before).toBeLessThanOrEqual(1);
		// one encode for 500 results (an encode per result would take ~100 ms each), and each result is its own
		expect(hashes.size).toBe(500);
	}, 60_000);
});
