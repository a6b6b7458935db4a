/**
 * Hand-built MP4 files with real sample tables, for tests of the streaming checker that need exact layouts (64-bit
 * sizes, an mdat running to the end of the file, moov after mdat, gigabytes of media data) without an encoder.
 * The video track (H.264, 32x32: an avc1 entry whose avcC, with 4-byte NAL lengths, holds the real SPS and PPS of
 * simulator/real-video.ts) holds `samples` samples of `sampleBytes` each, in one chunk at the start of the media data;
 * each sample is one NAL unit: an IDR slice first, then non-IDR slices (their payload is filler, not a real picture:
 * the node does not decode pictures).
 */
export function box(type: string, ...payload: Buffer[]): Buffer {
	const p = Buffer.concat(payload);
	const h = Buffer.alloc(8);
	h.writeUInt32BE(8 + p.length, 0);
	h.write(type, 4, 'latin1');
	return Buffer.concat([h, p]);
}

/** A full box: version 0, flags 0, then `payload`. */
export const fullBox = (type: string, ...payload: Buffer[]) =>
	box(type, Buffer.alloc(4), ...payload);

const u32 = (...v: number[]) => {
	const b = Buffer.alloc(4 * v.length);
	v.forEach((x, i) => b.writeUInt32BE(x, i * 4));
	return b;
};

/** the avcC of simulator/real-video.ts: Constrained Baseline, 32x32, 4-byte NAL lengths, one SPS, one PPS */
export const AVCC = Buffer.from(
	'0142c00affe100166742c00ad9096c044000000300400000030083c4899201000568cb83cb20',
	'hex',
);

/** A visual sample entry's 78 bytes of fields: data reference 1, `width` x `height`, 72 dpi, one frame per sample, depth 24. */
export function visualFields(width: number, height: number): Buffer {
	const f = Buffer.alloc(78);
	f.writeUInt16BE(1, 6);
	f.writeUInt16BE(width, 24);
	f.writeUInt16BE(height, 26);
	f.writeUInt32BE(0x480000, 28);
	f.writeUInt32BE(0x480000, 32);
	f.writeUInt16BE(1, 40);
	f.writeUInt16BE(24, 74);
	f.writeInt16BE(-1, 76);
	return f;
}

/** The stsd box of the layout's video track: one `avc1` entry (its type and boxes can be replaced). */
export const stsdBox = (entry = 'avc1', ...boxes: Buffer[]) =>
	fullBox(
		'stsd',
		u32(1),
		box(entry, visualFields(32, 32), ...(boxes.length ? boxes : [box('avcC', AVCC)])),
	);

export const ftyp = box('ftyp', Buffer.from('isom\0\0\x02\0isomiso2avc1mp41', 'latin1'));

export interface Mp4Layout {
	samples: number;
	sampleBytes: number;
	/** bytes in mdat after the samples (unreferenced) */
	tail?: number;
	/** 'after': moov follows mdat (no faststart) */
	moov?: 'before' | 'after';
	/** how the mdat box states its size */
	mdatSize?: '32' | '64' | 'to-end';
	/** the video track's stsd box (default: stsdBox()) */
	stsd?: Buffer;
}

/** The moov box of a layout whose first chunk starts at `chunkOffset`. */
export function moovBox(l: Mp4Layout, chunkOffset: number): Buffer {
	const stbl = box(
		'stbl',
		l.stsd ?? stsdBox(),
		fullBox('stts', u32(1, l.samples, 1000)),
		fullBox('stsc', u32(1, 1, l.samples, 1)),
		fullBox('stsz', u32(l.sampleBytes, l.samples)),
		fullBox('stco', u32(1, chunkOffset)),
	);
	const hdlr = fullBox(
		'hdlr',
		u32(0),
		Buffer.from('vide', 'latin1'),
		Buffer.alloc(12),
		Buffer.from('video\0'),
	);
	const trak = box(
		'trak',
		fullBox('tkhd', Buffer.alloc(80)),
		box(
			'mdia',
			fullBox('mdhd', Buffer.alloc(20)),
			hdlr,
			box('minf', fullBox('vmhd', Buffer.alloc(8)), stbl),
		),
	);
	return box('moov', fullBox('mvhd', Buffer.alloc(96)), trak);
}

/** The mdat header for `payload` bytes of media data. */
export function mdatHeader(payload: number, size: Mp4Layout['mdatSize'] = '32'): Buffer {
	if (size === '64') {
		const h = Buffer.alloc(16);
		h.writeUInt32BE(1, 0);
		h.write('mdat', 4, 'latin1');
		h.writeBigUInt64BE(BigInt(16 + payload), 8);
		return h;
	}
	const h = Buffer.alloc(8);
	h.writeUInt32BE(size === 'to-end' ? 0 : 8 + payload, 0);
	h.write('mdat', 4, 'latin1');
	return h;
}

/** Everything before the media data (and after it, when moov follows mdat), and the media data's size. */
export function mp4Parts(l: Mp4Layout): { head: Buffer; payload: number; trailer: Buffer } {
	const payload = l.samples * l.sampleBytes + (l.tail ?? 0);
	const mdat = mdatHeader(payload, l.mdatSize);
	if (l.moov === 'after')
		return {
			head: Buffer.concat([ftyp, mdat]),
			payload,
			trailer: moovBox(l, ftyp.length + mdat.length),
		};
	const moovLength = moovBox(l, 0).length;
	return {
		head: Buffer.concat([ftyp, moovBox(l, ftyp.length + moovLength + mdat.length), mdat]),
		payload,
		trailer: Buffer.alloc(0),
	};
}

/** Media data of a layout: each sample one NAL unit (its 4-byte length, an IDR slice header 0x65 first then non-IDR 0x41, then 0x2a bytes); then the tail. */
export function mediaData(l: Mp4Layout): Buffer {
	const b = Buffer.alloc(l.samples * l.sampleBytes + (l.tail ?? 0), 0x2a);
	for (let i = 0; i < l.samples; i++) {
		b.writeUInt32BE(l.sampleBytes - 4, i * l.sampleBytes);
		b[i * l.sampleBytes + 4] = i ? 0x41 : 0x65;
	}
	return b;
}

/** A whole small MP4 of a layout. */
export function mp4File(l: Mp4Layout): Buffer {
	const { head, trailer } = mp4Parts(l);
	return Buffer.concat([head, mediaData(l), trailer]);
}

/** boxes whose payload is boxes (after `skip` bytes of fields): the path down to a track's sample entries and their boxes */
const CONTAINERS: Record<string, number> = {
	moov: 0,
	trak: 0,
	mdia: 0,
	minf: 0,
	stbl: 0,
	edts: 0,
	stsd: 8,
	avc1: 78,
	avc3: 78,
	hvc1: 78,
	hev1: 78,
	encv: 78,
	mp4a: 28,
	enca: 28,
};

export interface FoundBox {
	type: string;
	start: number;
	end: number;
	/** the boxes that hold it, outermost first */
	parents: FoundBox[];
}

/** Every box of a (valid) MP4 down through CONTAINERS, in file order. */
export function boxesOf(b: Buffer, from = 0, to = b.length, parents: FoundBox[] = []): FoundBox[] {
	const out: FoundBox[] = [];
	for (let p = from; p + 8 <= to;) {
		const size = b.readUInt32BE(p) || to - p;
		const found = { type: b.toString('latin1', p + 4, p + 8), start: p, end: p + size, parents };
		out.push(found);
		const skip = CONTAINERS[found.type];
		if (skip !== undefined) out.push(...boxesOf(b, p + 8 + skip, p + size, [...parents, found]));
		p += size;
	}
	return out;
}

/** The `n`th box of `type` (0 first). */
export function findBox(b: Buffer, type: string, n = 0): FoundBox {
	const found = boxesOf(b).filter((x) => x.type === type)[n];
	if (!found) throw new Error(`no '${type}' box`);
	return found;
}

/**
 * A copy of a faststart MP4 (moov before mdat) with one box replaced by `replacement` (a whole box, or nothing):
 * the sizes of the boxes around it and every chunk offset (stco) move with it, so the file stays consistent.
 */
export function replaceBox(b: Buffer, target: FoundBox, replacement: Buffer): Buffer {
	const delta = replacement.length - (target.end - target.start);
	const out = Buffer.concat([b.subarray(0, target.start), replacement, b.subarray(target.end)]);
	for (const p of target.parents) out.writeUInt32BE(out.readUInt32BE(p.start) + delta, p.start);
	for (const stco of boxesOf(out).filter((x) => x.type === 'stco')) {
		for (let i = 0, n = out.readUInt32BE(stco.start + 12); i < n; i++) {
			const at = stco.start + 16 + i * 4;
			if (out.readUInt32BE(at) > target.start) out.writeUInt32BE(out.readUInt32BE(at) + delta, at);
		}
	}
	return out;
}

/** A copy with the four-character type of a box changed (its size unchanged). */
export function retype(b: Buffer, target: FoundBox, type: string): Buffer {
	const out = Buffer.from(b);
	out.write(type, target.start + 4, 'latin1');
	return out;
}

/** Where each sample of the `n`th track starts and how long it is (from its stsz, stsc and stco). */
export function samplesOf(b: Buffer, n = 0): Array<{ start: number; size: number }> {
	const trak = findBox(b, 'trak', n);
	const inTrak = boxesOf(b, trak.start + 8, trak.end);
	const get = (type: string) => inTrak.find((x) => x.type === type)!;
	const stsz = get('stsz').start + 12;
	const fixed = b.readUInt32BE(stsz);
	const count = b.readUInt32BE(stsz + 4);
	const size = (i: number) => fixed || b.readUInt32BE(stsz + 8 + i * 4);
	const stco = get('stco').start + 12;
	const chunks = b.readUInt32BE(stco);
	const stsc = get('stsc').start + 12;
	const runs = b.readUInt32BE(stsc);
	const out: Array<{ start: number; size: number }> = [];
	for (let r = 0; r < runs; r++) {
		const first = b.readUInt32BE(stsc + 4 + r * 12);
		const per = b.readUInt32BE(stsc + 8 + r * 12);
		const next = r + 1 < runs ? b.readUInt32BE(stsc + 4 + (r + 1) * 12) : chunks + 1;
		for (let c = first; c < next; c++) {
			let at = b.readUInt32BE(stco + 4 + (c - 1) * 4);
			for (let k = 0; k < per && out.length < count; k++) {
				out.push({ start: at, size: size(out.length) });
				at += size(out.length - 1);
			}
		}
	}
	return out;
}
