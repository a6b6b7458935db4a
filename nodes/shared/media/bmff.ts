/**
 * ISO base media files (MP4, MOV, AVIF, HEIF) checked while they stream, in constant memory: the top-level boxes
 * must tile the file exactly (from an `ftyp` box to the last byte), the boxes a format needs must be present, and
 * the children of container boxes (e.g. `moov`) must tile them too. A header-only, truncated or padded file fails.
 */
import { invalid, type InvalidMediaError } from './errors';

export interface BmffRules {
	/** for messages: "MP4" */
	format: string;
	/** top-level boxes that must be present */
	required: string[];
	/** top-level boxes whose payload must not be empty (the media data) */
	nonEmpty: string[];
	/** boxes whose children are walked too, with the children each must hold */
	containers: Record<string, string[]>;
}

export const MP4_RULES: BmffRules = { format: 'MP4', required: ['ftyp', 'moov', 'mdat'], nonEmpty: ['mdat'], containers: { moov: ['mvhd'] } };

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
	/** bytes of the current box's payload still to capture (the ftyp brand) */
	private capture?: { type: string; want: number; got: Buffer[] };

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

	end(): { bytes: number; brand?: string } {
		const f = (why: string) => this.fail(why);
		if (this.pos === 0) throw f('the file is empty');
		if (this.headerBytes) throw f(`it ends inside a box header at byte ${this.pos - this.headerBytes} (cut short)`);
		const open = this.levels.at(-1)!;
		if (this.toEnd) this.payload.set(open.type, this.pos - this.toEnd);
		else if (this.skip > 0 || this.levels.length > 1) {
			const short = (this.levels.length > 1 ? open.end : this.pos + this.skip) - this.pos;
			throw f(`it ends inside its '${this.levels.length > 1 ? open.type : this.current}' box, ${short} bytes short (cut short)`);
		}
		for (const t of this.rules.required) if (!this.top.has(t)) throw f(`it has no '${t}' box${t === 'mdat' ? ' (no media data): header only' : ''}`);
		for (const t of this.rules.nonEmpty) if (!this.payload.get(t)) throw f(`its '${t}' box is empty: header only`);
		return { bytes: this.pos, brand: this.brand };
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
		if (!/^[\x20-\x7e]{4}$/.test(type)) throw this.fail(`no box at byte ${start} (${atTop && this.boxes ? 'bytes that are not a box follow the last one: padded or joined file' : 'damaged data'})`);
		if (atTop && this.boxes === 0 && type !== 'ftyp') throw this.fail(`its first box is '${type}', not 'ftyp'`);
		if (atTop && this.boxes > 0 && type === 'ftyp') throw this.fail(`a second 'ftyp' box at byte ${start} (joined files)`);
		let size: number;
		const small = h.readUInt32BE(0);
		if (small === 1) {
			const big = h.readBigUInt64BE(8);
			if (big > MAX_SAFE) throw this.fail(`its '${type}' box claims ${big} bytes`);
			size = Number(big);
		} else size = small === 0 ? Infinity : small;
		if (size < h.length) throw this.fail(`its '${type}' box at byte ${start} has an impossible size of ${size} bytes`);
		if (size === Infinity && !atTop) throw this.fail(`its '${type}' box inside '${parent.type}' has no size`);
		const end = start + size;
		if (end > parent.end) throw this.fail(`its '${type}' box runs past the end of its '${parent.type}' box`);
		if (atTop) {
			this.boxes++;
			this.top.add(type);
			if (type === 'ftyp' && size < 16) throw this.fail(`its 'ftyp' box is too short`);
		} else parent.children.add(type);
		const length = end - this.pos;
		this.current = type;
		this.payload.set(type, (this.payload.get(type) ?? 0) + (size === Infinity ? 0 : length));
		if (atTop && this.rules.containers[type] && size !== Infinity) {
			this.levels.push({ type, end, children: new Set() });
			this.closeLevels();
			return;
		}
		if (type === 'ftyp' && atTop) this.capture = { type, want: 4, got: [] };
		this.skip = length;
		if (size === Infinity) {
			// a box "to the end of the file": whatever follows is its payload
			this.skip = Number.MAX_SAFE_INTEGER;
			this.levels.push({ type, end: Infinity, children: new Set() });
			this.toEnd = this.pos;
		}
		if (this.skip === 0) this.closeLevels();
	}

	private captureBytes(bytes: Buffer): void {
		const c = this.capture!;
		c.got.push(bytes.subarray(0, c.want));
		c.want -= Math.min(c.want, bytes.length);
		if (c.want === 0) {
			this.brand = Buffer.concat(c.got).toString('latin1');
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
		for (const t of this.rules.containers[level.type] ?? []) if (!level.children.has(t)) throw this.fail(`its '${level.type}' box has no '${t}' box`);
	}
}
