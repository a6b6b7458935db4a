/**
 * The codecs an MP4 result may carry, and what is checked of each (moov.ts calls these on every sample entry of a
 * video or audio track; nal.ts holds the samples' NAL units to `NalSampleCheck`). The node vouches for a file only
 * when a decoder can read it, so a track's sample entry must be one of these, with its decoder configuration parsed:
 *
 * - video: H.264 (`avc1`, `avc3` with `avcC`) and H.265 (`hvc1`, `hev1` with `hvcC`). The configuration record's
 *   version, profile and NAL length size, its parameter sets (each of the right NAL type, inside the box), each
 *   sequence parameter set parsed up to its picture size (profile in the decodable set, identifiers and bit depths
 *   in range, cropping inside the picture) and agreeing with the sample entry's width and height, each picture
 *   parameter set naming a sequence parameter set that is there (and, for H.265, each SPS a VPS that is there).
 * - audio: AAC (`mp4a` whose `esds` names MPEG-4 or MPEG-2 AAC and holds an AudioSpecificConfig a decoder accepts).
 *
 * Anything else (`avc9`, `mp4v`, `av01`, `vp09`, `Opus`, an unknown code…) is refused naming the entry and what is
 * accepted; an encrypted entry (`encv`, `enca`, or any entry carrying protection info, `sinf`) is refused as
 * encrypted. The coded pictures and sound themselves are not decoded.
 */
import { invalid, type InvalidMediaError } from './errors';

const fail = (why: string): InvalidMediaError => invalid('MP4', why);

export const VIDEO_ENTRIES = ['avc1', 'avc3', 'hvc1', 'hev1'] as const;
export const ACCEPTED_VIDEO = "H.264 as 'avc1' or 'avc3', H.265 as 'hvc1' or 'hev1'";
export const ACCEPTED_AUDIO = "AAC as 'mp4a'";

export const Codec = { H264: 1, H265: 2 } as const;
export type Codec = (typeof Codec)[keyof typeof Codec];

/** What the sample check needs to know of a video sample entry. */
export interface VideoEntry {
	codec: Codec;
	/** bytes of each NAL unit's length field in the samples: 1, 2 or 4 */
	lengthSize: number;
	/** NAL unit types the first sample must carry before its first picture, because the configuration does not (avc3, hev1) */
	firstSampleNeeds: number[];
	/** the parameter sets of the configuration; those in the samples join them (a copy per check) */
	params: ParameterSets;
}

/** A box inside a sample entry. */
export interface EntryBox {
	type: string;
	data: Buffer;
	at: number;
}

/** H.264 profiles a decoder (ffmpeg's, every browser's) decodes: Baseline, Main, Extended, High, High 10, 4:2:2, 4:4:4 (Predictive, Intra). */
export const H264_PROFILES = [66, 77, 88, 100, 110, 122, 244, 44];
/** profile_idc values whose SPS carries chroma format, bit depths and scaling matrices (H.264 7.3.2.1.1) */
const H264_HIGH_SYNTAX = [100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135];
/** H.265 profiles: Main, Main 10, Main Still Picture, Format Range Extensions */
export const H265_PROFILES = [1, 2, 3, 4];
/** the largest picture side accepted (the image cap) */
const MAX_SIDE = 16384;

class Overrun extends Error {}

/** The bits of a NAL unit's payload (RBSP): emulation-prevention bytes (00 00 03) removed. */
export class Bits {
	private pos = 0;
	private readonly b: Buffer;

	constructor(nal: Buffer, header: number) {
		const out = Buffer.alloc(nal.length);
		let n = 0;
		let zeros = 0;
		for (let i = header; i < nal.length; i++) {
			const v = nal[i];
			if (zeros >= 2 && v === 3) {
				zeros = 0;
				continue;
			}
			zeros = v === 0 ? zeros + 1 : 0;
			out[n++] = v;
		}
		this.b = out.subarray(0, n);
	}

	/** bits left before the stop bit's byte ends */
	get left(): number {
		return this.b.length * 8 - this.pos;
	}

	u(n: number): number {
		let v = 0;
		for (let i = 0; i < n; i++) {
			if (this.pos >= this.b.length * 8) throw new Overrun();
			v = v * 2 + ((this.b[this.pos >> 3] >> (7 - (this.pos & 7))) & 1);
			this.pos++;
		}
		return v;
	}

	ue(): number {
		let zeros = 0;
		while (this.u(1) === 0) if (++zeros > 31) throw new Overrun();
		return zeros ? 2 ** zeros - 1 + this.u(zeros) : 0;
	}

	se(): number {
		const k = this.ue();
		return k & 1 ? (k + 1) / 2 : -(k / 2);
	}
}

/** A parameter set's fields, or a reason it is not one. */
type Parsed<T> = T | string;

interface SpsSize {
	id: number;
	profile: number;
	width: number;
	height: number;
	/** the coded size before cropping (some muxers write it in the sample entry) */
	codedWidth: number;
	codedHeight: number;
	/** H.265 */
	vps?: number;
	maxSubLayersMinus1?: number;
}

/** Runs a parameter-set parse; a read past its end is a reason, like any other. */
function parse<T>(what: string, f: () => Parsed<T>): Parsed<T> {
	try {
		return f();
	} catch (err) {
		if (err instanceof Overrun) return `its ${what} ends before its fields do`;
		throw err;
	}
}

function range(name: string, v: number, max: number): string | undefined {
	return v > max ? `${name} ${v} (at most ${max})` : undefined;
}

function cropped(
	w: number,
	h: number,
	unitX: number,
	unitY: number,
	crop: number[] | undefined,
): Parsed<{ width: number; height: number }> {
	if (!crop) return { width: w, height: h };
	const width = w - unitX * (crop[0] + crop[1]);
	const height = h - unitY * (crop[2] + crop[3]);
	if (width < 1 || height < 1)
		return `its cropping (${crop.join(', ')}) leaves no picture of ${w}x${h}`;
	return { width, height };
}

/**
 * H.264 sequence parameter set (7.3.2.1.1), up to its frame cropping.
 * Long: one read of the syntax table's fields in the standard's order; each read depends on the ones before it.
 */
export function parseH264Sps(nal: Buffer): Parsed<SpsSize> {
	return parse('sequence parameter set', () => {
		const r = new Bits(nal, 1);
		const profile = r.u(8);
		r.u(16); // constraint flags, level_idc
		if (!H264_PROFILES.includes(profile))
			return `its sequence parameter set has profile_idc ${profile}, not an H.264 profile decoders read (${H264_PROFILES.join(', ')})`;
		const id = r.ue();
		let chroma = 1;
		let separate = 0;
		let bad = range('seq_parameter_set_id', id, 31);
		if (H264_HIGH_SYNTAX.includes(profile)) {
			chroma = r.ue();
			bad ??= range('chroma_format_idc', chroma, 3);
			if (chroma === 3) separate = r.u(1);
			bad ??=
				range('bit_depth_luma_minus8', r.ue(), 6) ?? range('bit_depth_chroma_minus8', r.ue(), 6);
			r.u(1); // qpprime_y_zero_transform_bypass_flag
			if (r.u(1)) {
				for (let i = 0; i < (chroma === 3 ? 12 : 8); i++) {
					if (!r.u(1)) continue;
					for (let j = 0, last = 8, next = 8; j < (i < 6 ? 16 : 64); j++) {
						if (next) {
							const delta = r.se();
							if (delta < -128 || delta > 127)
								return `its sequence parameter set has a scaling-list delta of ${delta}`;
							next = (last + delta + 256) % 256;
						}
						last = next || last;
					}
				}
			}
		}
		bad ??= range('log2_max_frame_num_minus4', r.ue(), 12);
		const poc = r.ue();
		bad ??= range('pic_order_cnt_type', poc, 2);
		if (poc === 0) bad ??= range('log2_max_pic_order_cnt_lsb_minus4', r.ue(), 12);
		else if (poc === 1) {
			r.u(1);
			r.se();
			r.se();
			const cycle = r.ue();
			bad ??= range('num_ref_frames_in_pic_order_cnt_cycle', cycle, 255);
			for (let i = 0; !bad && i < cycle; i++) r.se();
		}
		bad ??= range('max_num_ref_frames', r.ue(), 16);
		if (bad) return `its sequence parameter set has ${bad}`;
		r.u(1); // gaps_in_frame_num_value_allowed_flag
		const mbsWide = r.ue() + 1;
		const mapUnitsHigh = r.ue() + 1;
		const frameMbsOnly = r.u(1);
		if (!frameMbsOnly) r.u(1);
		r.u(1); // direct_8x8_inference_flag
		const crop = r.u(1) ? [r.ue(), r.ue(), r.ue(), r.ue()] : undefined;
		r.u(1); // vui_parameters_present_flag: the fields above all fit
		const codedWidth = mbsWide * 16;
		const codedHeight = (2 - frameMbsOnly) * mapUnitsHigh * 16;
		if (codedWidth > MAX_SIDE || codedHeight > MAX_SIDE)
			return `its sequence parameter set gives a picture of ${codedWidth}x${codedHeight}, beyond any generated video`;
		const arrayType = separate ? 0 : chroma;
		const unitX = arrayType === 0 || arrayType === 3 ? 1 : 2;
		const unitY = (arrayType === 1 ? 2 : 1) * (2 - frameMbsOnly);
		const size = cropped(codedWidth, codedHeight, unitX, unitY, crop);
		if (typeof size === 'string') return `its sequence parameter set: ${size}`;
		return { id, profile, ...size, codedWidth, codedHeight };
	});
}

/** H.264 picture parameter set: its id and the SPS it names. */
function parseH264Pps(nal: Buffer): Parsed<{ id: number; sps: number }> {
	return parse('picture parameter set', () => {
		const r = new Bits(nal, 1);
		const id = r.ue();
		const sps = r.ue();
		const bad = range('pic_parameter_set_id', id, 255) ?? range('seq_parameter_set_id', sps, 31);
		return bad ? `its picture parameter set has ${bad}` : { id, sps };
	});
}

/** H.265 profile_tier_level (7.3.3): the general profile (or, with profile_idc 0, the first compatible one of H265_PROFILES). */
function profileTierLevel(r: Bits, maxSubLayersMinus1: number): Parsed<number> {
	const space = r.u(2);
	r.u(1);
	const idc = r.u(5);
	const compatible = r.u(32);
	r.u(32);
	r.u(16); // source flags, constraint flags
	r.u(8); // general_level_idc
	const present: Array<[number, number]> = [];
	for (let i = 0; i < maxSubLayersMinus1; i++) present.push([r.u(1), r.u(1)]);
	if (maxSubLayersMinus1 > 0) for (let i = maxSubLayersMinus1; i < 8; i++) r.u(2);
	for (const [profile, level] of present) {
		if (profile) {
			r.u(32);
			r.u(32);
			r.u(24);
		}
		if (level) r.u(8);
	}
	const profile = H265_PROFILES.includes(idc)
		? idc
		: H265_PROFILES.find((p) => (compatible >>> (31 - p)) & 1);
	if (space !== 0 || profile === undefined)
		return `general_profile_space ${space}, general_profile_idc ${idc}: not an H.265 profile decoders read (${H265_PROFILES.join(', ')})`;
	return profile;
}

/** H.265 sequence parameter set (7.3.2.2), up to its bit depths. */
export function parseH265Sps(nal: Buffer): Parsed<SpsSize> {
	return parse('sequence parameter set', () => {
		const r = new Bits(nal, 2);
		const vps = r.u(4);
		const maxSubLayersMinus1 = r.u(3);
		if (maxSubLayersMinus1 > 6)
			return `its sequence parameter set has sps_max_sub_layers_minus1 ${maxSubLayersMinus1} (at most 6)`;
		r.u(1);
		const profile = profileTierLevel(r, maxSubLayersMinus1);
		if (typeof profile === 'string') return `its sequence parameter set has ${profile}`;
		const id = r.ue();
		const chroma = r.ue();
		let bad = range('sps_seq_parameter_set_id', id, 15) ?? range('chroma_format_idc', chroma, 3);
		if (bad) return `its sequence parameter set has ${bad}`;
		const separate = chroma === 3 ? r.u(1) : 0;
		const codedWidth = r.ue();
		const codedHeight = r.ue();
		const crop = r.u(1) ? [r.ue(), r.ue(), r.ue(), r.ue()] : undefined;
		bad = range('bit_depth_luma_minus8', r.ue(), 8) ?? range('bit_depth_chroma_minus8', r.ue(), 8);
		if (bad) return `its sequence parameter set has ${bad}`;
		if (codedWidth < 1 || codedHeight < 1 || codedWidth > MAX_SIDE || codedHeight > MAX_SIDE)
			return `its sequence parameter set gives a picture of ${codedWidth}x${codedHeight}`;
		const arrayType = separate ? 0 : chroma;
		const size = cropped(
			codedWidth,
			codedHeight,
			arrayType === 1 || arrayType === 2 ? 2 : 1,
			arrayType === 1 ? 2 : 1,
			crop,
		);
		if (typeof size === 'string') return `its sequence parameter set: ${size}`;
		return { id, profile, ...size, codedWidth, codedHeight, vps, maxSubLayersMinus1 };
	});
}

/** H.265 picture parameter set: its id and the SPS it names. */
function parseH265Pps(nal: Buffer): Parsed<{ id: number; sps: number }> {
	return parse('picture parameter set', () => {
		const r = new Bits(nal, 2);
		const id = r.ue();
		const sps = r.ue();
		const bad =
			range('pps_pic_parameter_set_id', id, 63) ?? range('pps_seq_parameter_set_id', sps, 15);
		return bad ? `its picture parameter set has ${bad}` : { id, sps };
	});
}

/**
 * The AVC profiles whose avcC carries no chroma and bit-depth extension after its picture parameter sets (ISO/IEC
 * 14496-15 5.3.3.1: every other profile may).
 */
const AVC_PLAIN_PROFILES = [66, 77, 88];

interface ConfigSets {
	lengthSize: number;
	/** parameter-set NAL units by type */
	sets: Map<number, Buffer[]>;
}

/**
 * An avcC (ISO/IEC 14496-15 5.3.3.1): version 1, a known profile, 1-, 2- or 4-byte NAL lengths, then its SPSs (type 7)
 * and PPSs (type 8), each inside the box, with a clear forbidden bit and a non-zero last byte (the RBSP stop bit);
 * after them the box's end or, for profiles other than Baseline, Main and Extended, the extension (chroma format, bit depths, SPS extensions of
 * type 13) filling the rest exactly.
 */
function avcConfig(d: Buffer): Parsed<ConfigSets> {
	if (d.length < 7) return 'is too short';
	if (d[0] !== 1) return `has configurationVersion ${d[0]} (1 is the only version)`;
	if (!H264_PROFILES.includes(d[1]))
		return `names profile ${d[1]}, not an H.264 profile decoders read (${H264_PROFILES.join(', ')})`;
	const lengthSize = (d[4] & 3) + 1;
	if (lengthSize === 3) return 'gives 3-byte NAL lengths';
	const sets = new Map<number, Buffer[]>();
	let p = 6;
	const read = (n: number, want: number): string | undefined => {
		for (let k = 0; k < n; k++) {
			if (p + 2 > d.length) return `is damaged (its parameter sets do not fit it)`;
			const len = d.readUInt16BE(p);
			p += 2;
			if (!len || p + len > d.length) return `is damaged (its parameter sets do not fit it)`;
			if ((d[p] & 0x1f) !== want || d[p] & 0x80)
				return `is damaged (a parameter set of NAL type ${d[p] & 0x1f}${d[p] & 0x80 ? ' with its forbidden bit set' : ''} where type ${want} belongs)`;
			if (d[p + len - 1] === 0)
				return `is damaged (a parameter set of type ${want} ends in a zero byte)`;
			sets.set(want, [...(sets.get(want) ?? []), d.subarray(p, p + len)]);
			p += len;
		}
		return undefined;
	};
	let bad = read(d[5] & 0x1f, 7);
	if (bad) return bad;
	if (p >= d.length) return 'is damaged (its parameter sets do not fit it)';
	bad = read(d[p++], 8);
	if (bad) return bad;
	if (p === d.length) return { lengthSize, sets };
	if (AVC_PLAIN_PROFILES.includes(d[1]) || p + 4 > d.length)
		return 'is damaged (bytes follow its picture parameter sets)';
	const extensions = d[p + 3];
	p += 4;
	bad = read(extensions, 13);
	if (bad) return bad;
	return p === d.length ? { lengthSize, sets } : 'is damaged (bytes follow its SPS extensions)';
}

/** the NAL types an hvcC array may hold: VPS, SPS, PPS, prefix and suffix SEI */
const HVCC_ARRAY_TYPES = [32, 33, 34, 39, 40];

/**
 * An hvcC (ISO/IEC 14496-15 8.3.3.1): version 1, a known general profile, 1-, 2- or 4-byte NAL lengths, then arrays
 * of VPS (32), SPS (33), PPS (34) and SEI (39, 40) units, each of its array's type, of the base layer, with
 * TemporalId 0 for VPS and SPS, a non-zero last byte, and together filling the box exactly.
 */
function hevcConfig(d: Buffer): Parsed<ConfigSets> {
	if (d.length < 23) return 'is too short';
	if (d[0] !== 1) return `has configurationVersion ${d[0]} (1 is the only version)`;
	const idc = d[1] & 0x1f;
	const compatible = d.readUInt32BE(2);
	if (
		d[1] >> 6 ||
		!(H265_PROFILES.includes(idc) || H265_PROFILES.some((p) => (compatible >>> (31 - p)) & 1))
	)
		return `names profile space ${d[1] >> 6}, profile ${idc}: not an H.265 profile decoders read (${H265_PROFILES.join(', ')})`;
	const lengthSize = (d[21] & 3) + 1;
	if (lengthSize === 3) return 'gives 3-byte NAL lengths';
	const sets = new Map<number, Buffer[]>();
	let p = 23;
	for (let a = 0, arrays = d[22]; a < arrays; a++) {
		if (p + 3 > d.length) return 'is damaged (its parameter sets do not fit it)';
		const type = d[p] & 0x3f;
		if (!HVCC_ARRAY_TYPES.includes(type))
			return `is damaged (an array of NAL type ${type}; only ${HVCC_ARRAY_TYPES.join(', ')} belong there)`;
		const n = d.readUInt16BE(p + 1);
		p += 3;
		for (let k = 0; k < n; k++) {
			if (p + 2 > d.length) return 'is damaged (its parameter sets do not fit it)';
			const len = d.readUInt16BE(p);
			p += 2;
			if (len < 3 || p + len > d.length) return 'is damaged (its parameter sets do not fit it)';
			const h = d.readUInt16BE(p);
			if (h >> 15 || ((h >> 9) & 0x3f) !== type)
				return `is damaged (a unit of NAL type ${(h >> 9) & 0x3f}${h >> 15 ? ' with its forbidden bit set' : ''} in its array of type ${type})`;
			const layer = (h >> 3) & 0x3f;
			const tid = (h & 7) - 1;
			if (layer || tid < 0 || (tid > 0 && (type === 32 || type === 33)))
				return `is damaged (a unit of type ${type} of layer ${layer}, TemporalId ${tid})`;
			if (d[p + len - 1] === 0) return `is damaged (a unit of type ${type} ends in a zero byte)`;
			sets.set(type, [...(sets.get(type) ?? []), d.subarray(p, p + len)]);
			p += len;
		}
	}
	return p === d.length ? { lengthSize, sets } : 'is damaged (bytes follow its arrays)';
}

/** The boxes after a sample entry's fixed fields (`skip` bytes), which must tile the rest of it. */
export function entryBoxes(
	entry: EntryBox,
	skip: number,
	track: number,
	children: (parent: EntryBox) => EntryBox[],
): EntryBox[] {
	if (entry.data.length < skip)
		throw fail(`the '${entry.type}' sample description of track ${track} is too short`);
	return children({ type: entry.type, data: entry.data.subarray(skip), at: entry.at + skip });
}

/** Refuses an encrypted entry: `encv`/`enca`, or any entry carrying protection info (`sinf`). */
function refuseEncrypted(
	entry: EntryBox,
	boxes: EntryBox[] | undefined,
	kind: string,
	track: number,
): void {
	if (entry.type === 'encv' || entry.type === 'enca' || boxes?.some((b) => b.type === 'sinf')) {
		throw fail(
			`its ${kind} track ${track} is encrypted (its sample entry is ` +
				`'${entry.type}'${boxes?.some((b) => b.type === 'sinf') ? " with protection info, 'sinf'" : ''}): ` +
				`it cannot be decoded without its key, and is not accepted`,
		);
	}
}

/**
 * A video track's sample entry (a VisualSampleEntry: 78 bytes of fields, then boxes): one of VIDEO_ENTRIES, not
 * encrypted, with a non-zero width and height and exactly one decoder configuration of its codec, parsed whole
 * (avcConfig, hevcConfig) with its parameter sets: every SPS parses (parseH264Sps, parseH265Sps), the entry's size
 * is an SPS's picture size (cropped, or the coded size before cropping), every PPS names an SPS of the
 * configuration (and for H.265 every SPS a VPS of it). `avc1` needs an SPS and a PPS in its configuration, `hvc1`
 * a VPS, an SPS and a PPS; `avc3` and `hev1` may carry them in the samples instead (then the first sample must).
 * Long: the sample entry's checks in ISO/IEC 14496-15's order, sharing what each parsed (its SPS sizes and IDs).
 */
export function videoEntry(
	entry: EntryBox,
	track: number,
	children: (parent: EntryBox) => EntryBox[],
): VideoEntry {
	let boxes: EntryBox[] | undefined;
	try {
		boxes =
			entry.data.length >= 78
				? children({ type: entry.type, data: entry.data.subarray(78), at: entry.at + 78 })
				: undefined;
	} catch {
		boxes = undefined;
	}
	refuseEncrypted(entry, boxes, 'video', track);
	if (!(VIDEO_ENTRIES as readonly string[]).includes(entry.type)) {
		throw fail(
			`the video sample entry of track ${track} is '${entry.type}', not a codec this node vouches for (accepted: ${ACCEPTED_VIDEO})`,
		);
	}
	boxes = entryBoxes(entry, 78, track, children);
	const h265 = entry.type === 'hvc1' || entry.type === 'hev1';
	const name = h265 ? 'hvcC' : 'avcC';
	const configs = boxes.filter((k) => k.type === name);
	if (configs.length !== 1)
		throw fail(
			`the '${entry.type}' sample description of track ${track} has ` +
				`${configs.length ? `${configs.length} '${name}' boxes` : `no '${name}' decoder configuration`}`,
		);
	const where = `its '${name}' box of track ${track}`;
	const config = h265 ? hevcConfig(configs[0].data) : avcConfig(configs[0].data);
	if (typeof config === 'string') throw fail(`${where} ${config}`);
	const width = entry.data.readUInt16BE(24);
	const height = entry.data.readUInt16BE(26);
	if (!width || !height)
		throw fail(
			`the '${entry.type}' sample description of track ${track} gives a picture of ${width}x${height}`,
		);

	const [VPS, SPS, PPS] = h265 ? [32, 33, 34] : [0, 7, 8];
	const needed = entry.type === 'avc1' ? [SPS, PPS] : entry.type === 'hvc1' ? [VPS, SPS, PPS] : [];
	const names: Record<number, string> = { [VPS]: 'video', [SPS]: 'sequence', [PPS]: 'picture' };
	for (const t of needed)
		if (!config.sets.get(t)?.length) throw fail(`${where} has no ${names[t]} parameter set`);

	const params = new ParameterSets(h265 ? Codec.H265 : Codec.H264, width, height);
	for (const t of [VPS, SPS, PPS]) {
		for (const nal of config.sets.get(t) ?? []) {
			const bad = params.add(nal, false);
			if (bad) throw fail(`${where}: ${bad}`);
		}
	}
	if (params.sps.size && !params.sizeMatched) {
		const s = [...params.sps.values()][0];
		throw fail(
			`the '${entry.type}' sample description of track ${track} says ` +
				`${width}x${height} but its sequence parameter set codes ` +
				`${s.width}x${s.height}${s.codedWidth !== s.width || s.codedHeight !== s.height ? ` (${s.codedWidth}x${s.codedHeight} before cropping)` : ''}`,
		);
	}
	const firstSampleNeeds = (h265 ? [VPS, SPS, PPS] : [SPS, PPS]).filter(
		(t) => !config.sets.get(t)?.length,
	);
	return {
		codec: h265 ? Codec.H265 : Codec.H264,
		lengthSize: config.lengthSize,
		firstSampleNeeds,
		params,
	};
}

/**
 * The parameter sets a decoder of one sample entry holds: the configuration's, then those its samples carry, each
 * parsed as it arrives (the same rules wherever it is): an SPS (parseH264Sps, parseH265Sps) naming a VPS that is
 * there (H.265), a PPS naming an SPS that is there, a VPS of an id. The entry's width and height must be the picture
 * size of one SPS of the configuration, or, when the configuration holds none (avc3, hev1), of the first SPS of the
 * samples.
 */
export class ParameterSets {
	readonly sps = new Map<number, SpsSize>();
	private readonly vps = new Set<number>();
	private readonly pps = new Set<number>();
	sizeMatched = false;
	private inBand = false;

	constructor(
		readonly codec: Codec,
		private readonly width: number,
		private readonly height: number,
	) {}

	/** A copy to hold one track's samples to (the samples' sets join it, not the entry's). */
	copy(): ParameterSets {
		const c = new ParameterSets(this.codec, this.width, this.height);
		this.sps.forEach((v, k) => c.sps.set(k, v));
		this.vps.forEach((v) => c.vps.add(v));
		this.pps.forEach((v) => c.pps.add(v));
		c.sizeMatched = this.sizeMatched;
		return c;
	}

	/** the highest TemporalId a NAL unit may have: sps_max_sub_layers_minus1 of the SPSs held (6 before any) */
	get maxTemporalId(): number {
		return this.sps.size
			? Math.max(...[...this.sps.values()].map((s) => s.maxSubLayersMinus1 ?? 0))
			: 6;
	}

	/** Whether a NAL unit of this type is a parameter set (to be read whole and added). */
	isParameterSet(type: number): boolean {
		return this.codec === Codec.H265 ? type >= 32 && type <= 34 : type === 7 || type === 8;
	}

	/** Adds a parameter-set NAL unit (header included); the reason it is not a usable one, or undefined. */
	add(nal: Buffer, inBand: boolean): string | undefined {
		const h265 = this.codec === Codec.H265;
		const type = h265 ? (nal[0] >> 1) & 0x3f : nal[0] & 0x1f;
		if (h265 && type === 32) {
			if (nal.length < 3) return 'its video parameter set is cut';
			this.vps.add(nal[2] >> 4);
			return undefined;
		}
		if (type === (h265 ? 33 : 7)) {
			const sps = h265 ? parseH265Sps(nal) : parseH264Sps(nal);
			if (typeof sps === 'string') return sps;
			if (h265 && this.vps.size && !this.vps.has(sps.vps!))
				return `its sequence parameter set names video parameter set ${sps.vps}, which is not there`;
			const fits =
				(sps.width === this.width && sps.height === this.height) ||
				(sps.codedWidth === this.width && sps.codedHeight === this.height);
			if (inBand && !this.sps.size && !this.inBand && !fits) {
				return `its sequence parameter set codes ${sps.width}x${sps.height}, but its sample description says ${this.width}x${this.height}`;
			}
			this.inBand ||= inBand;
			this.sizeMatched ||= fits;
			this.sps.set(sps.id, sps);
			return undefined;
		}
		const pps = h265 ? parseH265Pps(nal) : parseH264Pps(nal);
		if (typeof pps === 'string') return pps;
		if (!this.sps.has(pps.sps))
			return `its picture parameter set names sequence parameter set ${pps.sps}, which is not there`;
		this.pps.add(pps.id);
		return undefined;
	}
}

/** MPEG-4 descriptor: its tag, its payload, and where the next one starts. */
function descriptor(d: Buffer, p: number): { tag: number; body: Buffer; next: number } | undefined {
	if (p + 2 > d.length) return undefined;
	const tag = d[p++];
	let size = 0;
	for (let i = 0; ; i++) {
		if (i === 4 || p >= d.length) return undefined;
		const b = d[p++];
		size = size * 128 + (b & 0x7f);
		if (!(b & 0x80)) break;
	}
	if (p + size > d.length) return undefined;
	return { tag, body: d.subarray(p, p + size), next: p + size };
}

/** AAC audio object types a decoder reads: Main, LC, LTP, SBR (HE-AAC), PS (HE-AAC v2) */
const AAC_OBJECT_TYPES = [1, 2, 4, 5, 29];
/** objectTypeIndication: MPEG-4 Audio, MPEG-2 AAC Main, LC */
const AAC_OBJECT_INDICATIONS = [0x40, 0x66, 0x67];

/** An AudioSpecificConfig (ISO/IEC 14496-3 1.6.2.1) of AAC: object type, sampling frequency and channel configuration a decoder accepts. */
function audioSpecificConfig(asc: Buffer): string | undefined {
	try {
		const r = new Bits(asc, 0);
		const objectType = () => {
			const t = r.u(5);
			return t === 31 ? 32 + r.u(6) : t;
		};
		const frequency = () => {
			const i = r.u(4);
			return i === 15 ? r.u(24) : i <= 12 ? i : -1;
		};
		let type = objectType();
		if (!AAC_OBJECT_TYPES.includes(type))
			return `audio object type ${type}, not AAC (${AAC_OBJECT_TYPES.join(', ')})`;
		if (frequency() < 0) return 'a reserved sampling frequency index';
		const channels = r.u(4);
		if (channels < 1 || channels > 7) return `channel configuration ${channels} (1 to 7 accepted)`;
		if (type === 5 || type === 29) {
			if (frequency() < 0) return 'a reserved extension sampling frequency index';
			type = objectType();
			if (![1, 2, 4].includes(type)) return `audio object type ${type} under SBR, not AAC`;
		}
		return undefined;
	} catch (err) {
		if (err instanceof Overrun) return 'fewer bits than its fields';
		throw err;
	}
}

/**
 * An audio track's sample entry (an AudioSpecificEntry: 28 bytes of fields in version 0, then boxes): `mp4a`, not
 * encrypted, holding one `esds` whose ES descriptor's decoder configuration names AAC (MPEG-4 Audio, or MPEG-2 AAC
 * Main or LC) as an audio stream, with a decoder-specific AudioSpecificConfig that audioSpecificConfig accepts.
 */
export function audioEntry(
	entry: EntryBox,
	track: number,
	children: (parent: EntryBox) => EntryBox[],
): void {
	let boxes: EntryBox[] | undefined;
	try {
		boxes =
			entry.data.length >= 28
				? children({ type: entry.type, data: entry.data.subarray(28), at: entry.at + 28 })
				: undefined;
	} catch {
		boxes = undefined;
	}
	refuseEncrypted(entry, boxes, 'audio', track);
	if (entry.type !== 'mp4a')
		throw fail(
			`the audio sample entry of track ${track} is '${entry.type}', not a codec this node vouches for (accepted: ${ACCEPTED_AUDIO})`,
		);
	if (entry.data.length >= 10 && entry.data.readUInt16BE(8) !== 0)
		throw fail(
			`the 'mp4a' sample description of track ${track} is of version ${entry.data.readUInt16BE(8)} (0 is accepted)`,
		);
	boxes = entryBoxes(entry, 28, track, children);
	const esds = boxes.filter((k) => k.type === 'esds');
	if (esds.length !== 1)
		throw fail(
			`the 'mp4a' sample description of track ${track} has ${esds.length ? `${esds.length} 'esds' boxes` : "no 'esds' decoder configuration"}`,
		);
	const where = `its 'esds' box of track ${track}`;
	const d = esds[0].data;
	if (d.length < 4 || d[0] !== 0) throw fail(`${where} is damaged`);
	const es = descriptor(d, 4);
	if (!es || es.tag !== 3 || es.next !== d.length || es.body.length < 3)
		throw fail(`${where} is damaged (no ES descriptor filling it)`);
	const flags = es.body[2];
	let p = 3 + (flags & 0x80 ? 2 : 0);
	if (flags & 0x40) p += 1 + (es.body[p] ?? 0);
	if (flags & 0x20) p += 2;
	const dc = descriptor(es.body, p);
	if (!dc || dc.tag !== 4 || dc.body.length < 13)
		throw fail(`${where} is damaged (no decoder configuration descriptor)`);
	const oti = dc.body[0];
	if (!AAC_OBJECT_INDICATIONS.includes(oti) || dc.body[1] >> 2 !== 5)
		throw fail(
			`${where} names objectTypeIndication 0x${oti.toString(16)}, stream type ${dc.body[1] >> 2}: not AAC audio (accepted: ${ACCEPTED_AUDIO})`,
		);
	const dsi = descriptor(dc.body, 13);
	if (!dsi || dsi.tag !== 5 || !dsi.body.length) throw fail(`${where} has no AudioSpecificConfig`);
	const bad = audioSpecificConfig(dsi.body);
	if (bad) throw fail(`${where}: its AudioSpecificConfig has ${bad}`);
}

/**
 * H.264 NAL unit types that may appear in a sample: slices 1 and 5, SEI, parameter sets, delimiters, filler, and the
 * extension types 13–15, 19–21 decoders skip.
 */
const H264_SAMPLE_TYPES = new Set([1, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 19, 20, 21]);
/** H.264 types whose nal_ref_idc must be 0 (7.4.1): SEI, access unit delimiter, end of sequence, end of stream, filler */
const H264_UNREFERENCED = new Set([6, 9, 10, 11, 12]);

/**
 * H.265 NAL unit types: the picture types (0–9 non-IRAP, 16–21 IRAP) and VPS, SPS, PPS, AUD, EOS, EOB, FD, SEI
 * (32–40); the reserved and unspecified ones are not H.265 data.
 */
const h265Vcl = (t: number) => t <= 9 || (t >= 16 && t <= 21);
const h265Irap = (t: number) => t >= 16 && t <= 21;
const h265Valid = (t: number) => h265Vcl(t) || (t >= 32 && t <= 40);

/**
 * The NAL units of one track's samples, in decoding order, held to what a decoder of the entry's codec needs: every
 * unit of a type of that codec with its forbidden bit clear, each sample one picture (at least one slice of the base
 * layer, all its slices of one kind), the first sample a random-access picture (H.264: IDR; H.265: IRAP) carrying
 * the parameter sets its configuration lacks, and an IDR (H.265: IRAP) picture only in a sync sample (when the
 * track has a sync-sample table); parameter sets carried in the samples are read whole and held to the rules of
 * those in the configuration (ParameterSets).
 * H.264: nal_ref_idc non-zero on IDR slices and zero on SEI, delimiters and filler (7.4.1); data-partitioned
 * slices (2–4, the Extended profile's, which decoders do not implement) are refused. H.265: TemporalId at most the
 * SPS's sps_max_sub_layers_minus1, and 0 on IRAP pictures, VPS, SPS, EOS and EOB; TSA and STSA pictures not at
 * TemporalId 0 (7.4.2.2). Units of layers above the base layer are skipped, as single-layer decoders skip them.
 */
export class NalSampleCheck {
	private kind = -1;
	private refZero = -1;
	private pictures = 0;
	private seen = new Set<number>();
	private where = '';
	private first = false;
	private sync = false;

	private readonly params: ParameterSets;

	constructor(private readonly entry: Pick<VideoEntry, 'codec' | 'firstSampleNeeds' | 'params'>) {
		this.params = entry.params.copy();
	}

	/** Whether the unit with these header bytes is a parameter set, to be read whole and passed to `parameterSet`. */
	wantsWhole(h: Buffer): boolean {
		const h265 = this.entry.codec === Codec.H265;
		if (h265 && (h.readUInt16BE(0) >> 3) & 0x3f) return false;
		return this.params.isParameterSet(h265 ? (h[0] >> 1) & 0x3f : h[0] & 0x1f);
	}

	/** A parameter set carried in the sample (header included): the reason it is not a usable one, or undefined. */
	parameterSet(nal: Buffer): string | undefined {
		const bad = this.params.add(nal, true);
		return bad ? `${this.where} carries a parameter set a decoder cannot use: ${bad}` : undefined;
	}

	get headerBytes(): number {
		return this.entry.codec === Codec.H265 ? 2 : 1;
	}

	begin(where: string, first: boolean, sync: boolean): void {
		this.where = where;
		this.first = first;
		this.sync = sync;
		this.kind = -1;
		this.refZero = -1;
		this.pictures = 0;
		this.seen.clear();
	}

	/** A NAL unit's header bytes; the reason it cannot be in this sample, or undefined. */
	unit(h: Buffer): string | undefined {
		return this.entry.codec === Codec.H265 ? this.h265(h.readUInt16BE(0)) : this.h264(h[0]);
	}

	private picture(kind: number, name: string): string | undefined {
		if (this.first && this.pictures === 0) {
			const missing = this.entry.firstSampleNeeds.filter((t) => !this.seen.has(t));
			if (missing.length)
				return (
					`${this.where} is the first and its picture comes before the parameter sets ` +
					`(NAL types ${missing.join(', ')}) that neither it nor the decoder configuration carries`
				);
		}
		if (this.kind >= 0 && this.kind !== kind)
			return `${this.where} mixes ${name} slices with others (one picture per sample, all its slices of one kind)`;
		this.kind = kind;
		this.pictures++;
		return undefined;
	}

	private h264(b: number): string | undefined {
		const type = b & 0x1f;
		const ref = b >> 5;
		if (b & 0x80)
			return `${this.where} holds a NAL unit with its forbidden bit set (byte 0x${b.toString(16)}): not H.264 data`;
		if (type >= 2 && type <= 4)
			return `${this.where} holds a data-partitioned slice (NAL type ${type}), which decoders do not implement`;
		if (!H264_SAMPLE_TYPES.has(type))
			return `${this.where} holds a NAL unit of type ${type}, ${type === 0 || type >= 24 ? 'unspecified' : 'reserved'} in H.264: not H.264 data`;
		if (type === 5 && !ref)
			return `${this.where} holds an IDR slice with nal_ref_idc 0 (H.264 requires it non-zero)`;
		if (H264_UNREFERENCED.has(type) && ref)
			return `${this.where} holds a NAL unit of type ${type} with nal_ref_idc ${ref} (H.264 requires 0)`;
		this.seen.add(type);
		if (type !== 1 && type !== 5) return undefined;
		if (this.refZero >= 0 && this.refZero !== (ref ? 0 : 1))
			return `${this.where} mixes reference and non-reference slices`;
		this.refZero = ref ? 0 : 1;
		return this.picture(type, type === 5 ? 'IDR' : 'non-IDR');
	}

	private h265(h: number): string | undefined {
		const type = (h >> 9) & 0x3f;
		const layer = (h >> 3) & 0x3f;
		const tid = (h & 7) - 1;
		if (h >> 15)
			return `${this.where} holds a NAL unit with its forbidden bit set (bytes 0x${h.toString(16)}): not H.265 data`;
		if (layer) return undefined;
		if (!h265Valid(type))
			return `${this.where} holds a NAL unit of type ${type}, ${type >= 48 ? 'unspecified' : 'reserved'} in H.265: not H.265 data`;
		if (tid < 0)
			return `${this.where} holds a NAL unit of type ${type} with nuh_temporal_id_plus1 0 (not H.265 data)`;
		if (tid > this.params.maxTemporalId)
			return `${this.where} holds a NAL unit of TemporalId ${tid}, above the ${this.params.maxTemporalId} its sequence parameter set allows`;
		if (tid && (h265Irap(type) || type === 32 || type === 33 || type === 36 || type === 37))
			return `${this.where} holds a NAL unit of type ${type} with TemporalId ${tid} (H.265 requires 0)`;
		if (!tid && type >= 2 && type <= 7)
			return `${this.where} holds a temporal sub-layer switching picture (type ${type}) at TemporalId 0`;
		this.seen.add(type);
		if (!h265Vcl(type)) return undefined;
		return this.picture(type, `type ${type}`);
	}

	/** After the sample's last unit: the reason the sample is not one picture a decoder can take there, or undefined. */
	end(): string | undefined {
		if (!this.pictures)
			return `${this.where} holds no picture (no ${this.entry.codec === Codec.H265 ? 'base-layer slice' : 'slice of NAL type 1 or 5'})`;
		const h265 = this.entry.codec === Codec.H265;
		const randomAccess = h265 ? h265Irap(this.kind) : this.kind === 5;
		const what = h265 ? 'an IRAP picture (NAL types 16 to 21)' : 'an IDR picture (NAL type 5)';
		if (this.first && !randomAccess)
			return `${this.where} is the first and is not ${what}: a decoder cannot start there`;
		if (randomAccess && !this.sync)
			return `${this.where} holds ${what} but is not a sync sample in its 'stss' table`;
		return undefined;
	}
}
