/**
 * Result images padded to a target size while staying valid files: a small per-result tag (so each result differs)
 * plus a padding block, both in the format's own container (PNG chunks, JPEG COM segments, WebP RIFF chunks).
 * The base image and its padding block are built once per (base, target); a result costs one tiny tag.
 */
import { crc32 } from 'node:zlib';
import { baseImage, type ImageFormat } from './images';

/** Every result tag has this many bytes of text, so the padding block depends only on the base and the target. */
const TAG_TEXT = 40;

interface Padded {
	/** bytes before the tag */
	head: Buffer;
	/** the padding block and what follows it */
	tail: Buffer[];
	length: number;
}

const MAX_PLANS = 64;
const plans = new Map<string, Promise<Padded>>();

/** The parts of a result image: natural when `padTo` is 0, else padded to at least `padTo` bytes and tagged with `tag`. */
export async function resultImage(
	width: number,
	height: number,
	format: ImageFormat,
	variant: number,
	tag: string,
	padTo: number,
): Promise<Buffer[]> {
	if (padTo <= 0) return [await baseImage(width, height, format, variant)];
	const key = `${width}x${height}.${format}.${padTo}`;
	let plan = plans.get(key);
	if (!plan) {
		// one base per (width, height, format): results differ by their tag, not their pixels
		plan = baseImage(width, height, format, 0).then((base) => planFor(base, format, padTo));
		plans.set(key, plan);
		plan.catch(() => plans.delete(key));
		if (plans.size > MAX_PLANS) plans.delete(plans.keys().next().value!);
	}
	const p = await plan;
	return [p.head, tagBlock(format, tag), ...p.tail];
}

export async function resultImageBuffer(
	width: number,
	height: number,
	format: ImageFormat,
	variant: number,
	tag: string,
	padTo: number,
): Promise<Buffer> {
	return Buffer.concat(await resultImage(width, height, format, variant, tag, padTo));
}

function tagText(tag: string): Buffer {
	return Buffer.from(`sim-result ${tag}`.slice(0, TAG_TEXT).padEnd(TAG_TEXT, ' '), 'latin1');
}

function tagBlock(format: ImageFormat, tag: string): Buffer {
	const text = tagText(tag);
	if (format === 'png')
		return pngChunk('tEXt', Buffer.concat([Buffer.from('Comment\0', 'latin1'), text]));
	if (format === 'jpeg') return jpegSegment(0xfe, text);
	return riffChunk('SIMT', text);
}

function planFor(base: Buffer, format: ImageFormat, padTo: number): Padded {
	const tagLength = tagBlock(format, '').length;
	if (format === 'png') {
		const iend = base.length - 12;
		const head = base.subarray(0, iend);
		const pad = padTo - base.length - tagLength;
		const block = pad > 0 ? pngChunk('paDd', Buffer.alloc(Math.max(0, pad - 12))) : Buffer.alloc(0);
		return {
			head,
			tail: [block, base.subarray(iend)],
			length: base.length + tagLength + block.length,
		};
	}
	if (format === 'jpeg') {
		// COM segments right after SOI (at most 65 533 bytes of payload each)
		const head = base.subarray(0, 2);
		let pad = padTo - base.length - tagLength;
		const blocks: Buffer[] = [];
		while (pad > 0) {
			const payload = Math.min(65_533, Math.max(0, pad - 4));
			blocks.push(jpegSegment(0xfe, Buffer.alloc(payload, 0x20)));
			pad -= payload + 4;
		}
		const block = Buffer.concat(blocks);
		return {
			head,
			tail: [block, base.subarray(2)],
			length: base.length + tagLength + block.length,
		};
	}
	return planWebp(base, padTo, tagLength);
}

/** Extra chunks are only allowed in the extended WebP format, so a simple file gains a VP8X header first. */
function planWebp(base: Buffer, padTo: number, tagLength: number): Padded {
	let chunks = base.subarray(12);
	if (chunks.subarray(0, 4).toString('latin1') !== 'VP8X') {
		const [w, h, alpha] = webpCanvas(chunks);
		const vp8x = Buffer.alloc(10);
		vp8x[0] = alpha ? 0x10 : 0;
		vp8x.writeUIntLE(w - 1, 4, 3);
		vp8x.writeUIntLE(h - 1, 7, 3);
		chunks = Buffer.concat([riffChunk('VP8X', vp8x), chunks]);
	}
	const natural = 12 + chunks.length + tagLength;
	const pad = padTo - natural;
	const block = pad > 0 ? riffChunk('SIMP', Buffer.alloc(Math.max(0, pad - 8))) : Buffer.alloc(0);
	const total = natural + block.length;
	const riff = Buffer.alloc(12);
	riff.write('RIFF', 0, 'latin1');
	riff.writeUInt32LE(total - 8, 4);
	riff.write('WEBP', 8, 'latin1');
	// the tag and the padding go after the image chunks
	return { head: Buffer.concat([riff, chunks]), tail: [block], length: total };
}

/** Canvas size and alpha of a simple-format WebP (its first chunk is VP8 or VP8L). */
function webpCanvas(chunks: Buffer): [number, number, boolean] {
	const type = chunks.subarray(0, 4).toString('latin1');
	const data = chunks.subarray(8);
	if (type === 'VP8L') {
		const bits = data.readUInt32LE(1);
		return [(bits & 0x3fff) + 1, ((bits >>> 14) & 0x3fff) + 1, ((bits >>> 28) & 1) === 1];
	}
	return [data.readUInt16LE(6) & 0x3fff, data.readUInt16LE(8) & 0x3fff, false];
}

export function pngChunk(type: string, data: Buffer): Buffer {
	const out = Buffer.alloc(12 + data.length);
	out.writeUInt32BE(data.length, 0);
	out.write(type, 4, 'latin1');
	data.copy(out, 8);
	out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
	return out;
}

function jpegSegment(marker: number, payload: Buffer): Buffer {
	const head = Buffer.from([0xff, marker, 0, 0]);
	head.writeUInt16BE(payload.length + 2, 2);
	return Buffer.concat([head, payload]);
}

function riffChunk(type: string, payload: Buffer): Buffer {
	const head = Buffer.alloc(8);
	head.write(type, 0, 'latin1');
	head.writeUInt32LE(payload.length, 4);
	return Buffer.concat([head, payload, payload.length % 2 ? Buffer.alloc(1) : Buffer.alloc(0)]);
}
