/**
 * H.264/H.265 samples in MP4 are NAL units, each after a length field: those lengths must tile every sample exactly
 * (what a decoder checks first). Read from the stored file after it was checked whole, a length field at a time,
 * through a 64 KiB window, so memory stays constant whatever the file's size. A sample size or a length field that
 * was damaged shows here; damage inside the compressed data does not (the node does not decode video).
 */
import { open } from 'node:fs/promises';
import { invalid } from './errors';
import type { FramedSamples } from './moov';

/** `length` bytes of the file from `position` (fewer at its end). */
export type ReadAt = (position: number, length: number) => Promise<Buffer>;

const WINDOW = 64 * 1024;

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

/** Throws InvalidMediaError when the NAL units of a sample do not end exactly where the sample ends. */
export async function checkNalFraming(samples: FramedSamples, readAt: ReadAt): Promise<void> {
	const read = windowed(readAt);
	for (let i = 0; i < samples.count; i++) {
		const start = samples.starts[i];
		const end = start + samples.sizes[i];
		const n = samples.lengthSizes[i];
		let at = start;
		while (at < end) {
			if (at + n > end) throw invalid('MP4', `sample ${i + 1} of track ${samples.tracks[i]} (bytes ${start} to ${end}) ends inside a NAL length field`);
			const field = await read(at, n);
			if (field.length < n) throw invalid('MP4', `sample ${i + 1} of track ${samples.tracks[i]} lies past the end of the file`);
			const length = field.readUIntBE(0, n);
			at += n + length;
			if (at > end) throw invalid('MP4', `a NAL unit of ${length} bytes runs past the end of sample ${i + 1} of track ${samples.tracks[i]} (bytes ${start} to ${end}): a damaged sample size or NAL length`);
		}
	}
}

/** A ReadAt over a file on disk; `close` when done. */
export async function fileReader(path: string): Promise<{ read: ReadAt; close: () => Promise<void> }> {
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
