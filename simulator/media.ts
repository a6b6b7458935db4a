/** Real media: PNG/JPEG/WebP images encoded with sharp, and MP4 files produced chunk by chunk. */
import { Readable } from 'node:stream';
import sharp from 'sharp';

export type ImageFormat = 'png' | 'jpeg' | 'webp';

const MAX_CACHED = 64;
const MAX_CACHED_BYTES = 256 * 1024 * 1024;
/** Encoded images by (size, format, variant); a promise so concurrent requests share one encode. Oldest first. */
const cache = new Map<string, { image: Promise<Buffer>; bytes: number }>();
let encodes = 0;

/** How many images have been encoded so far (the padded-result path must not encode per result). */
export function encodeCount(): number {
	return encodes;
}

/** A gradient image of exactly width × height; `variant` (0–15) picks its colours. Cached, bounded by count and bytes. */
export function baseImage(width: number, height: number, format: ImageFormat, variant: number): Promise<Buffer> {
	const key = `${width}x${height}.${format}.${variant}`;
	const hit = cache.get(key);
	if (hit) {
		cache.delete(key);
		cache.set(key, hit);
		return hit.image;
	}
	const entry = { image: encode(width, height, format, variant), bytes: 0 };
	cache.set(key, entry);
	entry.image.then(
		(buf) => {
			entry.bytes = buf.length;
			let total = 0;
			for (const e of cache.values()) total += e.bytes;
			for (const [k, e] of cache) {
				if (cache.size <= MAX_CACHED && total <= MAX_CACHED_BYTES) break;
				if (e === entry) continue;
				cache.delete(k);
				total -= e.bytes;
			}
		},
		() => cache.delete(key),
	);
	return entry.image;
}

async function encode(width: number, height: number, format: ImageFormat, variant: number): Promise<Buffer> {
	encodes++;
	const hue = (variant * 47) % 360;
	const svg = Buffer.from(
		`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="hsl(${hue},70%,55%)"/><stop offset="1" stop-color="hsl(${(hue + 120) % 360},70%,35%)"/></linearGradient></defs><rect width="100%" height="100%" fill="url(#g)"/><circle cx="${width / 2}" cy="${height / 2}" r="${Math.min(width, height) / 4}" fill="rgba(255,255,255,0.35)"/></svg>`,
	);
	let img = sharp(svg);
	img = format === 'png' ? img.png({ compressionLevel: 9, palette: true }) : format === 'jpeg' ? img.jpeg({ quality: 70 }) : img.webp({ quality: 70 });
	return img.toBuffer();
}

function box(type: string, payload: Buffer): Buffer {
	const head = Buffer.alloc(8);
	head.writeUInt32BE(8 + payload.length, 0);
	head.write(type, 4, 'latin1');
	return Buffer.concat([head, payload]);
}

export function ftypBox(): Buffer {
	return box('ftyp', Buffer.concat([Buffer.from('isom', 'latin1'), Buffer.from([0, 0, 2, 0]), Buffer.from('isomiso2avc1mp41', 'latin1')]));
}

function fullBox(type: string, payload: Buffer): Buffer {
	return box(type, Buffer.concat([Buffer.alloc(4), payload]));
}

const u32 = (...values: number[]) => {
	const b = Buffer.alloc(values.length * 4);
	values.forEach((v, i) => b.writeUInt32BE(v, i * 4));
	return b;
};

/** Largest sample written: a multi-GiB mdat is split into samples of at most this many bytes. */
const MAX_SAMPLE = 2 ** 31;

/** H.264 decoder configuration: baseline profile, 4-byte NAL lengths, one SPS and one PPS. */
const AVCC = Buffer.from([1, 0x42, 0xc0, 0x1e, 0xff, 0xe1, 0, 10, 0x67, 0x42, 0xc0, 0x1e, 0xd9, 0x00, 0xa0, 0x47, 0xfe, 0xc8, 1, 0, 4, 0x68, 0xce, 0x3c, 0x80]);

function sampleSizes(payload: number, count: number): number[] {
	const each = Math.floor(payload / count);
	return Array.from({ length: count }, (_, i) => (i === count - 1 ? payload - each * (count - 1) : each));
}

/**
 * moov of a file lasting `durationSec`: mvhd and one video track whose samples (one chunk at `dataOffset`) cover the
 * `payload` bytes of mdat exactly, so a reader that checks the sample tables against the media data finds them sound.
 */
function moovBox(durationSec: number, dataOffset: number, payload: number, count: number): Buffer {
	const ms = Math.round(durationSec * 1000);
	const mvhd = Buffer.alloc(100);
	mvhd.writeUInt32BE(1000, 12); // timescale
	mvhd.writeUInt32BE(ms, 16);
	mvhd.writeUInt32BE(0x00010000, 20); // rate 1.0
	mvhd.writeUInt16BE(0x0100, 24); // volume 1.0
	const matrix = [0x00010000, 0, 0, 0, 0x00010000, 0, 0, 0, 0x40000000];
	matrix.forEach((v, i) => mvhd.writeUInt32BE(v, 36 + i * 4));
	mvhd.writeUInt32BE(2, 96); // next track id
	const sizes = sampleSizes(payload, count);
	const tkhd = Buffer.alloc(80);
	tkhd.writeUInt32BE(1, 8); // track id
	tkhd.writeUInt32BE(ms, 16);
	const avc1 = box('avc1', Buffer.concat([Buffer.alloc(78), box('avcC', AVCC)]));
	const stbl = box(
		'stbl',
		Buffer.concat([
			fullBox('stsd', Buffer.concat([u32(1), avc1])),
			fullBox('stts', u32(1, count, Math.max(1, Math.floor(ms / count)))),
			fullBox('stsc', u32(1, 1, count, 1)),
			fullBox('stsz', u32(0, count, ...sizes)),
			fullBox('stco', u32(1, dataOffset)),
		]),
	);
	const mdhd = fullBox('mdhd', u32(0, 0, 1000, ms, 0));
	const hdlr = fullBox('hdlr', Buffer.concat([u32(0), Buffer.from('vide', 'latin1'), Buffer.alloc(12), Buffer.from('video\0', 'latin1')]));
	const trak = box('trak', Buffer.concat([fullBox('tkhd', tkhd), box('mdia', Buffer.concat([mdhd, hdlr, box('minf', stbl)]))]));
	return box('moov', Buffer.concat([box('mvhd', mvhd), trak]));
}

/** A body whose bytes are produced lazily, chunk by chunk; without a `length` it is sent chunked (and may never end). */
export interface Body {
	length?: number;
	chunks(): Iterable<Buffer>;
}

const FILLER = Buffer.alloc(64 * 1024, 0x2a);

/** ftyp [+ moov] + an mdat box with the remaining bytes: exactly `totalBytes`, never buffered whole. */
export function mp4Body(totalBytes: number, durationSec: number, withMoov = true): Body {
	const ftyp = ftypBox();
	// the moov's size depends only on its sample count, not on the offset and sizes it names
	const samples = Math.max(1, Math.ceil(totalBytes / MAX_SAMPLE));
	const moovLength = withMoov ? moovBox(durationSec, 0, 0, samples).length : 0;
	const mdatSize = Math.max(8, totalBytes - ftyp.length - moovLength);
	const header = withMoov ? Buffer.concat([ftyp, moovBox(durationSec, ftyp.length + moovLength + 8, mdatSize - 8, samples)]) : ftyp;
	const length = header.length + mdatSize;
	const mdatHead = Buffer.alloc(8);
	mdatHead.writeUInt32BE(mdatSize > 0xffffffff ? 0 : mdatSize, 0); // 0 = box runs to the end of the file
	mdatHead.write('mdat', 4, 'latin1');
	return {
		length,
		*chunks() {
			yield Buffer.concat([header, mdatHead]);
			if (!withMoov) {
				for (let left = mdatSize - 8; left > 0; left -= FILLER.length) yield FILLER.subarray(0, Math.min(FILLER.length, left));
				return;
			}
			// each sample is one NAL unit after its 4-byte length, as the avcC says
			for (const size of sampleSizes(mdatSize - 8, samples)) {
				const nal = Buffer.alloc(Math.min(4, size));
				if (size >= 4) nal.writeUInt32BE(size - 4, 0);
				yield nal;
				for (let left = size - nal.length; left > 0; left -= FILLER.length) yield FILLER.subarray(0, Math.min(FILLER.length, left));
			}
		},
	};
}

/** The same MP4 as a readable stream (tests that feed a client or a validator). */
export function mp4Stream(totalBytes: number, durationSec: number): { stream: Readable; length: number } {
	const body = mp4Body(totalBytes, durationSec);
	return { stream: Readable.from(body.chunks()), length: body.length! };
}

/** Bytes as a body, in 64 KiB chunks. */
export function bufferBody(parts: Buffer[]): Body {
	return {
		length: parts.reduce((n, p) => n + p.length, 0),
		*chunks() {
			for (const p of parts) for (let i = 0; i < p.length; i += FILLER.length) yield p.subarray(i, i + FILLER.length);
		},
	};
}
