/**
 * The media validators: real files of every format pass (with their real size); header-only, truncated, padded,
 * damaged and absurd files fail, saying why. MP4 is checked while streaming, byte by byte, in constant memory.
 */
import { crc32 } from 'node:zlib';
import sharp from 'sharp';
import { InvalidMediaError } from '../../nodes/shared/media/errors';
import { validateImage } from '../../nodes/shared/media/image';
import { mp4Checker } from '../../nodes/shared/media/mp4';
import { mp4Stream } from '../../simulator/media';

const img = () => sharp({ create: { width: 120, height: 80, channels: 4, background: { r: 200, g: 80, b: 40, alpha: 0.6 } } }).composite([{ input: Buffer.from('<svg width="120" height="80"><circle cx="60" cy="40" r="30" fill="#0a8"/></svg>'), top: 0, left: 0 }]);

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

/** A 24-bit BMP of the given size. */
function bmp(width: number, height: number): Buffer {
	const row = Math.floor((24 * width + 31) / 32) * 4;
	const b = Buffer.alloc(54 + row * height, 0x7f);
	b.write('BM', 0, 'latin1');
	b.writeUInt32LE(b.length, 2);
	b.writeUInt32LE(0, 6);
	b.writeUInt32LE(54, 10);
	b.writeUInt32LE(40, 14);
	b.writeInt32LE(width, 18);
	b.writeInt32LE(height, 22);
	b.writeUInt16LE(1, 26);
	b.writeUInt16LE(24, 28);
	b.writeUInt32LE(0, 30);
	b.writeUInt32LE(row * height, 34);
	return b;
}

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

const fails = (b: Buffer, why: RegExp) => {
	let err: unknown;
	try {
		validateImage(b);
	} catch (e) {
		err = e;
	}
	expect(err).toBeInstanceOf(InvalidMediaError);
	expect((err as Error).message).toMatch(why);
};

describe('real images pass with their real size and type', () => {
	it.each(['png', 'png (palette)', 'png (interlaced)', 'jpeg', 'jpeg (progressive)', 'webp', 'webp (lossless)', 'gif', 'tiff', 'avif', 'bmp'])('%s', (name) => {
		const r = validateImage(files[name]);
		expect(r).toMatchObject({ width: 120, height: 80 });
		expect(r.mimeType).toBe(`image/${name.split(' ')[0]}`);
	});
});

describe('truncated, padded, header-only: every format, every cut', () => {
	const formats = ['png', 'jpeg', 'jpeg (progressive)', 'webp', 'webp (lossless)', 'gif', 'bmp', 'avif'];

	it.each(formats)('%s cut anywhere (every byte of the last 200, and every 997th) fails', (name) => {
		const f = files[name];
		const cuts = new Set<number>();
		for (let n = 1; n < f.length; n += 997) cuts.add(n);
		for (let n = Math.max(1, f.length - 200); n < f.length; n++) cuts.add(n);
		for (const n of cuts) expect(() => validateImage(f.subarray(0, n))).toThrow(InvalidMediaError);
	});

	it.each(formats)('%s with bytes after its end fails', (name) => {
		for (const extra of [Buffer.from([0]), Buffer.from('junk'), files[name]]) expect(() => validateImage(Buffer.concat([files[name], extra]))).toThrow(InvalidMediaError);
	});

	it('a PNG cut to 60% (served with a matching Content-Length) fails', () => {
		fails(files.png.subarray(0, Math.floor(files.png.length * 0.6)), /cut short/);
	});
});

describe('PNG', () => {
	it('signature + IHDR only (33 bytes) claiming 100000x100000 fails on its size', () => {
		fails(Buffer.concat([SIG, ihdr(100000, 100000)]), /100000x100000 is beyond any generated image/);
	});

	it('signature + IHDR + IEND with a sane size fails as header only', () => {
		fails(Buffer.concat([SIG, ihdr(64, 64), pngChunk('IEND', Buffer.alloc(0))]), /no image data.*header only/);
	});

	it('a few IDAT bytes cannot hold the pixels the header claims', () => {
		fails(Buffer.concat([SIG, ihdr(8000, 8000), pngChunk('IDAT', Buffer.alloc(10)), pngChunk('IEND', Buffer.alloc(0))]), /cannot hold 8000x8000 pixels/);
	});

	it('one flipped bit inside the image data fails its CRC', () => {
		const f = Buffer.from(files.png);
		const idat = f.indexOf('IDAT');
		f[idat + 10] ^= 1;
		fails(f, /CRC of its IDAT chunk/);
	});

	it('IDAT chunks that are not consecutive fail', () => {
		const f = files.png;
		const at = f.indexOf('IEND') - 4;
		fails(Buffer.concat([f.subarray(0, at), pngChunk('tEXt', Buffer.from('a\0b')), pngChunk('IDAT', Buffer.from([1, 2])), f.subarray(at)]), /not consecutive/);
	});
});

describe('JPEG', () => {
	const jpegWithoutScanData = () => {
		const f = files.jpeg;
		const sos = f.indexOf(Buffer.from([0xff, 0xda]));
		const sosLen = f.readUInt16BE(sos + 2);
		return Buffer.concat([f.subarray(0, sos + 2 + sosLen), Buffer.from([0xff, 0xd9])]);
	};

	it('headers and a scan header but no entropy-coded data fail', () => {
		fails(jpegWithoutScanData(), /scan without image data/);
	});

	it('headers up to SOF only, with EOI, fail as header only', () => {
		const f = files.jpeg;
		const sos = f.indexOf(Buffer.from([0xff, 0xda]));
		fails(Buffer.concat([f.subarray(0, sos), Buffer.from([0xff, 0xd9])]), /header only/);
	});

	it('a size of 0 or beyond any generated image fails', () => {
		const f = Buffer.from(files.jpeg);
		const sof = f.indexOf(Buffer.from([0xff, 0xc0]));
		f.writeUInt16BE(0, sof + 5);
		fails(f, /is not a picture/);
		f.writeUInt16BE(65000, sof + 5);
		f.writeUInt16BE(65000, sof + 7);
		fails(f, /beyond any generated image/);
	});
});

describe('WebP, GIF, BMP', () => {
	it('WebP whose RIFF length is larger or smaller than the file fails', () => {
		const f = Buffer.from(files.webp);
		f.writeUInt32LE(f.readUInt32LE(4) + 2, 4);
		fails(f, /RIFF length says/);
		fails(Buffer.concat([files.webp, Buffer.alloc(2)]), /follow its RIFF data/);
	});

	it('WebP with only a VP8X header fails as header only', () => {
		const x = Buffer.alloc(10);
		x.writeUIntLE(99, 4, 3);
		x.writeUIntLE(99, 7, 3);
		const chunk = Buffer.concat([Buffer.from('VP8X'), Buffer.from([10, 0, 0, 0]), x]);
		const riff = Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WEBP'), chunk]);
		riff.writeUInt32LE(riff.length - 8, 4);
		fails(riff, /header only/);
	});

	it('GIF without its trailer, or with bytes after it, fails', () => {
		fails(files.gif.subarray(0, files.gif.length - 1), /without its trailer/);
		fails(Buffer.concat([files.gif, Buffer.from('x')]), /follow its trailer/);
	});

	it('BMP whose size field does not match, or whose pixels do not fit, fails', () => {
		fails(bmp(120, 80).subarray(0, 1000), /size field says/);
		const b = bmp(120, 80);
		b.writeInt32LE(200, 22);
		fails(b, /file ends before/);
	});

	it('HTML, JSON, text and empty files are not images', () => {
		fails(Buffer.from('<!DOCTYPE html><html>502</html>'), /looks like HTML/);
		fails(Buffer.from('{"error":"x"}'), /looks like JSON/);
		fails(Buffer.alloc(0), /empty/);
	});
});

describe('MP4 (streamed)', () => {
	const box = (type: string, payload: Buffer | number) => {
		const p = typeof payload === 'number' ? Buffer.alloc(payload, 0x2a) : payload;
		const h = Buffer.alloc(8);
		h.writeUInt32BE(8 + p.length, 0);
		h.write(type, 4, 'latin1');
		return Buffer.concat([h, p]);
	};
	const ftyp = box('ftyp', Buffer.from('isom\0\0\x02\0isomiso2avc1mp41', 'latin1'));
	const moov = box('moov', box('mvhd', 100));
	const good = Buffer.concat([ftyp, moov, box('mdat', 5000)]);

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

	it('the simulator\'s 3 MiB video passes, streamed in its own chunks', async () => {
		const c = mp4Checker();
		for await (const chunk of mp4Stream(3 * 1024 * 1024, 5).stream) c.push(chunk as Buffer);
		expect(c.end()).toEqual({ bytes: 3 * 1024 * 1024, brand: 'isom' });
	});

	it('a 64-bit box size and a last box "to the end of the file" (size 0) pass', () => {
		const large = Buffer.alloc(16);
		large.writeUInt32BE(1, 0);
		large.write('mdat', 4, 'latin1');
		large.writeBigUInt64BE(16n + 300n, 8);
		expect(check(Buffer.concat([ftyp, moov, large, Buffer.alloc(300)]))).toBeUndefined();
		const toEnd = Buffer.from([0, 0, 0, 0, ...Buffer.from('mdat'), 1, 2, 3]);
		expect(check(Buffer.concat([ftyp, moov, toEnd]))).toBeUndefined();
	});

	it.each([
		['ftyp only (bytes 4-8 "ftyp" is all the old check needed)', Buffer.concat([ftyp]), /no 'moov' box/],
		['ftyp + moov, no media data', Buffer.concat([ftyp, moov]), /no 'mdat' box/],
		['an empty mdat', Buffer.concat([ftyp, moov, box('mdat', 0)]), /'mdat' box is empty/],
		['moov without mvhd', Buffer.concat([ftyp, box('moov', box('trak', 10)), box('mdat', 10)]), /'moov' box has no 'mvhd'/],
		['truncated inside mdat', good.subarray(0, good.length - 1), /1 bytes short \(cut short\)/],
		['truncated inside a box header', Buffer.concat([ftyp, moov, box('mdat', 10).subarray(0, 5)]), /inside a box header/],
		['padded with zeros', Buffer.concat([good, Buffer.alloc(64)]), /padded or joined/],
		['junk after the last box', Buffer.concat([good, Buffer.from('garbage!garbage!')]), /padded or joined|runs past|short/],
		['no ftyp first', Buffer.concat([moov, ftyp, box('mdat', 10)]), /first box is 'moov'/],
		['a box larger than its parent', Buffer.concat([ftyp, box('moov', Buffer.concat([box('mvhd', 8), Buffer.from([0, 0, 1, 0, 0x74, 0x72, 0x61, 0x6b])])), box('mdat', 10)]), /runs past the end of its 'moov'/],
		['an impossible box size', Buffer.concat([ftyp, Buffer.from([0, 0, 0, 4, 0x66, 0x72, 0x65, 0x65])]), /impossible size/],
		['empty', Buffer.alloc(0), /empty/],
		['HTML', Buffer.from('<html><body>502 Bad Gateway</body></html>'), /no box|first box/],
	])('%s fails', (_name, b, why) => {
		for (const step of [1, 5, 4096]) expect(check(b, step)?.message).toMatch(why);
	});

	it('memory stays constant: a 2 GiB stream (size-0 mdat) of 64 KiB chunks keeps no bytes', () => {
		const c = mp4Checker();
		c.push(Buffer.concat([ftyp, moov, Buffer.from([0, 0, 0, 0, ...Buffer.from('mdat')])]));
		const chunk = Buffer.alloc(64 * 1024);
		const before = process.memoryUsage().heapUsed;
		for (let i = 0; i < 32768; i++) c.push(chunk);
		expect(process.memoryUsage().heapUsed - before).toBeLessThan(16 * 1024 * 1024);
		expect(c.end().bytes).toBeGreaterThan(2 * 1024 ** 3);
	});
});
