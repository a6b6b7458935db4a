/**
 * An MP4 `moov` box, parsed whole from memory: its children tile it, down through trak/mdia/minf/stbl; each track's
 * sample tables (stsd, stts, stsc, stsz or stz2, stco or co64) are complete and agree on the sample count, and its
 * optional tables (stss, stps, ctts, sbgp, elst) hold the entries they count; and the
 * byte range of every chunk (its offset, and the sizes of the samples stsc puts in it) is returned so the caller can
 * hold it to the file's media data. Fragmented files (`mvex`) are refused: their samples are not in these tables.
 */
import { invalid, type InvalidMediaError } from './errors';

export interface ParsedMoov {
	tracks: number;
	samples: number;
	chunks: number;
	/** the samples of H.264/H.265 tracks, whose NAL units must tile each sample (nal.ts) */
	framed: FramedSamples;
}

/** the most H.264/H.265 samples kept for the NAL check (an hour at 60 frames a second is 216,000) */
export const MAX_FRAMED_SAMPLES = 4_000_000;

/** Sample positions, sizes and NAL length-field sizes, in typed arrays grown as needed (bounded by MAX_FRAMED_SAMPLES). */
export class FramedSamples {
	count = 0;
	starts = new Float64Array(1024);
	sizes = new Uint32Array(1024);
	lengthSizes = new Uint8Array(1024);
	tracks = new Uint16Array(1024);

	add(start: number, size: number, lengthSize: number, track: number): void {
		if (this.count === MAX_FRAMED_SAMPLES) throw fail(`more than ${MAX_FRAMED_SAMPLES} video samples`);
		if (this.count === this.starts.length) {
			const grow = <T extends Float64Array | Uint32Array | Uint8Array | Uint16Array>(a: T): T => {
				const b = new (a.constructor as new (n: number) => T)(Math.min(MAX_FRAMED_SAMPLES, a.length * 2));
				b.set(a);
				return b;
			};
			this.starts = grow(this.starts);
			this.sizes = grow(this.sizes);
			this.lengthSizes = grow(this.lengthSizes);
			this.tracks = grow(this.tracks);
		}
		this.starts[this.count] = start;
		this.sizes[this.count] = size;
		this.lengthSizes[this.count] = lengthSize;
		this.tracks[this.count] = track;
		this.count++;
	}
}

/** Called with every chunk's byte range in the file [start, end), track by track; throws when it is not media data. */
export type ChunkCheck = (start: number, end: number, track: number) => void;

interface Box {
	type: string;
	/** payload, after the header */
	data: Buffer;
	/** absolute offset of the box in the file */
	at: number;
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

const fail = (why: string): InvalidMediaError => invalid('MP4', why);

/** The child boxes of a payload, which must tile it exactly. */
function children(parent: Box): Box[] {
	const out: Box[] = [];
	const d = parent.data;
	let pos = 0;
	while (pos < d.length) {
		const at = parent.at + pos;
		if (pos + 8 > d.length) throw fail(`${d.length - pos} bytes at byte ${at} inside its '${parent.type}' box are not a box`);
		let size = d.readUInt32BE(pos);
		const type = d.toString('latin1', pos + 4, pos + 8);
		let head = 8;
		if (!/^[\x20-\x7e]{4}$/.test(type)) throw fail(`no box at byte ${at} inside its '${parent.type}' box (damaged data)`);
		if (size === 1) {
			if (pos + 16 > d.length) throw fail(`its '${type}' box at byte ${at} is cut`);
			const big = d.readBigUInt64BE(pos + 8);
			size = big > MAX_SAFE ? Infinity : Number(big);
			head = 16;
		} else if (size === 0) size = d.length - pos;
		if (size < head || pos + size > d.length) throw fail(`its '${type}' box at byte ${at} runs past the end of its '${parent.type}' box`);
		out.push({ type, data: d.subarray(pos + head, pos + size), at: at + head });
		pos += size;
	}
	return out;
}

function one(parent: Box, kids: Box[], type: string): Box {
	const found = kids.filter((k) => k.type === type);
	if (found.length !== 1) throw fail(`its '${parent.type}' box has ${found.length ? `${found.length} '${type}' boxes` : `no '${type}' box`}`);
	return found[0];
}

function either(parent: Box, kids: Box[], a: string, b: string): Box {
	const found = kids.filter((k) => k.type === a || k.type === b);
	if (found.length !== 1) throw fail(`its '${parent.type}' box has ${found.length ? 'more than one' : 'no'} '${a}' or '${b}' box`);
	return found[0];
}

/** A full box's payload after version and flags, at least `min` bytes. */
function full(box: Box, min: number): Buffer {
	if (box.data.length < 4 + min) throw fail(`its '${box.type}' box at byte ${box.at} is too short`);
	return box.data.subarray(4);
}

/** `count` entries of `size` bytes after an entry count, filling the rest of the box exactly. */
function table(box: Box, d: Buffer, from: number, size: number): number {
	const count = d.readUInt32BE(from);
	if (d.length !== from + 4 + count * size) throw fail(`its '${box.type}' box at byte ${box.at} holds ${d.length - from - 4} bytes for ${count} entries of ${size}`);
	return count;
}

/** Sample sizes, from stsz (one size for all, or a table) or stz2 (packed table). */
function sampleSizes(box: Box): { count: number; fixed?: number; size: (i: number) => number } {
	if (box.type === 'stsz') {
		const d = full(box, 8);
		const fixed = d.readUInt32BE(0);
		if (fixed) {
			if (d.length !== 8) throw fail(`its 'stsz' box at byte ${box.at} has a fixed size and a table`);
			return { count: d.readUInt32BE(4), fixed, size: () => fixed };
		}
		const count = table(box, d, 4, 4);
		return { count, size: (i) => d.readUInt32BE(8 + i * 4) };
	}
	const d = full(box, 8);
	const bits = d[3];
	const count = d.readUInt32BE(4);
	if (bits !== 4 && bits !== 8 && bits !== 16) throw fail(`its 'stz2' box has ${bits}-bit sizes`);
	if (d.length !== 8 + Math.ceil((count * bits) / 8)) throw fail(`its 'stz2' box at byte ${box.at} does not hold ${count} sizes`);
	if (bits === 16) return { count, size: (i) => d.readUInt16BE(8 + i * 2) };
	if (bits === 8) return { count, size: (i) => d[8 + i] };
	return { count, size: (i) => (i & 1 ? d[8 + (i >> 1)] & 15 : d[8 + (i >> 1)] >> 4) };
}

function chunkOffsets(box: Box): { count: number; offset: (i: number) => number } {
	const d = full(box, 4);
	if (box.type === 'stco') {
		const count = table(box, d, 0, 4);
		return { count, offset: (i) => d.readUInt32BE(4 + i * 4) };
	}
	const count = table(box, d, 0, 8);
	return {
		count,
		offset: (i) => {
			const v = d.readBigUInt64BE(4 + i * 8);
			if (v > MAX_SAFE) throw fail(`a chunk offset of ${v} bytes`);
			return Number(v);
		},
	};
}

/** The NAL length-field size of an H.264 (avcC) or H.265 (hvcC) sample description; undefined for other codecs. */
function nalLengthSize(entry: Box, track: number): number | undefined {
	const config = { avc1: 'avcC', avc3: 'avcC', hvc1: 'hvcC', hev1: 'hvcC' }[entry.type];
	if (!config) return undefined;
	if (entry.data.length < 78) throw fail(`the '${entry.type}' sample description of track ${track} is too short`);
	const boxes = children({ type: entry.type, data: entry.data.subarray(78), at: entry.at + 78 });
	const c = boxes.find((k) => k.type === config);
	if (!c) throw fail(`the '${entry.type}' sample description of track ${track} has no '${config}' decoder configuration`);
	const at = config === 'avcC' ? 4 : 21;
	if (c.data.length <= at) throw fail(`its '${config}' box of track ${track} is too short`);
	const size = (c.data[at] & 3) + 1;
	if (size === 3) throw fail(`its '${config}' box of track ${track} gives 3-byte NAL lengths`);
	const sets = config === 'avcC' ? avcParameterSets(c.data) : hevcParameterSets(c.data);
	if (!sets) throw fail(`its '${config}' box of track ${track} is damaged (its parameter sets do not fit it)`);
	// parameter sets may travel inside the samples instead (avc3, hev1)
	const needed = entry.type === 'avc1' ? [7, 8] : entry.type === 'hvc1' ? [33, 34] : [];
	for (const t of needed) if (!sets.includes(t)) throw fail(`its '${config}' box of track ${track} has no ${t === 7 || t === 33 ? 'sequence' : 'picture'} parameter set`);
	return size;
}

/** A visual sample entry's pixel aspect ratio (`pasp`), when it has one: two spacings a decoder can read as positive 32-bit numbers. */
function checkPixelAspect(entry: Box, track: number): void {
	let pasp: Box | undefined;
	try {
		pasp = children({ type: entry.type, data: entry.data.subarray(78), at: entry.at + 86 }).find((k) => k.type === 'pasp');
	} catch {
		return; // a sample entry whose tail is not boxes (AVC and HEVC entries are held to boxes in nalLengthSize)
	}
	if (!pasp) return;
	if (pasp.data.length !== 8 || pasp.data.readUInt32BE(0) > 0x7fffffff || pasp.data.readUInt32BE(4) > 0x7fffffff) throw fail(`the pixel aspect ratio ('pasp') of track ${track} is damaged`);
}

/** the AVC profiles whose avcC may carry the chroma and bit-depth extension after its picture parameter sets */
const AVC_EXTENDED_PROFILES = [100, 110, 122, 144];

/**
 * NAL unit types of an avcC's parameter sets (SPS 7, PPS 8), or undefined when they do not tile the box: each set
 * ends in its RBSP stop bit (a non-zero last byte), and after the picture parameter sets comes either the box's end or,
 * for the High profiles, the extension (chroma format, bit depths, and SPS extensions that fill the rest exactly).
 */
function avcParameterSets(d: Buffer): number[] | undefined {
	if (d[0] !== 1 || d.length < 7) return undefined;
	const types: number[] = [];
	let p = 6;
	const sets = (n: number, want: number): boolean => {
		for (let k = 0; k < n; k++) {
			if (p + 2 > d.length) return false;
			const len = d.readUInt16BE(p);
			p += 2;
			if (!len || p + len > d.length || (d[p] & 0x1f) !== want || d[p] & 0x80 || d[p + len - 1] === 0) return false;
			types.push(want);
			p += len;
		}
		return true;
	};
	if (!sets(d[5] & 0x1f, 7) || p >= d.length) return undefined;
	const pps = d[p++];
	if (!sets(pps, 8)) return undefined;
	if (p === d.length) return types;
	if (!AVC_EXTENDED_PROFILES.includes(d[1]) || p + 4 > d.length) return undefined;
	const extensions = d[p + 3];
	p += 4;
	return sets(extensions, 13) && p === d.length ? types : undefined;
}

/** The optional tables a decoder reads by their entry count (bytes per entry, and where the count sits after version and flags). */
const OPTIONAL_TABLES: Record<string, (version: number) => { from: number; size: number }> = {
	stss: () => ({ from: 0, size: 4 }),
	stps: () => ({ from: 0, size: 4 }),
	ctts: () => ({ from: 0, size: 8 }),
	sbgp: (version) => ({ from: version === 1 ? 8 : 4, size: 8 }),
	elst: (version) => ({ from: 0, size: version === 1 ? 20 : 12 }),
};

/** Each optional table present holds exactly the entries its count says (a count past its box makes a decoder read on into the file). */
function checkOptionalTables(boxes: Box[]): void {
	for (const box of boxes) {
		const layout = OPTIONAL_TABLES[box.type]?.(box.data[0]);
		if (layout) table(box, full(box, layout.from + 4), layout.from, layout.size);
	}
}

/** NAL unit types of an hvcC's arrays (VPS 32, SPS 33, PPS 34, SEI…), or undefined when they do not tile the box (each unit ending in a non-zero byte). */
function hevcParameterSets(d: Buffer): number[] | undefined {
	if (d[0] !== 1 || d.length < 23) return undefined;
	const types: number[] = [];
	let p = 23;
	for (let a = 0, arrays = d[22]; a < arrays; a++) {
		if (p + 3 > d.length) return undefined;
		const type = d[p] & 0x3f;
		const n = d.readUInt16BE(p + 1);
		p += 3;
		for (let k = 0; k < n; k++) {
			if (p + 2 > d.length) return undefined;
			const len = d.readUInt16BE(p);
			p += 2;
			if (len < 2 || p + len > d.length || ((d[p] >> 1) & 0x3f) !== type || d[p] & 0x80 || d[p + len - 1] === 0) return undefined;
			types.push(type);
			p += len;
		}
	}
	return p === d.length ? types : undefined;
}

function parseTrack(trak: Box, index: number, check: ChunkCheck, framed: FramedSamples): { samples: number; chunks: number; handler: string } {
	const tk = children(trak);
	one(trak, tk, 'tkhd');
	const mdia = one(trak, tk, 'mdia');
	const md = children(mdia);
	full(one(mdia, md, 'mdhd'), 20);
	const handler = full(one(mdia, md, 'hdlr'), 8).toString('latin1', 4, 8);
	const minf = one(mdia, md, 'minf');
	const stbl = one(minf, children(minf), 'stbl');
	const st = children(stbl);
	const stsd = one(stbl, st, 'stsd');
	const sd = full(stsd, 4);
	const descriptions = sd.readUInt32BE(0);
	const entries = children({ type: 'stsd', data: sd.subarray(4), at: stsd.at + 8 });
	if (!descriptions || entries.length !== descriptions) throw fail(`its 'stsd' box of track ${index} says ${descriptions} sample descriptions and holds ${entries.length}`);
	const lengthSizes = handler === 'vide' ? entries.map((e) => nalLengthSize(e, index)) : [];
	if (handler === 'vide') entries.forEach((e) => checkPixelAspect(e, index));
	const stts = one(stbl, st, 'stts');
	const td = full(stts, 4);
	let timed = 0;
	for (let k = 0, n = table(stts, td, 0, 8); k < n; k++) timed += td.readUInt32BE(4 + k * 8);
	const sizes = sampleSizes(either(stbl, st, 'stsz', 'stz2'));
	const offsets = chunkOffsets(either(stbl, st, 'stco', 'co64'));
	const stsc = one(stbl, st, 'stsc');
	const sc = full(stsc, 4);
	const runs = table(stsc, sc, 0, 12);
	const edts = tk.find((k) => k.type === 'edts');
	checkOptionalTables([...st, ...(edts ? children(edts) : [])]);
	if (timed !== sizes.count) throw fail(`track ${index} times ${timed} samples and sizes ${sizes.count}`);
	if (sizes.count && (!runs || sc.readUInt32BE(4) !== 1)) throw fail(`the sample-to-chunk table of track ${index} does not start at chunk 1`);
	let sample = 0;
	for (let r = 0; r < runs; r++) {
		const e = 4 + r * 12;
		const first = sc.readUInt32BE(e);
		const perChunk = sc.readUInt32BE(e + 4);
		const description = sc.readUInt32BE(e + 8);
		const next = r + 1 < runs ? sc.readUInt32BE(e + 12) : offsets.count + 1;
		if (next <= first || next > offsets.count + 1) throw fail(`the sample-to-chunk table of track ${index} names chunks ${first} to ${next - 1} of ${offsets.count}`);
		if (!perChunk || description < 1 || description > descriptions) throw fail(`a broken sample-to-chunk entry in track ${index}`);
		for (let c = first; c < next; c++) {
			if (sample + perChunk > sizes.count) throw fail(`the chunks of track ${index} hold more samples than its ${sizes.count}`);
			let bytes = sizes.fixed === undefined ? 0 : sizes.fixed * perChunk;
			if (sizes.fixed === undefined) for (let s = 0; s < perChunk; s++) bytes += sizes.size(sample + s);
			const start = offsets.offset(c - 1);
			check(start, start + bytes, index);
			const lengthSize = lengthSizes[description - 1];
			for (let s = 0, at = start; lengthSize && s < perChunk; s++) {
				const size = sizes.size(sample + s);
				framed.add(at, size, lengthSize, index);
				at += size;
			}
			sample += perChunk;
		}
	}
	if (sample !== sizes.count) throw fail(`the chunks of track ${index} hold ${sample} of its ${sizes.count} samples`);
	return { samples: sample, chunks: offsets.count, handler };
}

/** Parses `moov` (its payload, found at `at` in the file); throws InvalidMediaError saying what is wrong. */
export function parseMoov(payload: Buffer, at: number, check: ChunkCheck): ParsedMoov {
	const moov: Box = { type: 'moov', data: payload, at };
	const kids = children(moov);
	if (kids.some((k) => k.type === 'mvex')) throw fail('it is a fragmented MP4 (moov holds mvex): its samples are not in the sample tables, and it is not accepted');
	full(one(moov, kids, 'mvhd'), 96);
	const traks = kids.filter((k) => k.type === 'trak');
	if (!traks.length) throw fail("its 'moov' box has no track: header only");
	let samples = 0;
	let chunks = 0;
	let video = 0;
	const framed = new FramedSamples();
	traks.forEach((t, i) => {
		const track = parseTrack(t, i + 1, check, framed);
		samples += track.samples;
		chunks += track.chunks;
		if (track.handler === 'vide' && track.samples) video++;
	});
	if (!video) throw fail('it has no video track with samples: header only');
	return { tracks: traks.length, samples, chunks, framed };
}

