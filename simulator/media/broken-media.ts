/** Broken and hostile result bodies for the download faults: each is what a misbehaving upstream really sends. */
import type { Body } from './body';
import { ftypBox } from './mp4';
import { pngChunk } from './padding';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** PNG signature + IHDR only: 33 bytes claiming `width` × `height` (default 100000 × 100000). */
export function headerOnlyPng(width = 100_000, height = 100_000): Buffer {
	const ihdr = Buffer.alloc(13);
	ihdr.writeUInt32BE(width, 0);
	ihdr.writeUInt32BE(height, 4);
	ihdr[8] = 8; // bit depth
	ihdr[9] = 2; // truecolour
	return Buffer.concat([PNG_SIGNATURE, pngChunk('IHDR', ihdr)]);
}

/** The first `fraction` of a real image. */
export function truncatedImage(image: Buffer, fraction = 0.6): Buffer {
	return image.subarray(0, Math.floor(image.length * fraction));
}

/** A JPEG's header segments (everything before the first SOS): no scan data, no EOI. */
export function jpegWithoutScan(jpeg: Buffer): Buffer {
	let i = 2;
	while (i + 4 <= jpeg.length && jpeg[i] === 0xff) {
		const marker = jpeg[i + 1];
		if (marker === 0xda) break;
		i += 2 + jpeg.readUInt16BE(i + 2);
	}
	return jpeg.subarray(0, i);
}

/** Deterministic junk that is neither image data nor text. */
export function junk(bytes: number, seed = 7): Buffer {
	const out = Buffer.alloc(bytes);
	let x = seed >>> 0 || 1;
	for (let i = 0; i < bytes; i++) {
		x ^= x << 13;
		x ^= x >>> 17;
		x ^= x << 5;
		out[i] = x & 0xff;
	}
	return out;
}

/** A valid image followed by junk bytes. */
export function paddedWithJunk(image: Buffer, bytes = 4096): Buffer {
	return Buffer.concat([image, junk(bytes)]);
}

/** A valid PNG header for `width` × `height` followed by junk: what a broken `b64_json` decodes to. */
export function pngHeaderThenJunk(width: number, height: number): Buffer {
	return Buffer.concat([headerOnlyPng(width, height), junk(2048)]);
}

/** An 8-byte file: a box header saying `ftyp` and nothing else. */
export function shortMp4(): Buffer {
	return Buffer.from([0, 0, 0, 8, 0x66, 0x74, 0x79, 0x70]);
}

const ENDLESS_CHUNK = 64 * 1024;

/** A PNG signature and then bytes for ever. */
export function endlessPng(): Body {
	return {
		*chunks() {
			yield PNG_SIGNATURE;
			const filler = junk(ENDLESS_CHUNK);
			for (;;) yield filler;
		},
	};
}

/** ftyp and an mdat box that runs to the end of a file that never ends. */
export function endlessMp4(): Body {
	const mdat = Buffer.from([0, 0, 0, 0, 0x6d, 0x64, 0x61, 0x74]);
	return {
		*chunks() {
			yield Buffer.concat([ftypBox(), mdat]);
			const filler = Buffer.alloc(ENDLESS_CHUNK, 0x2a);
			for (;;) yield filler;
		},
	};
}
