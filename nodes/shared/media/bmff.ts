/**
 * ISO base media files (MP4, MOV, AVIF, HEIF) checked while they stream: the top-level boxes must tile the file
 * exactly (from an `ftyp` box to the last byte), the boxes a format needs must be present, and the children of
 * container boxes must tile them too. For MP4 the `moov` box is kept (at most MAX_MOOV_BYTES) and parsed at the end
 * (moov.ts): every chunk its sample tables point to must lie inside an `mdat` box. Memory: the moov box, a few bytes
 * per `mdat` box, never the media data. A header-only, truncated or padded file fails.
 */
import { invalid, type InvalidMediaError } from './errors';
import { parseMoov, type FramedSamples } from './moov';

export interface BmffRules {
	/** for messages: "MP4" */
	format: string;
	/** top-level boxes that must be present */
	required: string[];
	/** top-level boxes whose payload must not be empty (the media data) */
	nonEmpty: string[];
	/** boxes whose children are walked too, with the children each must hold */
	containers: Record<string, string[]>;
	/** keep the top-level `moov` box and hold its sample tables to the `mdat` boxes at the end */
	sampleTables?: boolean;
}

export const MP4_RULES: BmffRules = {
	format: 'MP4',
	required: ['ftyp', 'moov', 'mdat'],
	nonEmpty: ['mdat'],
	containers: {},
	sampleTables: true,
};

/** the largest `moov` box kept to be parsed (a generated video's is a few KiB to a few MiB) */
export const MAX_MOOV_BYTES = 64 * 1024 * 1024;
/** the most top-level `mdat` boxes a file may have */
const MAX_MDATS = 4096;

interface Level {
	type: string;
	/** absolute offset where this box ends (Infinity: a size-0 box running to the end of the file) */
	end: number;
	children: Set<string>;
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** Push the bytes in order, then `end()`; both throw InvalidMediaError as soon as the structure is wrong. */
export class BmffChecker {
	private pos = 0;
	private header: Buffer[] = [];
	private headerBytes = 0;
	private skip = 0;
	private levels: Level[] = [{ type: '(file)', end: Infinity, children: new Set() }];
	private readonly top = new Set<string>();
	private readonly payload = new Map<string, number>();
	private boxes = 0;
	private brand?: string;
	/** the box being read */
	private current = '';
	/** where the payload of a box running to the end of the file starts */
	private toEnd = 0;
	/** bytes of the current box's payload still to capture (the ftyp brand, the moov box) */
	private capture?: { type: string; want: number; got: Buffer[]; at: number };
	private moov?: { data: Buffer; at: number };
	/** payload ranges of the top-level `mdat` boxes, in file order (end Infinity: to the end of the file) */
	private readonly mdats: Array<{ start: number; end: number }> = [];

	constructor(private readonly rules: BmffRules) {}

	get bytes(): number {
		return this.pos;
	}

	/** The major brand of the `ftyp` box, once read. */
	get majorBrand(): string | undefined {
		return this.brand;
	}

	push(chunk: Buffer): void {
		let i = 0;
		while (i < chunk.length) {
			if (this.skip > 0) {
				const take = Math.min(this.skip, chunk.length - i);
				if (this.capture) this.captureBytes(chunk.subarray(i, i + take));
				this.skip -= take;
				this.pos += take;
				i += take;
				if (this.skip === 0) this.closeLevels();
				continue;
			}
			const need = this.headerNeed();
			const take = Math.min(need - this.headerBytes, chunk.length - i);
			this.header.push(chunk.subarray(i, i + take));
			this.headerBytes += take;
			this.pos += take;
			i += take;
			if (this.headerBytes === need && this.headerNeed() === need) this.openBox();
		}
	}

	/** The file's size and brand; for MP4 also its H.264/H.265 samples, for the NAL check of the stored file (nal.ts). */
	end(): { bytes: number; brand?: string; framed?: FramedSamples } {
		const f = (why: string) => this.fail(why);
		if (this.pos === 0) throw f('the file is empty');
		if (this.headerBytes)
			throw f(`it ends inside a box header at byte ${this.pos - this.headerBytes} (cut short)`);
		const open = this.levels.at(-1)!;
		if (this.toEnd) this.payload.set(open.type, this.pos - this.toEnd);
		else if (this.skip > 0 || this.levels.length > 1) {
			const short = (this.levels.length > 1 ? open.end : this.pos + this.skip) - this.pos;
			throw f(
				`it ends inside its '${this.levels.length > 1 ? open.type : this.current}' box, ${short} bytes short (cut short)`,
			);
		}
		for (const t of this.rules.required)
			if (!this.top.has(t))
				throw f(`it has no '${t}' box${t === 'mdat' ? ' (no media data): header only' : ''}`);
		for (const t of this.rules.nonEmpty)
			if (!this.payload.get(t)) throw f(`its '${t}' box is empty: header only`);
		const framed = this.rules.sampleTables ? this.checkSampleTables() : undefined;
		return { bytes: this.pos, brand: this.brand, ...(framed ? { framed } : {}) };
	}

	private checkSampleTables(): FramedSamples {
		const mdats = this.mdats.map((m) => ({ start: m.start, end: Math.min(m.end, this.pos) }));
		return parseMoov(
			this.moov?.data ?? Buffer.alloc(0),
			this.moov?.at ?? 0,
			(start, end, track) => {
				let lo = 0;
				let hi = mdats.length - 1;
				while (lo < hi) {
					const mid = (lo + hi + 1) >> 1;
					if (mdats[mid].start <= start) lo = mid;
					else hi = mid - 1;
				}
				const m = mdats[lo];
				if (!(start >= m.start && end <= m.end)) {
					throw this.fail(
						`a chunk of track ${track} (bytes ${start} to ${end}) lies ${end > this.pos ? 'past the end of the file (cut short)' : 'outside its media data'}`,
					);
				}
			},
		).framed;
	}

	private fail(why: string): InvalidMediaError {
		return invalid(this.rules.format, why);
	}

	/** 8 bytes of box header, 16 when the size field is 1 (a 64-bit size follows). */
	private headerNeed(): number {
		if (this.headerBytes < 4) return 8;
		const first = this.header.length === 1 ? this.header[0] : Buffer.concat(this.header);
		return first.readUInt32BE(0) === 1 ? 16 : 8;
	}

	private openBox(): void {
		const h = Buffer.concat(this.header);
		this.header = [];
		this.headerBytes = 0;
		const start = this.pos - h.length;
		const type = h.toString('latin1', 4, 8);
		const parent = this.levels.at(-1)!;
		const atTop = this.levels.length === 1;
		if (!/^[\x20-\x7e]{4}$/.test(type))
			throw this.fail(
				`no box at byte ${start} (${atTop && this.boxes ? 'bytes that are not a box follow the last one: padded or joined file' : 'damaged data'})`,
			);
		if (atTop && this.boxes === 0 && type !== 'ftyp')
			throw this.fail(`its first box is '${type}', not 'ftyp'`);
		if (atTop && this.boxes > 0 && type === 'ftyp')
			throw this.fail(`a second 'ftyp' box at byte ${start} (joined files)`);
		let size: number;
		const small = h.readUInt32BE(0);
		if (small === 1) {
			const big = h.readBigUInt64BE(8);
			if (big > MAX_SAFE) throw this.fail(`its '${type}' box claims ${big} bytes`);
			size = Number(big);
		} else size = small === 0 ? Infinity : small;
		if (size < h.length)
			throw this.fail(`its '${type}' box at byte ${start} has an impossible size of ${size} bytes`);
		if (size === Infinity && !atTop)
			throw this.fail(`its '${type}' box inside '${parent.type}' has no size`);
		const end = start + size;
		if (end > parent.end)
			throw this.fail(`its '${type}' box runs past the end of its '${parent.type}' box`);
		if (atTop) {
			this.boxes++;
			if (type === 'ftyp' && size < 16) throw this.fail(`its 'ftyp' box is too short`);
			if (this.rules.sampleTables) this.topLevel(type, start, h.length, size);
			this.top.add(type);
		} else parent.children.add(type);
		const length = end - this.pos;
		this.current = type;
		this.payload.set(type, (this.payload.get(type) ?? 0) + (size === Infinity ? 0 : length));
		if (atTop && this.rules.containers[type] && size !== Infinity) {
			this.levels.push({ type, end, children: new Set() });
			this.closeLevels();
			return;
		}
		if (type === 'ftyp' && atTop) this.capture = { type, want: 4, got: [], at: this.pos };
		if (type === 'moov' && atTop && this.rules.sampleTables)
			this.capture = { type, want: length, got: [], at: this.pos };
		this.skip = length;
		if (size === Infinity) {
			// a box "to the end of the file": whatever follows is its payload
			this.skip = Number.MAX_SAFE_INTEGER;
			this.levels.push({ type, end: Infinity, children: new Set() });
			this.toEnd = this.pos;
		}
		if (this.skip === 0) this.closeLevels();
	}

	/** What MP4 asks of a top-level box as it opens: one `moov` of bounded size, `mdat` ranges noted, no fragments. */
	private topLevel(type: string, start: number, head: number, size: number): void {
		if (type === 'moof')
			throw this.fail(`it is a fragmented MP4 (a 'moof' box at byte ${start}): not accepted`);
		if (type === 'moov') {
			if (this.top.has('moov')) throw this.fail(`a second 'moov' box at byte ${start}`);
			if (size === Infinity || size - head > MAX_MOOV_BYTES)
				throw this.fail(
					`its 'moov' box ${size === Infinity ? 'has no size' : `holds ${size - head} bytes, more than the ${MAX_MOOV_BYTES} accepted`}`,
				);
		}
		if (type === 'mdat') {
			if (this.mdats.length >= MAX_MDATS) throw this.fail(`more than ${MAX_MDATS} 'mdat' boxes`);
			this.mdats.push({ start: start + head, end: start + size });
		}
	}

	private captureBytes(bytes: Buffer): void {
		const c = this.capture!;
		c.got.push(bytes.subarray(0, c.want));
		c.want -= Math.min(c.want, bytes.length);
		if (c.want === 0) {
			const data = Buffer.concat(c.got);
			if (c.type === 'moov') this.moov = { data, at: c.at };
			else this.brand = data.toString('latin1');
			this.capture = undefined;
		}
	}

	/** Leaves every container whose end was reached (its children must tile it exactly). */
	private closeLevels(): void {
		for (;;) {
			const level = this.levels.at(-1)!;
			if (this.levels.length === 1 || level.end !== this.pos) return;
			this.checkContainer(level);
			this.levels.pop();
		}
	}

	private checkContainer(level: Level): void {
		for (const t of this.rules.containers[level.type] ?? [])
			if (!level.children.has(t)) throw this.fail(`its '${level.type}' box has no '${t}' box`);
	}
}
