/** Real media: PNG/JPEG/WebP images encoded with sharp, and MP4 files streamed in chunks. */
import { Readable } from 'node:stream';
import sharp from 'sharp';

export type ImageFormat = 'png' | 'jpeg' | 'webp';

const cache = new Map<string, Buffer>();

/** A small gradient image of exactly width × height; cached per (size, format, seed). */
export async function makeImage(width: number, height: number, format: ImageFormat, seed: number): Promise<Buffer> {
	const key = `${width}x${height}.${format}.${seed % 16}`;
	const hit = cache.get(key);
	if (hit) return hit;
	const hue = (seed * 47) % 360;
	const svg = Buffer.from(
		`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="hsl(${hue},70%,55%)"/><stop offset="1" stop-color="hsl(${(hue + 120) % 360},70%,35%)"/></linearGradient></defs><rect width="100%" height="100%" fill="url(#g)"/><circle cx="${width / 2}" cy="${height / 2}" r="${Math.min(width, height) / 4}" fill="rgba(255,255,255,0.35)"/></svg>`,
	);
	let img = sharp(svg);
	img = format === 'png' ? img.png({ compressionLevel: 9, palette: true }) : format === 'jpeg' ? img.jpeg({ quality: 70 }) : img.webp({ quality: 70 });
	const buf = await img.toBuffer();
	if (cache.size > 200) cache.clear();
	cache.set(key, buf);
	return buf;
}

function box(type: string, payload: Buffer): Buffer {
	const head = Buffer.alloc(8);
	head.writeUInt32BE(8 + payload.length, 0);
	head.write(type, 4, 'latin1');
	return Buffer.concat([head, payload]);
}

/** ftyp + moov(mvhd) header; an mdat box follows with the remaining bytes. */
function mp4Header(durationSec: number): Buffer {
	const ftyp = box('ftyp', Buffer.concat([Buffer.from('isom', 'latin1'), Buffer.from([0, 0, 2, 0]), Buffer.from('isomiso2avc1mp41', 'latin1')]));
	const mvhd = Buffer.alloc(100);
	mvhd.writeUInt32BE(1000, 12); // timescale
	mvhd.writeUInt32BE(Math.round(durationSec * 1000), 16);
	mvhd.writeUInt32BE(0x00010000, 20); // rate 1.0
	mvhd.writeUInt16BE(0x0100, 24); // volume 1.0
	const matrix = [0x00010000, 0, 0, 0, 0x00010000, 0, 0, 0, 0x40000000];
	matrix.forEach((v, i) => mvhd.writeUInt32BE(v, 36 + i * 4));
	mvhd.writeUInt32BE(2, 96); // next track id
	const moov = box('moov', box('mvhd', mvhd));
	return Buffer.concat([ftyp, moov]);
}

/** An MP4 of exactly `totalBytes`, generated lazily (never buffered whole). */
export function mp4Stream(totalBytes: number, durationSec: number, truncateAt?: number): { stream: Readable; length: number } {
	const header = mp4Header(durationSec);
	const mdatSize = Math.max(8, totalBytes - header.length);
	const length = header.length + mdatSize;
	const mdatHead = Buffer.alloc(8);
	mdatHead.writeUInt32BE(mdatSize > 0xffffffff ? 0 : mdatSize, 0); // 0 = box runs to the end of the file
	mdatHead.write('mdat', 4, 'latin1');
	const chunk = Buffer.alloc(64 * 1024, 0x2a);
	let sent = 0;
	const limit = truncateAt ?? length;
	const stream = new Readable({
		read() {
			if (sent >= limit) {
				if (truncateAt !== undefined) this.destroy(new Error('truncated'));
				else this.push(null);
				return;
			}
			let piece: Buffer;
			if (sent === 0) piece = Buffer.concat([header, mdatHead]);
			else piece = chunk.subarray(0, Math.min(chunk.length, limit - sent));
			sent += piece.length;
			this.push(piece);
		},
	});
	return { stream, length };
}
