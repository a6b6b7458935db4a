/**
 * Mutations of a valid media file, as plain data (so a failing case prints readably): cut it at a byte, remove one
 * of its structural units (PNG chunk, JPEG segment, RIFF chunk, MP4 box at any depth, with or without fixing the
 * sizes of the boxes around it) or a byte range, rewrite a length field, flip bytes, append garbage; and for MP4,
 * give a sample entry another four-character type (a real codec's or a random one), rewrite a field of a decoder
 * configuration (avcC, hvcC: version, profile, NAL length size, counts, parameter-set lengths and NAL headers; esds:
 * object type, AudioSpecificConfig) or set a NAL unit header byte in a video sample.
 */
import fc from 'fast-check';

export type Format = 'png' | 'jpeg' | 'webp' | 'gif' | 'tiff' | 'bmp' | 'mp4';

/** A structural unit: its byte range and where its length field is. */
export interface Unit {
	name: string;
	start: number;
	end: number;
	lenAt: number;
	lenBytes: 2 | 4;
	le: boolean;
	/** MP4 boxes: the units (ancestors) whose length covers this one */
	parents?: Unit[];
}

export type Mutation =
	| { kind: 'truncate'; at: number }
	| { kind: 'remove-unit'; unit: number; fixParents: boolean }
	| { kind: 'remove-range'; at: number; len: number }
	| { kind: 'rewrite-length'; unit: number; delta: number; absolute?: number }
	| { kind: 'flip'; at: number; xor: number }
	| { kind: 'append'; bytes: number[]; copy: boolean }
	| { kind: 'entry-type'; entry: number; type: string }
	| { kind: 'config-field'; field: number; delta: number; absolute?: number }
	| { kind: 'nal-header'; sample: number; nal: number; byte: number; value: number };

/** a unit's own type: the last step of its name's path ('moov/trak/…/stsd@441' → 'stsd') */
export const typeOf = (u: Unit) => u.name.split('@')[0].split('/').at(-1)!;

const BMFF_CONTAINERS = new Set([
	'moov',
	'trak',
	'mdia',
	'minf',
	'stbl',
	'edts',
	'dinf',
	'udta',
	'mvex',
]);
/** sample entries whose boxes (after their fixed fields) are units too: their decoder configurations */
const ENTRY_FIELDS: Record<string, number> = { avc1: 78, avc3: 78, hvc1: 78, hev1: 78, mp4a: 28 };

function bmffUnits(b: Buffer, from: number, to: number, parents: Unit[], out: Unit[]): void {
	for (let p = from; p + 8 <= to;) {
		const size = b.readUInt32BE(p);
		const type = b.toString('latin1', p + 4, p + 8);
		const end = size === 0 ? to : p + size;
		if (size < 8 && size !== 0) return;
		if (end > to) return;
		const parent = parents.at(-1);
		const unit: Unit = {
			name: `${parent ? `${parent.name.split('@')[0]}/` : ''}${type}@${p}`,
			start: p,
			end,
			lenAt: p,
			lenBytes: 4,
			le: false,
			parents,
		};
		out.push(unit);
		if (BMFF_CONTAINERS.has(type)) bmffUnits(b, p + 8, end, [...parents, unit], out);
		else if (type === 'stsd' && p + 16 <= end) bmffUnits(b, p + 16, end, [...parents, unit], out);
		else if (
			parent &&
			typeOf(parent) === 'stsd' &&
			ENTRY_FIELDS[type] &&
			p + 8 + ENTRY_FIELDS[type] <= end
		)
			bmffUnits(b, p + 8 + ENTRY_FIELDS[type], end, [...parents, unit], out);
		p = end;
	}
}

/** The structural units of a file of `format` (empty where the format has none that a mutation can name). */
export function unitsOf(format: Format, b: Buffer): Unit[] {
	const out: Unit[] = [];
	if (format === 'png') {
		for (let p = 8; p + 12 <= b.length; p += 12 + b.readUInt32BE(p))
			out.push({
				name: `${b.toString('latin1', p + 4, p + 8)}@${p}`,
				start: p,
				end: p + 12 + b.readUInt32BE(p),
				lenAt: p,
				lenBytes: 4,
				le: false,
			});
	} else if (format === 'jpeg') {
		for (let p = 2; p + 4 <= b.length && b[p] === 0xff;) {
			const marker = b[p + 1];
			const end = p + 2 + b.readUInt16BE(p + 2);
			out.push({
				name: `FF${marker.toString(16).toUpperCase()}@${p}`,
				start: p,
				end,
				lenAt: p + 2,
				lenBytes: 2,
				le: false,
			});
			if (marker === 0xda) break;
			p = end;
		}
	} else if (format === 'webp') {
		out.push({ name: 'RIFF@0', start: 0, end: b.length, lenAt: 4, lenBytes: 4, le: true });
		for (let p = 12; p + 8 <= b.length;) {
			const len = b.readUInt32LE(p + 4);
			const end = p + 8 + len + (len & 1);
			out.push({
				name: `${b.toString('latin1', p, p + 4)}@${p}`,
				start: p,
				end,
				lenAt: p + 4,
				lenBytes: 4,
				le: true,
			});
			p = end;
		}
	} else if (format === 'bmp') {
		for (const [name, at] of [
			['bfSize', 2],
			['bfOffBits', 10],
			['biSize', 14],
			['biWidth', 18],
			['biHeight', 22],
			['biSizeImage', 34],
			['biClrUsed', 46],
		] as const) {
			out.push({ name, start: at, end: at, lenAt: at, lenBytes: 4, le: true });
		}
	} else if (format === 'mp4') bmffUnits(b, 0, b.length, [], out);
	return out;
}

/** the sample entries of an MP4's tracks (units directly inside an stsd) */
const sampleEntries = (units: Unit[]) =>
	units.filter((u) => u.parents?.length && typeOf(u.parents.at(-1)!) === 'stsd');

/** Four-character types a sample entry is given: real codecs' (video, audio, encrypted), and random printable ones. */
export const ENTRY_TYPES = [
	'avc1',
	'avc3',
	'avc2',
	'avc4',
	'avc9',
	'hvc1',
	'hev1',
	'hvc2',
	'dvh1',
	'lhv1',
	'encv',
	'enca',
	'mp4v',
	'av01',
	'vp09',
	'vp08',
	'mp4a',
	'Opus',
	'ac-3',
	'resv',
	'mjpg',
	's263',
];

/** A field of a decoder configuration: where it is, how many bytes, and which bits of them (the rest kept). */
export interface Field {
	name: string;
	at: number;
	bytes: 1 | 2;
	mask: number;
}

/** The fields of every avcC, hvcC and esds in an MP4 (as far as each still parses). */
export function configFields(b: Buffer, units: Unit[]): Field[] {
	const out: Field[] = [];
	const f = (name: string, at: number, bytes: 1 | 2, mask: number) => {
		if (at + bytes <= b.length) out.push({ name, at, bytes, mask });
	};
	for (const u of units) {
		const type = typeOf(u);
		const d = u.start + 8;
		if (type === 'avcC' && u.end - d >= 7) {
			f('avcC version', d, 1, 0xff);
			f('avcC profile', d + 1, 1, 0xff);
			f('avcC lengthSizeMinusOne', d + 4, 1, 0x03);
			f('avcC SPS count', d + 5, 1, 0x1f);
			let p = d + 6;
			for (const [name, count] of [
				['SPS', b[d + 5] & 0x1f],
				['PPS', -1],
			] as const) {
				const n = count === -1 ? b[p] : count;
				if (count === -1) f('avcC PPS count', p++, 1, 0xff);
				for (let k = 0; k < n && p + 3 <= u.end; k++) {
					f(`avcC ${name} ${k} length`, p, 2, 0xffff);
					f(`avcC ${name} ${k} NAL header`, p + 2, 1, 0xff);
					p += 2 + b.readUInt16BE(p);
				}
			}
		} else if (type === 'hvcC' && u.end - d >= 23) {
			f('hvcC version', d, 1, 0xff);
			f('hvcC profile', d + 1, 1, 0x1f);
			f('hvcC lengthSizeMinusOne', d + 21, 1, 0x03);
			f('hvcC array count', d + 22, 1, 0xff);
			let p = d + 23;
			for (let a = 0; a < b[d + 22] && p + 3 <= u.end; a++) {
				f(`hvcC array ${a} NAL type`, p, 1, 0x3f);
				f(`hvcC array ${a} count`, p + 1, 2, 0xffff);
				const n = b.readUInt16BE(p + 1);
				p += 3;
				for (let k = 0; k < n && p + 4 <= u.end; k++) {
					f(`hvcC array ${a} unit ${k} length`, p, 2, 0xffff);
					f(`hvcC array ${a} unit ${k} NAL header`, p + 2, 2, 0xffff);
					p += 2 + b.readUInt16BE(p);
				}
			}
		} else if (type === 'esds') {
			// ES descriptor (03), decoder config (04: objectTypeIndication, stream type), decoder specific info (05: AudioSpecificConfig)
			const dc = b.indexOf(Buffer.from([0x04]), d + 7);
			if (dc < 0 || dc >= u.end) continue;
			let p = dc + 1;
			while (p < u.end && b[p] & 0x80) p++;
			f('esds objectTypeIndication', p + 1, 1, 0xff);
			f('esds streamType', p + 2, 1, 0xfc);
			let q = p + 15;
			while (q < u.end && b[q] & 0x80) q++;
			if (b[p + 14] === 0x05 && q + 3 <= u.end) f('AudioSpecificConfig', q + 1, 2, 0xffff);
		}
	}
	return out;
}

/** Where each NAL unit of each sample of an MP4's first video track starts (its length field), and the header size. */
export function videoNals(b: Buffer, units: Unit[]): { header: number; samples: number[][] } {
	const entry = sampleEntries(units).find((u) =>
		['avc1', 'avc3', 'hvc1', 'hev1'].includes(typeOf(u)),
	);
	if (!entry) return { header: 1, samples: [] };
	const trak = entry.parents!.find((p) => typeOf(p) === 'trak');
	if (!trak) return { header: 1, samples: [] };
	const header = ['hvc1', 'hev1'].includes(typeOf(entry)) ? 2 : 1;
	const inTrak = (t: string) =>
		units.find((u) => typeOf(u) === t && u.start > trak.start && u.end <= trak.end);
	const stsz = inTrak('stsz');
	const stco = inTrak('stco');
	const stsc = inTrak('stsc');
	if (!stsz || !stco || !stsc || stsz.end > b.length || stco.end > b.length || stsc.end > b.length)
		return { header, samples: [] };
	const fixed = b.readUInt32BE(stsz.start + 12);
	const count = Math.min(
		b.readUInt32BE(stsz.start + 16),
		(stsz.end - stsz.start - 20) / 4 || Infinity,
		100_000,
	);
	const size = (i: number) => fixed || b.readUInt32BE(stsz.start + 20 + i * 4);
	const chunks = Math.min(b.readUInt32BE(stco.start + 12), (stco.end - stco.start - 16) / 4);
	const runs = Math.min(b.readUInt32BE(stsc.start + 12), (stsc.end - stsc.start - 16) / 12);
	const samples: number[][] = [];
	for (let r = 0, n = 0; r < runs; r++) {
		const first = b.readUInt32BE(stsc.start + 16 + r * 12);
		const per = b.readUInt32BE(stsc.start + 20 + r * 12);
		const next = r + 1 < runs ? b.readUInt32BE(stsc.start + 16 + (r + 1) * 12) : chunks + 1;
		for (let c = first; c < next && c <= chunks && n < count; c++) {
			let at = b.readUInt32BE(stco.start + 16 + (c - 1) * 4);
			for (let k = 0; k < per && n < count; k++, n++) {
				const end = at + size(n);
				const nals: number[] = [];
				for (
					let p = at;
					p + 4 + header <= Math.min(end, b.length) && nals.length < 64;
					p += 4 + b.readUInt32BE(p)
				)
					nals.push(p);
				samples.push(nals);
				at = end;
			}
		}
	}
	return { header, samples };
}

const removableUnits = (units: Unit[], length: number) =>
	units.filter((u) => u.end > u.start && u.end - u.start < length);

const byteAt = (len: number) => fc.nat({ max: Math.max(0, len - 1) });

/** Mutations of a file of `length` bytes with `units` structural units (`mp4`: the MP4 mutations too, weighted as the others together). */
export function mutationArb(length: number, units: Unit[], mp4 = false): fc.Arbitrary<Mutation> {
	const removable = removableUnits(units, length);
	const options: Array<fc.Arbitrary<Mutation>> = [
		fc.record({
			kind: fc.constant('truncate' as const),
			at: fc.integer({ min: 1, max: Math.max(1, length - 1) }),
		}),
		fc.record({
			kind: fc.constant('remove-range' as const),
			at: byteAt(length),
			len: fc.integer({ min: 1, max: 64 }),
		}),
		fc.record({
			kind: fc.constant('flip' as const),
			at: byteAt(length),
			xor: fc.integer({ min: 1, max: 255 }),
		}),
		fc.record({
			kind: fc.constant('append' as const),
			bytes: fc.array(fc.nat({ max: 255 }), { minLength: 1, maxLength: 64 }),
			copy: fc.boolean(),
		}),
	];
	if (units.length) {
		options.push(
			fc.record({
				kind: fc.constant('rewrite-length' as const),
				unit: fc.nat({ max: units.length - 1 }),
				delta: fc.integer({ min: -16, max: 16 }).filter((d) => d !== 0),
				absolute: fc.option(fc.nat({ max: 0xffffffff }), { nil: undefined }),
			}),
		);
	}
	if (removable.length)
		options.push(
			fc.record({
				kind: fc.constant('remove-unit' as const),
				unit: fc.nat({ max: removable.length - 1 }),
				fixParents: fc.boolean(),
			}),
		);
	if (!mp4) return fc.oneof(...options);
	const printable = fc.integer({ min: 0x20, max: 0x7e });
	const codecs: Array<fc.Arbitrary<Mutation>> = [
		fc.record({
			kind: fc.constant('entry-type' as const),
			entry: fc.nat({ max: 7 }),
			type: fc.oneof(
				{ arbitrary: fc.constantFrom(...ENTRY_TYPES), weight: 3 },
				{
					arbitrary: fc
						.tuple(printable, printable, printable, printable)
						.map((c) => String.fromCharCode(...c)),
					weight: 1,
				},
			),
		}),
		fc.record({
			kind: fc.constant('config-field' as const),
			field: fc.nat({ max: 63 }),
			delta: fc.integer({ min: -3, max: 3 }).filter((d) => d !== 0),
			absolute: fc.option(fc.nat({ max: 0xffff }), { nil: undefined }),
		}),
		fc.record({
			kind: fc.constant('nal-header' as const),
			sample: fc.nat({ max: 1000 }),
			nal: fc.nat({ max: 15 }),
			byte: fc.nat({ max: 1 }),
			value: fc.oneof(fc.nat({ max: 0x7f }), fc.nat({ max: 0xff })),
		}),
	];
	return fc.oneof(
		{ arbitrary: fc.oneof(...options), weight: 1 },
		{ arbitrary: fc.oneof(...codecs), weight: 1 },
	);
}

function writeLength(b: Buffer, u: Unit, v: number): void {
	const value = u.lenBytes === 2 ? v & 0xffff : v >>> 0;
	if (u.lenBytes === 2) u.le ? b.writeUInt16LE(value, u.lenAt) : b.writeUInt16BE(value, u.lenAt);
	else u.le ? b.writeUInt32LE(value, u.lenAt) : b.writeUInt32BE(value, u.lenAt);
}

function readLength(b: Buffer, u: Unit): number {
	if (u.lenBytes === 2) return u.le ? b.readUInt16LE(u.lenAt) : b.readUInt16BE(u.lenAt);
	return u.le ? b.readUInt32LE(u.lenAt) : b.readUInt32BE(u.lenAt);
}

/** The NAL header byte a nal-header mutation sets, or undefined when the file no longer has that sample. */
export function nalHeaderTarget(
	b: Buffer,
	units: Unit[],
	m: Extract<Mutation, { kind: 'nal-header' }>,
): { at: number; header: number; sample: number; nal: number } | undefined {
	const { header, samples } = videoNals(b, units);
	if (!samples.length) return undefined;
	const sample = m.sample % samples.length;
	if (!samples[sample].length) return undefined;
	const nal = m.nal % samples[sample].length;
	return { at: samples[sample][nal] + 4 + (m.byte % header), header, sample, nal };
}

/** The mutated copy of `b` (never `b` itself). */
export function applyMutation(b: Buffer, units: Unit[], m: Mutation): Buffer {
	switch (m.kind) {
		case 'entry-type': {
			const entries = sampleEntries(units);
			const c = Buffer.from(b);
			if (entries.length) c.write(m.type, entries[m.entry % entries.length].start + 4, 'latin1');
			return c;
		}
		case 'config-field': {
			const fields = configFields(b, units);
			const c = Buffer.from(b);
			if (!fields.length) return c;
			const f = fields[m.field % fields.length];
			const old = f.bytes === 2 ? c.readUInt16BE(f.at) : c[f.at];
			const bits = ((m.absolute ?? (old & f.mask) + m.delta) & f.mask) | (old & ~f.mask);
			if (f.bytes === 2) c.writeUInt16BE(bits & 0xffff, f.at);
			else c[f.at] = bits & 0xff;
			return c;
		}
		case 'nal-header': {
			const c = Buffer.from(b);
			const t = nalHeaderTarget(b, units, m);
			if (t && t.at < c.length) c[t.at] = m.value;
			return c;
		}
		case 'truncate':
			return Buffer.from(b.subarray(0, Math.min(m.at, b.length - 1)));
		case 'remove-range':
			return Buffer.concat([b.subarray(0, m.at), b.subarray(Math.min(b.length, m.at + m.len))]);
		case 'flip': {
			const c = Buffer.from(b);
			c[m.at % c.length] ^= m.xor;
			return c;
		}
		case 'append':
			return Buffer.concat([b, m.copy ? b : Buffer.from(m.bytes)]);
		case 'rewrite-length': {
			const u = units.length ? units[m.unit % units.length] : undefined;
			// a length field the (already cut) file no longer holds is left alone
			if (!u || u.lenAt + u.lenBytes > b.length) return Buffer.from(b);
			const c = Buffer.from(b);
			writeLength(c, u, m.absolute ?? readLength(c, u) + m.delta);
			return c;
		}
		case 'remove-unit': {
			const removable = removableUnits(units, b.length);
			if (!removable.length) return Buffer.from(b);
			const u = removable[m.unit % removable.length];
			const c = Buffer.concat([b.subarray(0, u.start), b.subarray(u.end)]);
			if (m.fixParents)
				for (const p of u.parents ?? []) writeLength(c, p, readLength(c, p) - (u.end - u.start));
			return c;
		}
	}
}

/** One line naming a mutation and what it hit. */
export function describeMutation(units: Unit[], length: number, m: Mutation, b?: Buffer): string {
	if (m.kind === 'entry-type') {
		const entries = sampleEntries(units);
		return entries.length
			? `retype the sample entry ${entries[m.entry % entries.length].name} to '${m.type}'`
			: 'entry-type (no sample entry: unchanged)';
	}
	if (m.kind === 'config-field' && b) {
		const fields = configFields(b, units);
		if (!fields.length) return 'config-field (no decoder configuration: unchanged)';
		const f = fields[m.field % fields.length];
		return `set ${f.name} (byte ${f.at}, mask 0x${f.mask.toString(16)}) ${m.absolute === undefined ? `by ${m.delta}` : `to ${m.absolute} under the mask`}`;
	}
	if (m.kind === 'nal-header' && b) {
		const t = nalHeaderTarget(b, units, m);
		return t
			? `set byte ${m.byte % t.header} of the header of NAL unit ${t.nal + 1} of video sample ${t.sample + 1} (byte ${t.at}) from 0x${b[t.at]?.toString(16)} to 0x${m.value.toString(16)}`
			: 'nal-header (no video sample: unchanged)';
	}
	if (
		(m.kind === 'rewrite-length' && !units.length) ||
		(m.kind === 'remove-unit' && !removableUnits(units, length).length)
	)
		return `${m.kind} (no unit left: unchanged)`;
	if (m.kind === 'rewrite-length')
		return `rewrite the length of ${units[m.unit % units.length].name} ${m.absolute === undefined ? `by ${m.delta}` : `to ${m.absolute}`}`;
	if (m.kind === 'remove-unit') {
		const removable = removableUnits(units, length);
		return `remove ${removable[m.unit % removable.length]?.name}${m.fixParents ? ' (parent sizes fixed)' : ''}`;
	}
	if (m.kind === 'append')
		return `append ${m.copy ? 'a copy of the file' : `${m.bytes.length} bytes`}`;
	return JSON.stringify(m);
}
