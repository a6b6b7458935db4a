/**
 * H.264/H.265 samples in MP4 are NAL units, each after a length field: those lengths must tile every sample exactly
 * (what a decoder checks first), and each unit's header must suit the track's codec and place (NalSampleCheck,
 * codecs.ts: a NAL type of that codec, one picture per sample, a random-access picture first and only at sync
 * samples). Read from the stored file after it was checked whole, a length field and header at a time,
 * through a 64 KiB window, so memory stays constant whatever the file's size. A sample size or a length field that
 * was damaged shows here, and so do samples of another codec than their entry's; damage inside the compressed data
 * past each NAL header does not (the node does not decode video).
 */
import { open } from 'node:fs/promises';
import { NalSampleCheck } from './nalSamples';
import { invalid } from './errors';
import { FIRST, SYNC, type FramedSamples } from './moov';

/** `length` bytes of the file from `position` (fewer at its end). */
export type ReadAt = (position: number, length: number) => Promise<Buffer>;

const WINDOW = 64 * 1024;
/** the longest parameter set read from a sample (a decoder configuration holds at most 65535 bytes per set) */
const MAX_PARAMETER_SET = 0xffff;

/** A ReadAt that serves small reads from a 64 KiB window of `read`. */
function windowed(read: ReadAt): ReadAt {
	let start = 0;
	let bytes: Buffer = Buffer.alloc(0);
	return async (position, length) => {
		if (position < start || position + length > start + bytes.length) {
			start = position;
			bytes = await read(position, Math.max(WINDOW, length));
		}
		return bytes.subarray(position - start, position - start + length);
	};
}

/**
 * Throws InvalidMediaError when the NAL units of a sample do not end exactly where the sample ends, or do not suit its codec.
 * Long: one walk over every sample's length-prefixed units, each unit checked where it is read.
 */
export async function checkNalFraming(samples: FramedSamples, readAt: ReadAt): Promise<void> {
	const read = windowed(readAt);
	const checks = samples.entries.map((e) => new NalSampleCheck(e));
	const numbers = new Map<number, number>();
	for (let i = 0; i < samples.count; i++) {
		const start = samples.starts[i];
		const end = start + samples.sizes[i];
		const entry = samples.entries[samples.entryOf[i]];
		const check = checks[samples.entryOf[i]];
		const n = entry.lengthSize;
		const h = check.headerBytes;
		const track = samples.tracks[i];
		const sample = (samples.flags[i] & FIRST ? 0 : (numbers.get(track) ?? 0)) + 1;
		numbers.set(track, sample);
		check.begin(
			`sample ${sample} of track ${track}`,
			(samples.flags[i] & FIRST) !== 0,
			(samples.flags[i] & SYNC) !== 0,
		);
		let at = start;
		while (at < end) {
			if (at + n > end)
				throw invalid(
					'MP4',
					`sample ${sample} of track ${track} (bytes ${start} to ${end}) ends inside a NAL length field`,
				);
			const field = await read(at, n + h);
			if (field.length < n)
				throw invalid('MP4', `sample ${sample} of track ${track} lies past the end of the file`);
			const length = field.readUIntBE(0, n);
			if (at + n + length > end)
				throw invalid(
					'MP4',
					`a NAL unit of ${length} bytes runs past the end of sample ${sample} of track ${track} (bytes ${start} to ${end}): a damaged sample size or NAL length`,
				);
			if (length < h || field.length < n + h)
				throw invalid(
					'MP4',
					`sample ${sample} of track ${track} holds a NAL unit of ${length} bytes, shorter than its ${h}-byte header`,
				);
			const header = field.subarray(n, n + h);
			const bad = check.unit(header);
			if (bad) throw invalid('MP4', bad);
			if (check.wantsWhole(header)) {
				if (length > MAX_PARAMETER_SET)
					throw invalid(
						'MP4',
						`sample ${sample} of track ${track} holds a parameter set of ${length} bytes (at most ${MAX_PARAMETER_SET})`,
					);
				const whole = await read(at + n, length);
				const unusable =
					whole.length === length
						? check.parameterSet(whole)
						: `sample ${sample} of track ${track} lies past the end of the file`;
				if (unusable) throw invalid('MP4', unusable);
			}
			at += n + length;
		}
		const bad = check.end();
		if (bad) throw invalid('MP4', bad);
	}
}

/** A ReadAt over a file on disk; `close` when done. */
export async function fileReader(
	path: string,
): Promise<{ read: ReadAt; close: () => Promise<void> }> {
	const fh = await open(path, 'r');
	return {
		read: async (position, length) => {
			const buf = Buffer.alloc(length);
			const { bytesRead } = await fh.read(buf, 0, length, position);
			return buf.subarray(0, bytesRead);
		},
		close: () => fh.close(),
	};
}

/** A ReadAt over bytes in memory. */
export const bufferReader =
	(b: Buffer): ReadAt =>
	async (position, length) =>
		b.subarray(position, position + length);
