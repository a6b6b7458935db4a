/**
 * An MP4 `moov` box, parsed whole from memory: its children tile it, down through trak/mdia/minf/stbl; each track's
 * sample tables (stsd, stts, stsc, stsz or stz2, stco or co64) are complete and agree on the sample count, and its
 * optional tables (stss, stps, ctts, sbgp, elst) hold the entries they count; every sample entry of a video or audio
 * track is a codec the node vouches for, its decoder configuration parsed (codecs.ts); and the
 * byte range of every chunk (its offset, and the sizes of the samples stsc puts in it) is returned so the caller can
 * hold it to the file's media data. Fragmented files (`mvex`) are refused: their samples are not in these tables.
 */
import { audioEntry, videoEntry, type VideoEntry } from './codecs';
import { invalid, type InvalidMediaError } from './errors';

export interface ParsedMoov {
	tracks: number;
	samples: number;
	chunks: number;
	/** the samples of H.264/H.265 tracks, whose NAL units must tile each sample and suit its codec (nal.ts) */
	framed: FramedSamples;
}

/** the most H.264/H.265 samples kept for the NAL check (an hour at 60 frames a second is 216,000) */
export const MAX_FRAMED_SAMPLES = 4_000_000;
/** the most video sample entries, all tracks together */
const MAX_VIDEO_ENTRIES = 0xffff;

/** sample flags: a sync sample (in stss, or every sample when the track has none) */
export const SYNC = 1;
/** sample flags: the first sample of its track */
export const FIRST = 2;

/** Sample positions, sizes, sample entries and flags, in typed arrays grown as needed (bounded by MAX_FRAMED_SAMPLES). */
export class FramedSamples {
	count = 0;
	starts = new Float64Array(1024);
	sizes = new Uint32Array(1024);
	/** index into `entries` */
	entryOf = new Uint16Array(1024);
	flags = new Uint8Array(1024);
	tracks = new Uint16Array(1024);
	/** the video sample entries the samples refer to */
	entries: VideoEntry[] = [];

	add(start: number, size: number, entry: number, flags: number, track: number): void {
		if (this.count === MAX_FRAMED_SAMPLES)
			throw fail(`more than ${MAX_FRAMED_SAMPLES} video samples`);
		if (this.count === this.starts.length) {
			const grow = <T extends Float64Array | Uint32Array | Uint8Array | Uint16Array>(a: T): T => {
				const b = new (a.constructor as new (n: number) => T)(
					Math.min(MAX_FRAMED_SAMPLES, a.length * 2),
				);
				b.set(a);
				return b;
			};
			this.starts = grow(this.starts);
			this.sizes = grow(this.sizes);
			this.entryOf = grow(this.entryOf);
			this.flags = grow(this.flags);
			this.tracks = grow(this.tracks);
		}
		this.starts[this.count] = start;
		this.sizes[this.count] = size;
		this.entryOf[this.count] = entry;
		this.flags[this.count] = flags;
		this.tracks[this.count] = track;
		this.count++;
	}

	/** Keeps a video sample entry; its index for `add`. */
	entry(e: VideoEntry): number {
		if (this.entries.length === MAX_VIDEO_ENTRIES)
			throw fail(`more than ${MAX_VIDEO_ENTRIES} video sample descriptions`);
		this.entries.push(e);
		return this.entries.length - 1;
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
		if (pos + 8 > d.length)
			throw fail(
				`${d.length - pos} bytes at byte ${at} inside its '${parent.type}' box are not a box`,
			);
		let size = d.readUInt32BE(pos);
		const type = d.toString('latin1', pos + 4, pos + 8);
		let head = 8;
		if (!/^[\x20-\x7e]{4}$/.test(type))
			throw fail(`no box at byte ${at} inside its '${parent.type}' box (damaged data)`);
		if (size === 1) {
			if (pos + 16 > d.length) throw fail(`its '${type}' box at byte ${at} is cut`);
			const big = d.readBigUInt64BE(pos + 8);
			size = big > MAX_SAFE ? Infinity : Number(big);
			head = 16;
		} else if (size === 0) size = d.length - pos;
		if (size < head || pos + size > d.length)
			throw fail(`its '${type}' box at byte ${at} runs past the end of its '${parent.type}' box`);
		out.push({ type, data: d.subarray(pos + head, pos + size), at: at + head });
		pos += size;
	}
	return out;
}

function one(parent: Box, kids: Box[], type: string): Box {
	const found = kids.filter((k) => k.type === type);
	if (found.length !== 1)
		throw fail(
			`its '${parent.type}' box has ${found.length ? `${found.length} '${type}' boxes` : `no '${type}' box`}`,
		);
	return found[0];
}

function either(parent: Box, kids: Box[], a: string, b: string): Box {
	const found = kids.filter((k) => k.type === a || k.type === b);
	if (found.length !== 1)
		throw fail(
			`its '${parent.type}' box has ${found.length ? 'more than one' : 'no'} '${a}' or '${b}' box`,
		);
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
	if (d.length !== from + 4 + count * size)
		throw fail(
			`its '${box.type}' box at byte ${box.at} holds ${d.length - from - 4} bytes for ${count} entries of ${size}`,
		);
	return count;
}

/** Sample sizes, from stsz (one size for all, or a table) or stz2 (packed table). */
function sampleSizes(box: Box): { count: number; fixed?: number; size: (i: number) => number } {
	if (box.type === 'stsz') {
		const d = full(box, 8);
		const fixed = d.readUInt32BE(0);
		if (fixed) {
			if (d.length !== 8)
				throw fail(`its 'stsz' box at byte ${box.at} has a fixed size and a table`);
			return { count: d.readUInt32BE(4), fixed, size: () => fixed };
		}
		const count = table(box, d, 4, 4);
		return { count, size: (i) => d.readUInt32BE(8 + i * 4) };
	}
	const d = full(box, 8);
	const bits = d[3];
	const count = d.readUInt32BE(4);
	if (bits !== 4 && bits !== 8 && bits !== 16) throw fail(`its 'stz2' box has ${bits}-bit sizes`);
	if (d.length !== 8 + Math.ceil((count * bits) / 8))
		throw fail(`its 'stz2' box at byte ${box.at} does not hold ${count} sizes`);
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

/** A visual sample entry's pixel aspect ratio (`pasp`), when it has one: two spacings a decoder can read as positive 32-bit numbers. */
function checkPixelAspect(entry: Box, track: number): void {
	let pasp: Box | undefined;
	try {
		pasp = children({ type: entry.type, data: entry.data.subarray(78), at: entry.at + 86 }).find(
			(k) => k.type === 'pasp',
		);
	} catch {
		return; // a sample entry whose tail is not boxes (accepted video entries are held to boxes in videoEntry)
	}
	if (!pasp) return;
	if (
		pasp.data.length !== 8 ||
		pasp.data.readUInt32BE(0) > 0x7fffffff ||
		pasp.data.readUInt32BE(4) > 0x7fffffff
	)
		throw fail(`the pixel aspect ratio ('pasp') of track ${track} is damaged`);
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

/** Which samples the track's sync-sample table (`stss`) names, by index; undefined when it has none (every sample is one). */
function syncSamples(boxes: Box[], count: number): Uint8Array | undefined {
	const stss = boxes.find((k) => k.type === 'stss');
	if (!stss) return undefined;
	const d = full(stss, 4);
	const sync = new Uint8Array(count);
	for (let k = 0, n = d.readUInt32BE(0); k < n; k++) {
		const sample = d.readUInt32BE(4 + k * 4);
		if (sample >= 1 && sample <= count) sync[sample - 1] = 1;
	}
	return sync;
}

/**
 * One track of the movie box, checked box by box as ISO/IEC 14496-12 nests them (tkhd, mdia, stbl's tables).
 * Long: the sample tables are read in one pass and checked against each other (counts, chunk offsets, sync samples).
 */
function parseTrack(
	trak: Box,
	index: number,
	check: ChunkCheck,
	framed: FramedSamples,
): { samples: number; chunks: number; handler: string } {
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
	if (!descriptions || entries.length !== descriptions)
		throw fail(
			`its 'stsd' box of track ${index} says ${descriptions} sample descriptions and holds ${entries.length}`,
		);
	// every entry of a video or audio track is a codec vouched for (codecs.ts); other tracks (timecode, text…) are not decoded
	const video =
		handler === 'vide' ? entries.map((e) => framed.entry(videoEntry(e, index, children))) : [];
	if (handler === 'vide') entries.forEach((e) => checkPixelAspect(e, index));
	if (handler === 'soun') entries.forEach((e) => audioEntry(e, index, children));
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
	const sync = video.length ? syncSamples(st, sizes.count) : undefined;
	if (timed !== sizes.count)
		throw fail(`track ${index} times ${timed} samples and sizes ${sizes.count}`);
	if (sizes.count && (!runs || sc.readUInt32BE(4) !== 1))
		throw fail(`the sample-to-chunk table of track ${index} does not start at chunk 1`);
	let sample = 0;
	for (let r = 0; r < runs; r++) {
		const e = 4 + r * 12;
		const first = sc.readUInt32BE(e);
		const perChunk = sc.readUInt32BE(e + 4);
		const description = sc.readUInt32BE(e + 8);
		const next = r + 1 < runs ? sc.readUInt32BE(e + 12) : offsets.count + 1;
		if (next <= first || next > offsets.count + 1)
			throw fail(
				`the sample-to-chunk table of track ${index} names chunks ${first} to ${next - 1} of ${offsets.count}`,
			);
		if (!perChunk || description < 1 || description > descriptions)
			throw fail(`a broken sample-to-chunk entry in track ${index}`);
		for (let c = first; c < next; c++) {
			if (sample + perChunk > sizes.count)
				throw fail(`the chunks of track ${index} hold more samples than its ${sizes.count}`);
			let bytes = sizes.fixed === undefined ? 0 : sizes.fixed * perChunk;
			if (sizes.fixed === undefined)
				for (let s = 0; s < perChunk; s++) bytes += sizes.size(sample + s);
			const start = offsets.offset(c - 1);
			check(start, start + bytes, index);
			const entry = video[description - 1];
			for (let s = 0, at = start; entry !== undefined && s < perChunk; s++) {
				const n = sample + s;
				const size = sizes.size(n);
				framed.add(at, size, entry, (!sync || sync[n] ? SYNC : 0) | (n === 0 ? FIRST : 0), index);
				at += size;
			}
			sample += perChunk;
		}
	}
	if (sample !== sizes.count)
		throw fail(`the chunks of track ${index} hold ${sample} of its ${sizes.count} samples`);
	return { samples: sample, chunks: offsets.count, handler };
}

/** Parses `moov` (its payload, found at `at` in the file); throws InvalidMediaError saying what is wrong. */
export function parseMoov(payload: Buffer, at: number, check: ChunkCheck): ParsedMoov {
	const moov: Box = { type: 'moov', data: payload, at };
	const kids = children(moov);
	if (kids.some((k) => k.type === 'mvex'))
		throw fail(
			'it is a fragmented MP4 (moov holds mvex): its samples are not in the sample tables, and it is not accepted',
		);
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
