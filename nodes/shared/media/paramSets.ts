/**
 * The parameter sets of H.264 and H.265 (the sample entries' decoder configurations and the samples carry them;
 * codecs.ts, nalSamples.ts): a NAL payload's bits, each sequence parameter set parsed up to its picture size (profile
 * in the decodable set, identifiers and bit depths in range, cropping inside the picture), each picture parameter set
 * to the sequence parameter set it names, and the sets a decoder of one sample entry holds (`ParameterSets`).
 */

export const Codec = { H264: 1, H265: 2 } as const;
export type Codec = (typeof Codec)[keyof typeof Codec];

/** H.264 profiles a decoder (ffmpeg's, every browser's) decodes: Baseline, Main, Extended, High, High 10, 4:2:2, 4:4:4 (Predictive, Intra). */
export const H264_PROFILES = [66, 77, 88, 100, 110, 122, 244, 44];
/** profile_idc values whose SPS carries chroma format, bit depths and scaling matrices (H.264 7.3.2.1.1) */
const H264_HIGH_SYNTAX = [100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135];
/** H.265 profiles: Main, Main 10, Main Still Picture, Format Range Extensions */
export const H265_PROFILES = [1, 2, 3, 4];
/** the largest picture side accepted (the image cap) */
const MAX_SIDE = 16384;

export class Overrun extends Error {}

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
export type Parsed<T> = T | string;

export interface SpsSize {
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
