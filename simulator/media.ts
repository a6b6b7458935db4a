/** Real media: PNG/JPEG/WebP images encoded with sharp, and MP4 files produced chunk by chunk. */
import { Readable } from 'node:stream';
import sharp from 'sharp';
import { REAL_MP4 } from './real-video';

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

/** A body whose bytes are produced lazily, chunk by chunk; without a `length` it is sent chunked (and may never end). */
export interface Body {
	length?: number;
	chunks(): Iterable<Buffer>;
}

const FILLER = Buffer.alloc(64 * 1024, 0x2a);

/** Where the real video's media data starts: its ftyp, moov and free boxes, then its mdat box. */
function realParts(): { head: Buffer; payload: Buffer } {
	let at = 0;
	while (at + 8 <= REAL_MP4.length) {
		const size = REAL_MP4.readUInt32BE(at);
		if (REAL_MP4.toString('latin1', at + 4, at + 8) === 'mdat') return { head: REAL_MP4.subarray(0, at), payload: REAL_MP4.subarray(at + 8, at + size) };
		at += size;
	}
	throw new Error('the embedded video has no mdat box');
}

/**
 * A playable MP4 of `totalBytes` (at least the real video's size), never buffered whole: the real video's boxes, then
 * its mdat grown with unreferenced filler. `durationSec` is what the task asked for; the file itself lasts one frame.
 * Without moov: ftyp and an mdat of filler only (a broken file).
 */
export function mp4Body(totalBytes: number, _durationSec: number, withMoov = true): Body {
	if (!withMoov) {
		const ftyp = ftypBox();
		const mdatSize = Math.max(8, totalBytes - ftyp.length);
		const mdatHead = Buffer.alloc(8);
		mdatHead.writeUInt32BE(mdatSize > 0xffffffff ? 0 : mdatSize, 0);
		mdatHead.write('mdat', 4, 'latin1');
		return {
			length: ftyp.length + mdatSize,
			*chunks() {
				yield Buffer.concat([ftyp, mdatHead]);
				for (let left = mdatSize - 8; left > 0; left -= FILLER.length) yield FILLER.subarray(0, Math.min(FILLER.length, left));
			},
		};
	}
	const { head, payload } = realParts();
	const mdatSize = Math.max(8 + payload.length, totalBytes - head.length);
	const mdatHead = Buffer.alloc(8);
	mdatHead.writeUInt32BE(mdatSize > 0xffffffff ? 0 : mdatSize, 0); // 0 = the box runs to the end of the file
	mdatHead.write('mdat', 4, 'latin1');
	return {
		length: head.length + mdatSize,
		*chunks() {
			yield Buffer.concat([head, mdatHead, payload]);
			for (let left = mdatSize - 8 - payload.length; left > 0; left -= FILLER.length) yield FILLER.subarray(0, Math.min(FILLER.length, left));
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
