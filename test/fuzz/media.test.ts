/**
 * Media mutation fuzzer: valid PNG, JPEG, WebP, GIF, TIFF, BMP and MP4 files (made by sharp, by hand, by ffmpeg: the
 * MP4s are H.264 moov first and last, and H.265 with an AAC track) are cut, stripped of a chunk or box, given a wrong
 * length field, flipped or padded, and MP4s also get a sample entry of another four-character type (real codecs'
 * and random ones), a changed decoder-configuration field (avcC/hvcC version, profile, NAL length size, counts,
 * parameter-set lengths and NAL headers; esds object type and AudioSpecificConfig) or a changed NAL header byte in
 * a video sample; the node's own verdict (validateImage, the streaming MP4 checker and its sample check) is held to
 * an oracle that decodes the file in full (MP4: ffprobe and `ffmpeg -v error -i f -f null -`, every stream).
 *
 * Must hold, for every mutation: the node says Completed ⇒ the oracle decodes the file without an error. Three
 * classes are outside what the node claims: bytes flipped inside an MP4's coded video (the mdat payload, or a
 * parameter set in avcC/hvcC past its NAL header), which the node does not decode (it checks structure, sample
 * tables, codecs and their configurations, parameter sets up to the picture size, NAL framing and headers); a NAL
 * header changed so that a decoder reads the unit's payload with another syntax or reference role (an H.264 slice
 * made IDR or not, reference or not; an H.265 picture of another type; an SEI read as a slice or a parameter set:
 * the payload is then other coded data; a header a decoder skips, or one that keeps the syntax, is asserted); and
 * files whose frames all decode but whose timestamps ffmpeg rejects (e.g. the ctts box of a B-frame track removed:
 * the node does not parse the bitstream to know frames are reordered). Those cases are counted and printed, not
 * asserted. The other direction (the node refuses a file the oracle decodes, e.g. a PNG with bytes after IEND, or
 * an avcC naming an unknown profile) is counted and printed. Runs: FUZZ_RUNS per file (default 30: about a minute
 * on 2 cores, each MP4 file 10 to 20 s by load); a failure prints its seed, path and the command that replays it.
 */
import fc from 'fast-check';
import { InvalidMediaError } from '../../nodes/shared/media/errors';
import { validateImage } from '../../nodes/shared/media/image';
import { checkMp4Samples, mp4Checker } from '../../nodes/shared/media/mp4';
import { bufferReader } from '../../nodes/shared/media/nal';
import {
	applyMutation,
	describeMutation,
	mutationArb,
	nalHeaderTarget,
	typeOf,
	unitsOf,
	type Format,
	type Mutation,
	type Unit,
} from './media-mutations';
import { cleanupOracle, ffmpegDecodes, seeds, sharpDecodes } from './media-oracle';

jest.setTimeout(300_000);

const RUNS = Number(process.env.FUZZ_RUNS ?? 30);
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined;
const PATH = process.env.FUZZ_PATH || undefined;

let files: Awaited<ReturnType<typeof seeds>>;
beforeAll(async () => {
	files = await seeds();
});
afterAll(cleanupOracle);

async function nodeAccepts(format: Format, b: Buffer): Promise<{ ok: boolean; why: string }> {
	try {
		if (format === 'mp4') {
			const c = mp4Checker();
			for (let i = 0; i < b.length; i += 4096) c.push(b.subarray(i, i + 4096));
			await checkMp4Samples(c.end(), { read: bufferReader(b) });
		} else await validateImage(b);
		return { ok: true, why: '' };
	} catch (err) {
		if (!(err instanceof InvalidMediaError)) throw err;
		return { ok: false, why: err.message };
	}
}

async function oracle(
	format: Format,
	b: Buffer,
): Promise<{ ok: boolean; why: string; timingOnly?: boolean }> {
	if (format === 'mp4') return ffmpegDecodes(b, 'mp4');
	if (format === 'bmp') return ffmpegDecodes(b, 'bmp');
	return (await sharpDecodes(b))
		? { ok: true, why: '' }
		: { ok: false, why: 'sharp (failOn warning) does not decode it' };
}

/** The bytes of the avcC's and hvcC's parameter-set NAL units after their NAL header: coded data, like the samples. */
function parameterSetPayloads(b: Buffer, units: Unit[]): Array<[number, number]> {
	const out: Array<[number, number]> = [];
	for (const u of units) {
		const type = typeOf(u);
		const d = u.start + 8;
		if (type === 'avcC' && d + 6 < u.end) {
			let p = d + 6;
			for (const count of [b[d + 5] & 0x1f, -1]) {
				const n = count === -1 ? b[p++] : count;
				for (let k = 0; k < n && p + 2 <= u.end; k++) {
					const len = b.readUInt16BE(p);
					out.push([p + 3, p + 2 + len]);
					p += 2 + len;
				}
			}
		} else if (type === 'hvcC' && d + 23 <= u.end) {
			let p = d + 23;
			for (let a = 0; a < b[d + 22] && p + 3 <= u.end; a++) {
				const n = b.readUInt16BE(p + 1);
				p += 3;
				for (let k = 0; k < n && p + 2 <= u.end; k++) {
					const len = b.readUInt16BE(p);
					out.push([p + 4, p + 2 + len]);
					p += 2 + len;
				}
			}
		}
	}
	return out;
}

/**
 * Whether a mutation flipped a byte of coded video the node does not decode: inside an mdat payload, or inside a
 * parameter set (SPS/PPS/VPS) past its NAL header.
 */
function insideCodedData(b: Buffer, units: Unit[], m: Mutation): boolean {
	if (m.kind !== 'flip') return false;
	const at = m.at % b.length;
	if (units.some((u) => u.name.startsWith('mdat@') && at >= u.start + 8 && at < u.end)) return true;
	return parameterSetPayloads(b, units).some(([start, end]) => at >= start && at < end);
}

/**
 * The syntax a decoder reads a NAL unit's payload with, from its header: 'skipped' for units a decoder drops (forbidden
 * bit set, reserved or unspecified types, layers above the base layer, H.264 data partitions); otherwise its type,
 * and for H.264 slices whether they are reference pictures (nal_ref_idc zero or not changes the slice header).
 * H.264 nal_ref_idc among non-zero values and H.265 TemporalId do not change it.
 */
function nalSyntax(header: number, bytes: number): string {
	if (bytes === 1) {
		const type = header & 0x1f;
		if (
			header & 0x80 ||
			type === 0 ||
			(type >= 2 && type <= 4) ||
			(type >= 16 && type <= 18) ||
			type >= 22
		)
			return 'skipped';
		return type === 1 || type === 5 ? `${type}/${header >> 5 ? 'ref' : 'nonref'}` : `${type}`;
	}
	const type = (header >> 9) & 0x3f;
	if (
		header >> 15 ||
		(header >> 3) & 0x3f ||
		(type >= 10 && type <= 15) ||
		(type >= 22 && type <= 31) ||
		type >= 41
	)
		return 'skipped';
	return `${type}`;
}

/**
 * Whether a nal-header mutation made a decoder read the unit's payload with another syntax or reference role (an
 * H.264 slice turned IDR, non-IDR, reference or not; an H.265 picture of another type; an SEI read as a slice or a
 * parameter set…): the payload is then other coded data, which the node does not decode. Those the node still
 * accepts are counted, not asserted. A change that makes a decoder skip the unit, or keeps its syntax, is asserted:
 * what goes missing (a picture, a parameter set, a random-access point) is the node's to see.
 */
function nalPayloadReread(b: Buffer, units: Unit[], m: Mutation): boolean {
	if (m.kind !== 'nal-header') return false;
	const t = nalHeaderTarget(b, units, m);
	if (!t || t.at >= b.length) return false;
	const start = t.at - (m.byte % t.header);
	const before = t.header === 2 ? b.readUInt16BE(start) : b[start];
	const c = Buffer.from(b.subarray(start, start + t.header));
	c[m.byte % t.header] = m.value;
	const after = t.header === 2 ? c.readUInt16BE(0) : c[0];
	const was = nalSyntax(before, t.header);
	const now = nalSyntax(after, t.header);
	return now !== 'skipped' && now !== was;
}

const CASES: Array<[string, Format]> = [
	['png', 'png'],
	['jpeg', 'jpeg'],
	['webp', 'webp'],
	['gif', 'gif'],
	['tiff', 'tiff'],
	['bmp', 'bmp'],
	['mp4 faststart', 'mp4'],
	['mp4 moov last', 'mp4'],
	['mp4 h265 aac', 'mp4'],
];

describe('node verdict vs a full decoder, on mutated files', () => {
	it.each(CASES)('%s: Completed only when the oracle decodes it', async (name, format) => {
		const seed = files[name as keyof typeof files];
		expect((await nodeAccepts(format, seed)).ok).toBe(true);
		expect((await oracle(format, seed)).ok).toBe(true);
		const units = unitsOf(format, seed);
		const tally = {
			runs: 0,
			bothValid: 0,
			bothInvalid: 0,
			stricter: new Map<string, number>(),
			mediaDataFlips: 0,
			mediaDataMisses: 0,
			timingOnly: 0,
			rereads: 0,
			rereadMisses: 0,
			kinds: new Map<string, number>(),
		};
		const details = await fc.check(
			fc.asyncProperty(
				fc.array(mutationArb(seed.length, units, format === 'mp4'), { minLength: 1, maxLength: 2 }),
				async (mutations) => {
					let b = seed;
					const steps: string[] = [];
					let mediaDataFlip = false;
					let reread = false;
					for (const m of mutations) {
						const now = unitsOf(format, b);
						steps.push(describeMutation(now, b.length, m, b));
						mediaDataFlip ||= format === 'mp4' && insideCodedData(b, now, m);
						reread ||= format === 'mp4' && nalPayloadReread(b, now, m);
						tally.kinds.set(m.kind, (tally.kinds.get(m.kind) ?? 0) + 1);
						b = applyMutation(b, now, m);
					}
					const what = steps.join(', then ');
					const [node, truth] = await Promise.all([nodeAccepts(format, b), oracle(format, b)]);
					tally.runs++;
					if (node.ok && truth.ok) tally.bothValid++;
					else if (!node.ok && !truth.ok) tally.bothInvalid++;
					else if (!node.ok)
						tally.stricter.set(mutations[0].kind, (tally.stricter.get(mutations[0].kind) ?? 0) + 1);
					else if (mediaDataFlip) tally.mediaDataMisses++;
					else if (reread) tally.rereadMisses++;
					else if (truth.timingOnly) tally.timingOnly++;
					else
						throw new Error(
							`${name}: ${what} → the node says Completed (${b.length} bytes) but ${truth.why}`,
						);
					if (mediaDataFlip) tally.mediaDataFlips++;
					if (reread) tally.rereads++;
				},
			),
			{ numRuns: RUNS, seed: SEED, path: PATH, endOnFailure: process.env.FUZZ_SHRINK === '0' },
		);
		const stricter = [...tally.stricter].map(([k, v]) => `${k} ${v}`).join(', ') || 'none';
		process.stdout.write(
			`media fuzz ${name}: ${details.numRuns} runs, seed ${details.seed}; both valid ${tally.bothValid}, both invalid ${tally.bothInvalid}; ` +
				`refused by the node though the oracle decodes them: ${stricter}` +
				(format === 'mp4'
					? `; cases with a byte of coded video flipped (mdat, SPS/PPS/VPS): ${tally.mediaDataFlips}, of which the node accepted and the oracle rejected ${tally.mediaDataMisses} (coded video is not decoded by the node); ` +
						`NAL headers changed so a decoder reads the payload with another syntax or role: ${tally.rereads}, of which the node accepted and the oracle rejected ${tally.rereadMisses}; ` +
						`accepted with timestamp errors only: ${tally.timingOnly}; mutations: ${[...tally.kinds].map(([k, v]) => `${k} ${v}`).join(', ')}`
					: '') +
				'\n',
		);
		if (details.failed) {
			const replay = `FUZZ_SEED=${details.seed} FUZZ_PATH=${details.counterexamplePath} npx jest --selectProjects unit --runTestsByPath test/fuzz/media.test.ts -t '${name}:'`;
			const e = details.errorInstance;
			// (an error of Node's own, e.g. a Buffer's RangeError, is not an instance of this realm's Error)
			const err = e as { message?: string; stack?: string } | undefined;
			const what =
				typeof err?.message === 'string' && err.message.startsWith(`${name}:`)
					? err.message
					: `${JSON.stringify(details.counterexample?.[0])} → ${err?.stack?.split('\n').slice(0, 6).join('\n') ?? String(e)}`;
			const message = `seed: ${details.seed}  path: ${details.counterexamplePath}\nreplay: ${replay}\n${what}`;
			process.stdout.write(`\n${message}\n`);
			throw new Error(message);
		}
	});
});
