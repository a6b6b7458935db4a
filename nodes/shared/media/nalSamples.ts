/**
 * The NAL units of a video track's samples held to what a decoder of the track's sample entry needs (nal.ts reads the
 * units out of the samples; codecs.ts reads the sample entry): `NalSampleCheck`.
 */
import type { VideoEntry } from './codecs';
import { Codec, type ParameterSets } from './paramSets';

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
