/**
 * The media validators: real files of every format pass (with their real size); header-only, truncated, padded,
 * damaged and absurd files fail, saying why. Images must decode to their last pixel. MP4 is checked while streaming,
 * byte by byte, keeping only its moov box: its sample tables must point inside its media data.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import sharp from 'sharp';
import { InvalidMediaError } from '../../nodes/shared/media/errors';
import { validateImage } from '../../nodes/shared/media/image';
import { checkMp4Samples, mp4Checker } from '../../nodes/shared/media/mp4';
import { bufferReader } from '../../nodes/shared/media/nal';
import {
	AVCC,
	box,
	findBox,
	ftyp,
	fullBox,
	mdatHeader,
	mediaData,
	moovBox,
	mp4File,
	mp4Parts,
	replaceBox,
	retype,
	samplesOf,
	visualFields,
} from './mp4-files';
import { bmp } from '../harness/inputs';

const img = () =>
	sharp({
		create: {
			width: 120,
			height: 80,
			channels: 4,
			background: { r: 200, g: 80, b: 40, alpha: 0.6 },
		},
	}).composite([
		{
			input: Buffer.from(
				'<svg width="120" height="80"><circle cx="60" cy="40" r="30" fill="#0a8"/></svg>',
			),
			top: 0,
			left: 0,
		},
	]);

let files: Record<string, Buffer>;
beforeAll(async () => {
	files = {
		png: await img().png().toBuffer(),
		'png (palette)': await img().png({ palette: true, compressionLevel: 9 }).toBuffer(),
		'png (interlaced)': await img().png({ progressive: true }).toBuffer(),
		jpeg: await img().jpeg().toBuffer(),
		'jpeg (progressive)': await img().jpeg({ progressive: true }).toBuffer(),
		webp: await img().webp().toBuffer(),
		'webp (lossless)': await img().webp({ lossless: true }).toBuffer(),
		gif: await img().gif().toBuffer(),
		tiff: await img().tiff().toBuffer(),
		avif: await img().avif().toBuffer(),
		bmp: bmp(120, 80),
	};
});

function pngChunk(type: string, data: Buffer): Buffer {
	const head = Buffer.alloc(8);
	head.writeUInt32BE(data.length, 0);
	head.write(type, 4, 'latin1');
	const crc = Buffer.alloc(4);
	crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
	return Buffer.concat([head, data, crc]);
}

const ihdr = (w: number, h: number) => {
	const d = Buffer.alloc(13);
	d.writeUInt32BE(w, 0);
	d.writeUInt32BE(h, 4);
	d[8] = 8;
	d[9] = 6;
	return pngChunk('IHDR', d);
};
const SIG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

const fails = async (b: Buffer, why: RegExp) => {
	const err = await validateImage(b).then(
		() => undefined,
		(e: unknown) => e,
	);
	expect(err).toBeInstanceOf(InvalidMediaError);
	expect((err as Error).message).toMatch(why);
};
const refused = (b: Buffer) =>
	validateImage(b).then(
		() => false,
		(e: unknown) => e instanceof InvalidMediaError,
	);

describe('real images pass with their real size and type', () => {
	it.each([
		'png',
		'png (palette)',
		'png (interlaced)',
		'jpeg',
		'jpeg (progressive)',
		'webp',
		'webp (lossless)',
		'gif',
		'tiff',
		'avif',
		'bmp',
	])('%s', async (name) => {
		const r = await validateImage(files[name]);
		expect(r).toMatchObject({ width: 120, height: 80 });
		expect(r.mimeType).toBe(`image/${name.split(' ')[0]}`);
	});
});

describe('truncated, padded, header-only: every format, every cut', () => {
	const formats = [
		'png',
		'jpeg',
		'jpeg (progressive)',
		'webp',
		'webp (lossless)',
		'gif',
		'tiff',
		'bmp',
		'avif',
	];

	it.each(formats)(
		'%s cut anywhere (every byte of the last 200, and every 997th) fails',
		async (name) => {
			const f = files[name];
			const cuts = new Set<number>();
			for (let n = 1; n < f.length; n += 997) cuts.add(n);
			for (let n = Math.max(1, f.length - 200); n < f.length; n++) cuts.add(n);
			const accepted: number[] = [];
			for (const n of cuts) if (!(await refused(f.subarray(0, n)))) accepted.push(n);
			expect(accepted).toEqual([]);
		},
	);

	// a TIFF's data lies where its directory points: bytes appended to it are not read, and it still decodes whole
	it.each(formats.filter((f) => f !== 'tiff'))(
		'%s with bytes after its end fails',
		async (name) => {
			for (const extra of [Buffer.from([0]), Buffer.from('junk'), files[name]])
				expect(await refused(Buffer.concat([files[name], extra]))).toBe(true);
		},
	);

	it('a PNG cut to 60% (served with a matching Content-Length) fails', async () => {
		await fails(files.png.subarray(0, Math.floor(files.png.length * 0.6)), /cut short/);
	});
});

describe('PNG', () => {
	it('signature + IHDR only (33 bytes) claiming 100000x100000 fails on its size', async () => {
		await fails(
			Buffer.concat([SIG, ihdr(100000, 100000)]),
			/100000x100000 is beyond any generated image/,
		);
	});

	it('signature + IHDR + IEND with a sane size fails as header only', async () => {
		await fails(
			Buffer.concat([SIG, ihdr(64, 64), pngChunk('IEND', Buffer.alloc(0))]),
			/no image data.*header only/,
		);
	});

	it('a few IDAT bytes cannot hold the pixels the header claims', async () => {
		await fails(
			Buffer.concat([
				SIG,
				ihdr(8000, 8000),
				pngChunk('IDAT', Buffer.alloc(10)),
				pngChunk('IEND', Buffer.alloc(0)),
			]),
			/cannot hold 8000x8000 pixels/,
		);
	});

	it('one flipped bit inside the image data fails its CRC', async () => {
		const f = Buffer.from(files.png);
		const idat = f.indexOf('IDAT');
		f[idat + 10] ^= 1;
		await fails(f, /CRC of its IDAT chunk/);
	});

	it('IDAT chunks that are not consecutive fail', async () => {
		const f = files.png;
		const at = f.indexOf('IEND') - 4;
		await fails(
			Buffer.concat([
				f.subarray(0, at),
				pngChunk('tEXt', Buffer.from('a\0b')),
				pngChunk('IDAT', Buffer.from([1, 2])),
				f.subarray(at),
			]),
			/not consecutive/,
		);
	});
});

describe('JPEG', () => {
	const jpegWithoutScanData = () => {
		const f = files.jpeg;
		const sos = f.indexOf(Buffer.from([0xff, 0xda]));
		const sosLen = f.readUInt16BE(sos + 2);
		return Buffer.concat([f.subarray(0, sos + 2 + sosLen), Buffer.from([0xff, 0xd9])]);
	};

	it('headers and a scan header but no entropy-coded data fail', async () => {
		await fails(jpegWithoutScanData(), /scan without image data/);
	});

	it('headers up to SOF only, with EOI, fail as header only', async () => {
		const f = files.jpeg;
		const sos = f.indexOf(Buffer.from([0xff, 0xda]));
		await fails(Buffer.concat([f.subarray(0, sos), Buffer.from([0xff, 0xd9])]), /header only/);
	});

	it('a size of 0 or beyond any generated image fails', async () => {
		const f = Buffer.from(files.jpeg);
		const sof = f.indexOf(Buffer.from([0xff, 0xc0]));
		f.writeUInt16BE(0, sof + 5);
		await fails(f, /is not a picture/);
		f.writeUInt16BE(65000, sof + 5);
		f.writeUInt16BE(65000, sof + 7);
		await fails(f, /beyond any generated image/);
	});
});

describe('WebP, GIF, BMP', () => {
	it('WebP whose RIFF length is larger or smaller than the file fails', async () => {
		const f = Buffer.from(files.webp);
		f.writeUInt32LE(f.readUInt32LE(4) + 2, 4);
		await fails(f, /RIFF length says/);
		await fails(Buffer.concat([files.webp, Buffer.alloc(2)]), /follow its RIFF data/);
	});

	it('WebP with only a VP8X header fails as header only', async () => {
		const x = Buffer.alloc(10);
		x.writeUIntLE(99, 4, 3);
		x.writeUIntLE(99, 7, 3);
		const chunk = Buffer.concat([Buffer.from('VP8X'), Buffer.from([10, 0, 0, 0]), x]);
		const riff = Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WEBP'), chunk]);
		riff.writeUInt32LE(riff.length - 8, 4);
		await fails(riff, /header only/);
	});

	it('GIF without its trailer, or with bytes after it, fails', async () => {
		await fails(files.gif.subarray(0, files.gif.length - 1), /without its trailer/);
		await fails(Buffer.concat([files.gif, Buffer.from('x')]), /follow its trailer/);
	});

	it('BMP whose size field does not match, or whose pixels do not fit, fails', async () => {
		await fails(bmp(120, 80).subarray(0, 1000), /size field says/);
		const b = bmp(120, 80);
		b.writeInt32LE(200, 22);
		await fails(b, /file ends before/);
	});

	it('HTML, JSON, text and empty files are not images', async () => {
		await fails(Buffer.from('<!DOCTYPE html><html>502</html>'), /looks like HTML/);
		await fails(Buffer.from('{"error":"x"}'), /looks like JSON/);
		await fails(Buffer.alloc(0), /empty/);
	});
});

describe('pixels: a file passes only when it decodes to its last pixel', () => {
	/** A PNG of several IDAT chunks (noise does not compress), each chunk with its CRC. */
	const noisyPng = () =>
		sharp({
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
	const chunks = (b: Buffer) => {
		const out: Array<{ type: string; start: number; end: number }> = [];
		for (let p = 8; p < b.length; p += 12 + b.readUInt32BE(p))
			out.push({
				type: b.toString('latin1', p + 4, p + 8),
				start: p,
				end: p + 12 + b.readUInt32BE(p),
			});
		return out;
	};

	it('a PNG with one whole IDAT chunk removed (every CRC valid, IEND last) fails: its pixels do not decode', async () => {
		const png = await noisyPng();
		const idats = chunks(png).filter((c) => c.type === 'IDAT');
		expect(idats.length).toBeGreaterThan(2);
		const c = idats[1];
		await fails(
			Buffer.concat([png.subarray(0, c.start), png.subarray(c.end)]),
			/not a complete PNG: its pixels do not decode to the end/,
		);
	});

	it('a PNG whose last IDAT chunk was cut and re-sealed with a valid CRC fails', async () => {
		const png = await noisyPng();
		const last = chunks(png)
			.filter((c) => c.type === 'IDAT')
			.at(-1)!;
		const data = png.subarray(last.start + 8, last.end - 4);
		await fails(
			Buffer.concat([
				png.subarray(0, last.start),
				pngChunk('IDAT', data.subarray(0, data.length >> 1)),
				pngChunk('IEND', Buffer.alloc(0)),
			]),
			/pixels do not decode/,
		);
	});

	it('header-only files of every format fail', async () => {
		const jpeg = files.jpeg;
		const sos = jpeg.indexOf(Buffer.from([0xff, 0xda]));
		const headerOnly: Record<string, Buffer> = {
			png: Buffer.concat([SIG, ihdr(120, 80), pngChunk('IEND', Buffer.alloc(0))]),
			jpeg: Buffer.concat([jpeg.subarray(0, sos), Buffer.from([0xff, 0xd9])]),
			webp: files.webp.subarray(0, 30),
			gif: Buffer.concat([files.gif.subarray(0, 13), Buffer.from([0x3b])]),
			tiff: files.tiff.subarray(0, 8),
			bmp: bmp(120, 80).subarray(0, 54),
			avif: files.avif.subarray(0, 32),
		};
		for (const [name, b] of Object.entries(headerOnly))
			expect([name, await refused(b)]).toEqual([name, true]);
	});

	it('a TIFF whose strip lies inside the file but holds other bytes fails on its pixels', async () => {
		const t = Buffer.from(files.tiff);
		const tail = t.length - 40;
		for (let i = 200; i < tail; i++) t[i] = 0xff;
		await fails(t, /not a complete TIFF/);
	});

	it('an animated GIF whose frames together exceed the pixel cap is refused before decoding', async () => {
		const gif = await sharp({
			create: {
				width: 100,
				height: 400,
				channels: 3,
				background: '#000',
				noise: { type: 'gaussian', mean: 128, sigma: 50 },
				pageHeight: 100,
			},
		})
			.gif({ loop: 0 })
			.toBuffer();
		expect(await validateImage(gif, { maxPixels: 40_000 })).toMatchObject({
			width: 100,
			height: 100,
		});
		await expect(validateImage(gif, { maxPixels: 39_999 })).rejects.toThrow(
			/its 4 frames of 100x100 pixels are beyond any generated image/,
		);
	});

	it('BMP: palette indexes beyond the palette, compression it cannot decode, and trailing bytes fail', async () => {
		const row = 4;
		const pal = Buffer.alloc(14 + 40 + 2 * 4 + row * 2);
		pal.write('BM', 0, 'latin1');
		pal.writeUInt32LE(pal.length, 2);
		pal.writeUInt32LE(14 + 40 + 8, 10);
		pal.writeUInt32LE(40, 14);
		pal.writeInt32LE(4, 18);
		pal.writeInt32LE(2, 22);
		pal.writeUInt16LE(1, 26);
		pal.writeUInt16LE(8, 28);
		pal.writeUInt32LE(2, 46);
		expect(await validateImage(pal)).toMatchObject({ mimeType: 'image/bmp', width: 4, height: 2 });
		pal[14 + 40 + 8 + 5] = 2;
		await fails(pal, /uses colour 2 of a 2-colour palette/);
		const rle = bmp(120, 80);
		rle.writeUInt32LE(1, 30);
		await fails(rle, /compression 1 .* not decoded here/);
		const padded = bmp(8, 8);
		const longer = Buffer.concat([padded, Buffer.alloc(4)]);
		longer.writeUInt32LE(longer.length, 2);
		await fails(longer, /4 bytes follow its pixel data/);
	});

	it('an AVIF whose major brand is mif1 (avif among its compatible brands) is an AVIF, decoded', async () => {
		const f = Buffer.from(files.avif);
		expect(f.toString('latin1', 16, f.readUInt32BE(0))).toContain('avif');
		f.write('mif1', 8, 'latin1');
		expect(await validateImage(f)).toMatchObject({
			mimeType: 'image/avif',
			width: 120,
			height: 80,
		});
	});

	it('HEIC is refused: it cannot be decoded here', async () => {
		const heic = Buffer.concat([
			box('ftyp', Buffer.from('heic\0\0\0\0mif1heic', 'latin1')),
			box('meta', Buffer.alloc(8)),
			box('mdat', Buffer.alloc(8, 1)),
		]);
		await fails(heic, /HEIC images cannot be decoded here/);
	});
});

describe('MP4 (streamed)', () => {
	const layout = { samples: 10, sampleBytes: 500 };
	const good = mp4File(layout);

	/** Pushes `b` in chunks of `step` bytes; returns the error (or undefined). */
	const check = (b: Buffer, step = 7): Error | undefined => {
		const c = mp4Checker();
		try {
			for (let i = 0; i < b.length; i += step) c.push(b.subarray(i, i + step));
			c.end();
		} catch (err) {
			return err as Error;
		}
		return undefined;
	};

	it('a complete file passes at any chunking (byte by byte included)', () => {
		for (const step of [1, 3, 8, 16, 100, 1 << 20]) expect(check(good, step)).toBeUndefined();
	});

	it('moov after mdat, a 64-bit mdat size and an mdat "to the end of the file" (size 0) pass', () => {
		expect(check(mp4File({ ...layout, moov: 'after' }))).toBeUndefined();
		expect(check(mp4File({ ...layout, mdatSize: '64' }))).toBeUndefined();
		expect(check(mp4File({ ...layout, mdatSize: 'to-end', tail: 3 }))).toBeUndefined();
	});

	const noTrak = Buffer.concat([
		ftyp,
		box('moov', box('mvhd', Buffer.alloc(100))),
		box('mdat', Buffer.alloc(5000, 0x2a)),
	]);
	const shifted = (() => {
		const { head, payload } = mp4Parts(layout);
		const moovAt = ftyp.length;
		const moov = moovBox(layout, moovAt + moovBox(layout, 0).length + 8 + 100);
		return Buffer.concat([head.subarray(0, moovAt), moov, mdatHeader(payload), mediaData(layout)]);
	})();
	it.each([
		['ftyp only', Buffer.concat([ftyp]), /no 'moov' box/],
		[
			'ftyp + moov, no media data',
			mp4Parts(layout).head.subarray(0, mp4Parts(layout).head.length - 8),
			/no 'mdat' box/,
		],
		[
			'an empty mdat',
			Buffer.concat([ftyp, box('moov', box('mvhd', Buffer.alloc(100))), box('mdat')]),
			/'mdat' box is empty/,
		],
		['a moov without a track (boxes only, no sample tables)', noTrak, /no track: header only/],
		[
			'a moov without mvhd',
			Buffer.concat([
				ftyp,
				box('moov', box('trak', Buffer.alloc(10))),
				box('mdat', Buffer.alloc(10)),
			]),
			/no 'mvhd' box/,
		],
		[
			'chunks pointing past the media data',
			shifted,
			/chunk of track 1 .* outside its media data|past the end/,
		],
		['truncated inside mdat', good.subarray(0, good.length - 1), /1 bytes short \(cut short\)/],
		['truncated inside moov', good.subarray(0, 200), /ends inside its 'moov' box/],
		[
			'moov after mdat, cut inside moov',
			mp4File({ ...layout, moov: 'after' }).subarray(
				0,
				mp4File({ ...layout, moov: 'after' }).length - 3,
			),
			/ends inside its 'moov' box/,
		],
		[
			'mdat to the end of the file, cut before the samples end',
			mp4File({ ...layout, mdatSize: 'to-end' }).subarray(0, good.length - 10),
			/past the end of the file \(cut short\)/,
		],
		[
			'truncated inside a box header',
			Buffer.concat([good, box('free', Buffer.alloc(10)).subarray(0, 5)]),
			/inside a box header/,
		],
		['padded with zeros', Buffer.concat([good, Buffer.alloc(64)]), /padded or joined/],
		[
			'junk after the last box',
			Buffer.concat([good, Buffer.from('garbage!garbage!')]),
			/padded or joined|runs past|short/,
		],
		[
			'no ftyp first',
			Buffer.concat([box('moov'), ftyp, box('mdat', Buffer.alloc(10))]),
			/first box is 'moov'/,
		],
		[
			'a box larger than its parent',
			Buffer.concat([
				ftyp,
				box(
					'moov',
					box('mvhd', Buffer.alloc(96)),
					Buffer.from([0, 0, 1, 0, 0x74, 0x72, 0x61, 0x6b]),
				),
				box('mdat', Buffer.alloc(10)),
			]),
			/runs past the end of its 'moov'/,
		],
		['a fragmented file (moof)', Buffer.concat([good, box('moof', Buffer.alloc(8))]), /fragmented/],
		[
			'an impossible box size',
			Buffer.concat([ftyp, Buffer.from([0, 0, 0, 4, 0x66, 0x72, 0x65, 0x65])]),
			/impossible size/,
		],
		['empty', Buffer.alloc(0), /empty/],
		['HTML', Buffer.from('<html><body>502 Bad Gateway</body></html>'), /no box|first box/],
	])('%s fails', (_name, b, why) => {
		for (const step of [1, 5, 4096]) expect(check(b, step)?.message).toMatch(why);
	});

	/** The streaming check, then the NAL check over the same bytes; the error (or undefined). */
	const checkAll = async (b: Buffer): Promise<Error | undefined> => {
		const c = mp4Checker();
		try {
			c.push(b);
			await checkMp4Samples(c.end(), { read: bufferReader(b) });
		} catch (err) {
			return err as Error;
		}
		return undefined;
	};

	it('H.264 samples whose NAL lengths tile them pass; a damaged sample size or NAL length fails', async () => {
		expect(await checkAll(good)).toBeUndefined();
		expect(await checkAll(mp4File({ ...layout, moov: 'after' }))).toBeUndefined();
		const { head } = mp4Parts(layout);
		const nal = Buffer.from(good);
		nal.writeUInt32BE(layout.sampleBytes, head.length + 3 * layout.sampleBytes);
		expect((await checkAll(nal))?.message).toMatch(
			/NAL unit of 500 bytes runs past the end of sample 4 of track 1/,
		);
		const shorter = mp4File({ ...layout, sampleBytes: layout.sampleBytes });
		const stsz = shorter.indexOf('stsz');
		shorter.writeUInt32BE(layout.sampleBytes - 1, stsz + 8);
		expect((await checkAll(shorter))?.message).toMatch(
			/NAL unit of 496 bytes runs past the end of sample 1/,
		);
	});

	it('an avc1 track without its decoder configuration (avcC) fails', () => {
		const b = mp4File(layout);
		b.write('xxxx', b.indexOf('avcC'), 'latin1');
		expect(check(b)?.message).toMatch(/no 'avcC' decoder configuration/);
	});

	it('an avcC whose parameter sets do not fit it, or without a picture parameter set, fails', () => {
		const avcC = (b: Buffer) => b.indexOf('avcC') + 4;
		const longer = mp4File(layout);
		longer.writeUInt16BE(200, avcC(longer) + 6);
		expect(check(longer)?.message).toMatch(/'avcC' box of track 1 is damaged/);
		const noPps = mp4File(layout);
		noPps[avcC(noPps) + 8 + noPps.readUInt16BE(avcC(noPps) + 6)] = 0;
		expect(check(noPps)?.message).toMatch(
			/'avcC' box of track 1 (has no picture parameter set|is damaged)/,
		);
	});

	it('memory stays bounded: a 2 GiB stream (size-0 mdat) of 64 KiB chunks keeps no media bytes', () => {
		const sampleBytes = 1 << 20;
		const samples = 2048;
		const { head } = mp4Parts({ samples, sampleBytes, mdatSize: 'to-end' });
		const c = mp4Checker();
		c.push(head);
		const chunk = Buffer.alloc(64 * 1024);
		const before = process.memoryUsage().heapUsed;
		for (let i = 0; i < (samples * sampleBytes) / chunk.length; i++) c.push(chunk);
		expect(process.memoryUsage().heapUsed - before).toBeLessThan(16 * 1024 * 1024);
		expect(c.end().bytes).toBe(head.length + 2 * 1024 ** 3);
	});
});

/**
 * What the node vouches for in an MP4 is what a decoder reads: a video track's sample entry must be H.264 (avc1, avc3)
 * or H.265 (hvc1, hev1) with its decoder configuration parsed and its samples' NAL units of that codec, an audio track
 * AAC; anything else, and anything encrypted, fails naming the entry. The real files are made by ffmpeg (see
 * test/media/fixtures/README.md). Each listed case was run through `ffmpeg -v error -i f -f null -`: it refuses all
 * but those marked "(ffmpeg decodes it)", which the node refuses by rule (a label that says encrypted, a profile or
 * configuration version no decoder is promised to read, a sample entry whose size its SPS contradicts).
 */
describe('MP4 sample entries: only codecs a decoder reads, configured as their codec requires', () => {
	const fixture = (name: string) => readFileSync(join(__dirname, 'fixtures', name));
	const h265 = fixture('h265.mp4');
	const h264 = fixture('h264-aac.mp4');
	/** an avcC made by libx264 for 64x64 (High profile, one SPS, one PPS, the High extension) */
	const avcC64 = Buffer.from(
		'0164000affe100186764000aacd94426c044000003000400000300503c48965801000668ebe3cb22c0fdf8f800',
		'hex',
	);

	const verdict = async (b: Buffer): Promise<string> => {
		const c = mp4Checker();
		try {
			for (let i = 0; i < b.length; i += 1000) c.push(b.subarray(i, i + 1000));
			await checkMp4Samples(c.end(), { read: bufferReader(b) });
			return 'Completed';
		} catch (err) {
			if (!(err instanceof InvalidMediaError)) throw err;
			return err.message;
		}
	};
	/** the `n`th entry's box replaced by `type` with the same fields and boxes, plus `extra` boxes */
	const entryAs = (b: Buffer, from: string, type: string, ...extra: Buffer[]) => {
		const e = findBox(b, from);
		return replaceBox(b, e, box(type, b.subarray(e.start + 8, e.end), ...extra));
	};
	/** a copy whose `sample`th sample (of track 0) has its first NAL header byte set to `value` */
	const nalHeader = (b: Buffer, sample: number, value: number, track = 0) => {
		const c = Buffer.from(b);
		c[samplesOf(b, track)[sample].start + 4] = value;
		return c;
	};
	/** the avcC (or hvcC) payload of a file, changed by `edit`, put back */
	const config = (b: Buffer, type: 'avcC' | 'hvcC', edit: (d: Buffer) => Buffer) => {
		const found = findBox(b, type);
		return replaceBox(
			b,
			found,
			box(type, edit(Buffer.from(b.subarray(found.start + 8, found.end)))),
		);
	};
	const sinf = box(
		'sinf',
		box('frma', Buffer.from('avc1', 'latin1')),
		fullBox('schm', Buffer.from('cenc\0\x01\0\0', 'latin1')),
	);

	it('real files pass: H.265 (hvc1, and the same as hev1), H.264 with AAC audio, avc1 relabelled avc3', async () => {
		expect(await verdict(h265)).toBe('Completed');
		expect(await verdict(retype(h265, findBox(h265, 'hvc1'), 'hev1'))).toBe('Completed');
		expect(await verdict(h264)).toBe('Completed');
		expect(await verdict(retype(h264, findBox(h264, 'avc1'), 'avc3'))).toBe('Completed');
	});

	it.each([
		[
			'avc1 renamed avc9 (every box in order)',
			() => retype(h264, findBox(h264, 'avc1'), 'avc9'),
			/video sample entry of track 1 is 'avc9', not a codec this node vouches for \(accepted: H\.264 as 'avc1' or 'avc3', H\.265 as 'hvc1' or 'hev1'\)/,
		],
		[
			'mp4v over H.264 data',
			() => retype(h264, findBox(h264, 'avc1'), 'mp4v'),
			/video sample entry of track 1 is 'mp4v', not a codec/,
		],
		[
			'av01 over H.264 data',
			() => retype(h264, findBox(h264, 'avc1'), 'av01'),
			/'av01', not a codec/,
		],
		[
			'an unknown code (x7Qz)',
			() => retype(h264, findBox(h264, 'avc1'), 'x7Qz'),
			/'x7Qz', not a codec/,
		],
		[
			'encv without protection info',
			() => retype(h264, findBox(h264, 'avc1'), 'encv'),
			/video track 1 is encrypted \(its sample entry is 'encv'\)/,
		],
		[
			'encv with protection info (sinf) (ffmpeg decodes it)',
			() => entryAs(h264, 'avc1', 'encv', sinf),
			/video track 1 is encrypted \(its sample entry is 'encv' with protection info, 'sinf'\)/,
		],
		[
			'avc1 carrying protection info (sinf) (ffmpeg decodes it)',
			() => entryAs(h264, 'avc1', 'avc1', sinf),
			/video track 1 is encrypted \(its sample entry is 'avc1' with protection info/,
		],
		[
			'hvc1 with an avcC (H.264 configuration)',
			() => retype(h264, findBox(h264, 'avc1'), 'hvc1'),
			/'hvc1' sample description of track 1 has no 'hvcC' decoder configuration/,
		],
		[
			'audio entry renamed Opus (ffmpeg decodes it)',
			() => retype(h264, findBox(h264, 'mp4a'), 'Opus'),
			/audio sample entry of track 2 is 'Opus', not a codec this node vouches for \(accepted: AAC as 'mp4a'\)/,
		],
		[
			'audio entry encrypted (enca) (ffmpeg decodes it)',
			() => retype(h264, findBox(h264, 'mp4a'), 'enca'),
			/audio track 2 is encrypted/,
		],
	])('%s fails, naming the entry', async (_name, make, why) => {
		expect(await verdict(make())).toMatch(why);
	});

	it.each([
		[
			'avcC configurationVersion 2',
			() => config(h264, 'avcC', (d) => ((d[0] = 2), d)),
			/'avcC' box of track 1 has configurationVersion 2/,
		],
		[
			'avcC profile 99 (ffmpeg decodes it)',
			() => config(h264, 'avcC', (d) => ((d[1] = 99), d)),
			/'avcC' box of track 1 names profile 99/,
		],
		[
			'avcC 3-byte NAL lengths',
			() => config(h264, 'avcC', (d) => ((d[4] = 0xfe), d)),
			/3-byte NAL lengths/,
		],
		[
			'avcC 2-byte NAL lengths over 4-byte samples',
			() => config(h264, 'avcC', (d) => ((d[4] = 0xfd), d)),
			/sample 1 of track 1 holds a NAL unit of 0 bytes, shorter than its 1-byte header/,
		],
		[
			'avcC without its SPS (count 0)',
			() => config(h264, 'avcC', (d) => ((d[5] = 0xe0), d)),
			/'avcC' box of track 1 is damaged/,
		],
		[
			'avcC whose SPS is of NAL type 8',
			() => config(h264, 'avcC', (d) => ((d[8] = 0x68), d)),
			/a parameter set of NAL type 8 where type 7 belongs/,
		],
		[
			'SPS profile_idc 99 (ffmpeg decodes it)',
			() => config(h264, 'avcC', (d) => ((d[9] = 99), d)),
			/sequence parameter set has profile_idc 99/,
		],
		[
			'the entry says 48x32, the SPS codes 32x32 (ffmpeg decodes it)',
			() =>
				replaceBox(
					h264,
					findBox(h264, 'avc1'),
					box('avc1', visualFields(48, 32), box('avcC', AVCC)),
				),
			/'avc1' sample description of track 1 says 48x32 but its sequence parameter set codes 32x32/,
		],
		[
			'hvcC configurationVersion 0 (ffmpeg decodes it)',
			() => config(h265, 'hvcC', (d) => ((d[0] = 0), d)),
			/'hvcC' box of track 1 has configurationVersion 0/,
		],
		[
			'hvcC without its VPS array (hvc1)',
			() => config(h265, 'hvcC', (d) => dropHvccArray(d, 32)),
			/'hvcC' box of track 1 has no video parameter set/,
		],
		[
			'hvcC array of NAL type 35 (ffmpeg decodes it)',
			() => config(h265, 'hvcC', (d) => ((d[23] = (d[23] & 0xc0) | 35), d)),
			/an array of NAL type 35/,
		],
		[
			'esds naming MP3 (0x6b)',
			() => setEsdsObjectType(h264, 0x6b),
			/names objectTypeIndication 0x6b, stream type 5: not AAC audio/,
		],
	])('%s fails', async (_name, make, why) => {
		expect(await verdict(make())).toMatch(why);
	});

	it.each([
		[
			'avc1 (a 64x64 avcC) over H.265 samples',
			() =>
				replaceBox(
					h265,
					findBox(h265, 'hvc1'),
					box('avc1', visualFields(64, 64), box('avcC', avcC64)),
				),
			/sample 1 of track 1 holds no picture \(no slice of NAL type 1 or 5\)/,
		],
		[
			'hvc1 (a 64x64 hvcC) over H.264 samples',
			() =>
				replaceBox(
					h264,
					findBox(h264, 'avc1'),
					box('hvc1', visualFields(64, 64), findBoxBytes(h265, 'hvcC')),
				),
			/sample 1 of track 1 holds a NAL unit of TemporalId 4, above the 0 its sequence parameter set allows/,
		],
		[
			'an H.264 NAL unit of type 0',
			() => nalHeader(h264, 1, 0x40),
			/sample 2 of track 1 holds a NAL unit of type 0, unspecified in H\.264: not H\.264 data/,
		],
		[
			'an H.264 first sample whose IDR slice became an SEI',
			() => withFirstSlice(h264, 0x06),
			/sample 1 of track 1 holds no picture/,
		],
		[
			'an H.264 first sample whose IDR became a non-IDR slice',
			() => withFirstSlice(h264, 0x41),
			/sample 1 of track 1 is the first and is not an IDR picture/,
		],
		[
			'an IDR slice in a sample stss does not list',
			() => nalHeader(h264, 2, 0x65),
			/sample 3 of track 1 holds an IDR picture \(NAL type 5\) but is not a sync sample/,
		],
		[
			'an H.265 first picture made TRAIL_R',
			() => nalHeader(h265, 0, 0x02),
			/sample 1 of track 1 is the first and is not an IRAP picture/,
		],
		[
			'avc3 whose configuration and first sample both lack the SPS and PPS',
			() =>
				retype(
					config(h264, 'avcC', (d) => Buffer.from([1, d[1], d[2], d[3], 0xff, 0xe0, 0])),
					findBox(h264, 'avc1'),
					'avc3',
				),
			/sample 1 of track 1 is the first and its picture comes before the parameter sets \(NAL types 7, 8\) that neither it nor the decoder configuration carries/,
		],
		[
			'an SEI in a sample retyped as an SPS (its payload is not one)',
			() => nalHeader(h264, 0, 0x67),
			/sample 1 of track 1 carries a parameter set a decoder cannot use: its sequence parameter set has profile_idc 5/,
		],
		[
			'an H.265 NAL unit of reserved type 41',
			() => nalHeader(h265, 1, 41 << 1),
			/sample 2 of track 1 holds a NAL unit of type 41, reserved in H\.265/,
		],
	])('samples of another codec than their entry: %s fails', async (_name, make, why) => {
		expect(await verdict(make())).toMatch(why);
	});

	/** The hvcC payload without its array of `type`. */
	function dropHvccArray(d: Buffer, type: number): Buffer {
		let p = 23;
		for (let a = 0; a < d[22]; a++) {
			let end = p + 3;
			for (let k = 0, n = d.readUInt16BE(p + 1); k < n; k++) end += 2 + d.readUInt16BE(end);
			if ((d[p] & 0x3f) === type) {
				const out = Buffer.concat([d.subarray(0, p), d.subarray(end)]);
				out[22]--;
				return out;
			}
			p = end;
		}
		return d;
	}

	/** A copy of `b` whose esds names `oti` as its objectTypeIndication. */
	function setEsdsObjectType(b: Buffer, oti: number): Buffer {
		const esds = findBox(b, 'esds');
		const c = Buffer.from(b);
		const tag4 = c.indexOf(Buffer.from([0x04]), esds.start + 14);
		let p = tag4 + 1;
		while (c[p] & 0x80) p++;
		c[p + 1] = oti;
		return c;
	}

	/** The whole box of `type` in `b`. */
	function findBoxBytes(b: Buffer, type: string): Buffer {
		const f = findBox(b, type);
		return b.subarray(f.start, f.end);
	}

	/** A copy of the H.264 file whose first sample's slice (its last NAL unit, after the SEI) has header `value`. */
	function withFirstSlice(b: Buffer, value: number): Buffer {
		const c = Buffer.from(b);
		const s = samplesOf(b)[0];
		let at = s.start;
		while (at + 4 + c.readUInt32BE(at) < s.start + s.size) at += 4 + c.readUInt32BE(at);
		c[at + 4] = value;
		return c;
	}
});
