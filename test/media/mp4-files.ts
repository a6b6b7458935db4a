/**
 * Hand-built MP4 files with real sample tables, for tests of the streaming checker that need exact layouts (64-bit
 * sizes, an mdat running to the end of the file, moov after mdat, gigabytes of media data) without an encoder.
 * The video track (H.264: an avcC with 4-byte NAL lengths) holds `samples` samples of `sampleBytes` each, in one
 * chunk at the start of the media data; each sample is one NAL unit.
 */
export function box(type: string, ...payload: Buffer[]): Buffer {
	const p = Buffer.concat(payload);
	const h = Buffer.alloc(8);
	h.writeUInt32BE(8 + p.length, 0);
	h.write(type, 4, 'latin1');
	return Buffer.concat([h, p]);
}

/** A full box: version 0, flags 0, then `payload`. */
export const fullBox = (type: string, ...payload: Buffer[]) => box(type, Buffer.alloc(4), ...payload);

const u32 = (...v: number[]) => {
	const b = Buffer.alloc(4 * v.length);
	v.forEach((x, i) => b.writeUInt32BE(x, i * 4));
	return b;
};

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
}

/** The moov box of a layout whose first chunk starts at `chunkOffset`. */
export function moovBox(l: Mp4Layout, chunkOffset: number): Buffer {
	const stbl = box(
		'stbl',
		fullBox('stsd', u32(1), box('avc1', Buffer.alloc(78), box('avcC', Buffer.from([1, 0x42, 0, 0x1e, 0xff, 0xe1, 0, 4, 0x67, 0x42, 0, 0x1e, 1, 0, 2, 0x68, 0xce])))),
		fullBox('stts', u32(1, l.samples, 1000)),
		fullBox('stsc', u32(1, 1, l.samples, 1)),
		fullBox('stsz', u32(l.sampleBytes, l.samples)),
		fullBox('stco', u32(1, chunkOffset)),
	);
	const hdlr = fullBox('hdlr', u32(0), Buffer.from('vide', 'latin1'), Buffer.alloc(12), Buffer.from('video\0'));
	const trak = box('trak', fullBox('tkhd', Buffer.alloc(80)), box('mdia', fullBox('mdhd', Buffer.alloc(20)), hdlr, box('minf', fullBox('vmhd', Buffer.alloc(8)), stbl)));
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
	if (l.moov === 'after') return { head: Buffer.concat([ftyp, mdat]), payload, trailer: moovBox(l, ftyp.length + mdat.length) };
	const moovLength = moovBox(l, 0).length;
	return { head: Buffer.concat([ftyp, moovBox(l, ftyp.length + moovLength + mdat.length), mdat]), payload, trailer: Buffer.alloc(0) };
}

/** Media data of a layout: each sample one NAL unit (its 4-byte length, then 0x2a bytes); then the tail. */
export function mediaData(l: Mp4Layout): Buffer {
	const b = Buffer.alloc(l.samples * l.sampleBytes + (l.tail ?? 0), 0x2a);
	for (let i = 0; i < l.samples; i++) b.writeUInt32BE(l.sampleBytes - 4, i * l.sampleBytes);
	return b;
}

/** A whole small MP4 of a layout. */
export function mp4File(l: Mp4Layout): Buffer {
	const { head, trailer } = mp4Parts(l);
	return Buffer.concat([head, mediaData(l), trailer]);
}
