/**
 * The codecs an MP4 result may carry, and what is checked of each sample entry (moov.ts calls these on every sample
 * entry of a video or audio track; the parameter sets are parsed in paramSets.ts; nal.ts holds the samples' NAL units
 * to `NalSampleCheck`, nalSamples.ts). The node vouches for a file only when a decoder can read it, so a track's
 * sample entry must be one of these, with its decoder configuration parsed:
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
import {
	Bits,
	Codec,
	H264_PROFILES,
	H265_PROFILES,
	Overrun,
	ParameterSets,
	type Parsed,
} from './paramSets';

const fail = (why: string): InvalidMediaError => invalid('MP4', why);

export const VIDEO_ENTRIES = ['avc1', 'avc3', 'hvc1', 'hev1'] as const;
export const ACCEPTED_VIDEO = "H.264 as 'avc1' or 'avc3', H.265 as 'hvc1' or 'hev1'";
export const ACCEPTED_AUDIO = "AAC as 'mp4a'";

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
