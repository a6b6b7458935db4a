/**
 * Mutations of a valid media file, as plain data (so a failing case prints readably): cut it at a byte, remove one
 * of its structural units (PNG chunk, JPEG segment, RIFF chunk, MP4 box at any depth, with or without fixing the
 * sizes of the boxes around it) or a byte range, rewrite a length field, flip bytes, append garbage.
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
	| { kind: 'append'; bytes: number[]; copy: boolean };

const BMFF_CONTAINERS = new Set(['moov', 'trak', 'mdia', 'minf', 'stbl', 'edts', 'dinf', 'udta', 'mvex']);

function bmffUnits(b: Buffer, from: number, to: number, parents: Unit[], out: Unit[]): void {
	for (let p = from; p + 8 <= to; ) {
		const size = b.readUInt32BE(p);
		const type = b.toString('latin1', p + 4, p + 8);
		const end = size === 0 ? to : p + size;
		if (size < 8 && size !== 0) return;
		if (end > to) return;
		const parent = parents.at(-1);
		const unit: Unit = { name: `${parent ? `${parent.name.split('@')[0]}/` : ''}${type}@${p}`, start: p, end, lenAt: p, lenBytes: 4, le: false, parents };
		out.push(unit);
		if (BMFF_CONTAINERS.has(type)) bmffUnits(b, p + 8, end, [...parents, unit], out);
		p = end;
	}
}

/** The structural units of a file of `format` (empty where the format has none that a mutation can name). */
export function unitsOf(format: Format, b: Buffer): Unit[] {
	const out: Unit[] = [];
	if (format === 'png') {
		for (let p = 8; p + 12 <= b.length; p += 12 + b.readUInt32BE(p)) out.push({ name: `${b.toString('latin1', p + 4, p + 8)}@${p}`, start: p, end: p + 12 + b.readUInt32BE(p), lenAt: p, lenBytes: 4, le: false });
	} else if (format === 'jpeg') {
		for (let p = 2; p + 4 <= b.length && b[p] === 0xff; ) {
			const marker = b[p + 1];
			const end = p + 2 + b.readUInt16BE(p + 2);
			out.push({ name: `FF${marker.toString(16).toUpperCase()}@${p}`, start: p, end, lenAt: p + 2, lenBytes: 2, le: false });
			if (marker === 0xda) break;
			p = end;
		}
	} else if (format === 'webp') {
		out.push({ name: 'RIFF@0', start: 0, end: b.length, lenAt: 4, lenBytes: 4, le: true });
		for (let p = 12; p + 8 <= b.length; ) {
			const len = b.readUInt32LE(p + 4);
			const end = p + 8 + len + (len & 1);
			out.push({ name: `${b.toString('latin1', p, p + 4)}@${p}`, start: p, end, lenAt: p + 4, lenBytes: 4, le: true });
			p = end;
		}
	} else if (format === 'bmp') {
		for (const [name, at] of [['bfSize', 2], ['bfOffBits', 10], ['biSize', 14], ['biWidth', 18], ['biHeight', 22], ['biSizeImage', 34], ['biClrUsed', 46]] as const) {
			out.push({ name, start: at, end: at, lenAt: at, lenBytes: 4, le: true });
		}
	} else if (format === 'mp4') bmffUnits(b, 0, b.length, [], out);
	return out;
}

const removableUnits = (units: Unit[], length: number) => units.filter((u) => u.end > u.start && u.end - u.start < length);

const byteAt = (len: number) => fc.nat({ max: Math.max(0, len - 1) });

/** Mutations of a file of `length` bytes with `units` structural units. */
export function mutationArb(length: number, units: Unit[]): fc.Arbitrary<Mutation> {
	const removable = removableUnits(units, length);
	const options: Array<fc.Arbitrary<Mutation>> = [
		fc.record({ kind: fc.constant('truncate' as const), at: fc.integer({ min: 1, max: Math.max(1, length - 1) }) }),
		fc.record({ kind: fc.constant('remove-range' as const), at: byteAt(length), len: fc.integer({ min: 1, max: 64 }) }),
		fc.record({ kind: fc.constant('flip' as const), at: byteAt(length), xor: fc.integer({ min: 1, max: 255 }) }),
		fc.record({ kind: fc.constant('append' as const), bytes: fc.array(fc.nat({ max: 255 }), { minLength: 1, maxLength: 64 }), copy: fc.boolean() }),
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
	if (removable.length) options.push(fc.record({ kind: fc.constant('remove-unit' as const), unit: fc.nat({ max: removable.length - 1 }), fixParents: fc.boolean() }));
	return fc.oneof(...options);
}

function writeLength(b: Buffer, u: Unit, v: number): void {
	const value = u.lenBytes === 2 ? v & 0xffff : v >>> 0;
	if (u.lenBytes === 2) (u.le ? b.writeUInt16LE(value, u.lenAt) : b.writeUInt16BE(value, u.lenAt));
	else u.le ? b.writeUInt32LE(value, u.lenAt) : b.writeUInt32BE(value, u.lenAt);
}

function readLength(b: Buffer, u: Unit): number {
	if (u.lenBytes === 2) return u.le ? b.readUInt16LE(u.lenAt) : b.readUInt16BE(u.lenAt);
	return u.le ? b.readUInt32LE(u.lenAt) : b.readUInt32BE(u.lenAt);
}

/** The mutated copy of `b` (never `b` itself). */
export function applyMutation(b: Buffer, units: Unit[], m: Mutation): Buffer {
	switch (m.kind) {
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
			if (m.fixParents) for (const p of u.parents ?? []) writeLength(c, p, readLength(c, p) - (u.end - u.start));
			return c;
		}
	}
}

/** One line naming a mutation and what it hit. */
export function describeMutation(units: Unit[], length: number, m: Mutation): string {
	if ((m.kind === 'rewrite-length' && !units.length) || (m.kind === 'remove-unit' && !removableUnits(units, length).length)) return `${m.kind} (no unit left: unchanged)`;
	if (m.kind === 'rewrite-length') return `rewrite the length of ${units[m.unit % units.length].name} ${m.absolute === undefined ? `by ${m.delta}` : `to ${m.absolute}`}`;
	if (m.kind === 'remove-unit') {
		const removable = removableUnits(units, length);
		return `remove ${removable[m.unit % removable.length]?.name}${m.fixParents ? ' (parent sizes fixed)' : ''}`;
	}
	if (m.kind === 'append') return `append ${m.copy ? 'a copy of the file' : `${m.bytes.length} bytes`}`;
	return JSON.stringify(m);
}
