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

/** moov(mvhd) of a file lasting `durationSec`. */
function moovBox(durationSec: number): Buffer {
	const mvhd = Buffer.alloc(100);
	mvhd.writeUInt32BE(1000, 12); // timescale
	mvhd.writeUInt32BE(Math.round(durationSec * 1000), 16);
	mvhd.writeUInt32BE(0x00010000, 20); // rate 1.0
	mvhd.writeUInt16BE(0x0100, 24); // volume 1.0
	const matrix = [0x00010000, 0, 0, 0, 0x00010000, 0, 0, 0, 0x40000000];
	matrix.forEach((v, i) => mvhd.writeUInt32BE(v, 36 + i * 4));
	mvhd.writeUInt32BE(2, 96); // next track id
	return box('moov', box('mvhd', mvhd));
}

/** A body whose bytes are produced lazily, chunk by chunk; without a `length` it is sent chunked (and may never end). */
export interface Body {
	length?: number;
	chunks(): Iterable<Buffer>;
}

const FILLER = Buffer.alloc(64 * 1024, 0x2a);

/** ftyp [+ moov] + an mdat box with the remaining bytes: exactly `totalBytes`, never buffered whole. */
export function mp4Body(totalBytes: number, durationSec: number, withMoov = true): Body {
	const header = withMoov ? Buffer.concat([ftypBox(), moovBox(durationSec)]) : ftypBox();
	const mdatSize = Math.max(8, totalBytes - header.length);
	const length = header.length + mdatSize;
	const mdatHead = Buffer.alloc(8);
	mdatHead.writeUInt32BE(mdatSize > 0xffffffff ? 0 : mdatSize, 0); // 0 = box runs to the end of the file
	mdatHead.write('mdat', 4, 'latin1');
	return {
		length,
		*chunks() {
			yield Buffer.concat([header, mdatHead]);
			for (let left = mdatSize - 8; left > 0; left -= FILLER.length) yield FILLER.subarray(0, Math.min(FILLER.length, left));
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
