/** MP4 results: the embedded real video grown to any size, produced chunk by chunk. */
import { Readable } from 'node:stream';
import type { Body } from './body';
import { REAL_MP4 } from './real-video';

function box(type: string, payload: Buffer): Buffer {
	const head = Buffer.alloc(8);
	head.writeUInt32BE(8 + payload.length, 0);
	head.write(type, 4, 'latin1');
	return Buffer.concat([head, payload]);
}

export function ftypBox(): Buffer {
	return box(
		'ftyp',
		Buffer.concat([
			Buffer.from('isom', 'latin1'),
			Buffer.from([0, 0, 2, 0]),
			Buffer.from('isomiso2avc1mp41', 'latin1'),
		]),
	);
}

const FILLER = Buffer.alloc(64 * 1024, 0x2a);

/** Where the real video's media data starts: its ftyp, moov and free boxes, then its mdat box. */
function realParts(): { head: Buffer; payload: Buffer } {
	let at = 0;
	while (at + 8 <= REAL_MP4.length) {
		const size = REAL_MP4.readUInt32BE(at);
		if (REAL_MP4.toString('latin1', at + 4, at + 8) === 'mdat')
			return { head: REAL_MP4.subarray(0, at), payload: REAL_MP4.subarray(at + 8, at + size) };
		at += size;
	}
	throw new Error('the embedded video has no mdat box');
}

/**
 * A playable MP4 of `totalBytes` (at least the real video's size), never buffered whole: the real video's boxes, then
 * its mdat grown with unreferenced filler. `durationSec` is what the task asked for; the file itself lasts one frame.
 * Without moov: ftyp and an mdat of filler only (a broken file).
 */
export function mp4Body(totalBytes: number, _durationSec: number, withMoov = true): Body {
	if (!withMoov) {
		const ftyp = ftypBox();
		const mdatSize = Math.max(8, totalBytes - ftyp.length);
		const mdatHead = Buffer.alloc(8);
		mdatHead.writeUInt32BE(mdatSize > 0xffffffff ? 0 : mdatSize, 0);
		mdatHead.write('mdat', 4, 'latin1');
		return {
			length: ftyp.length + mdatSize,
			*chunks() {
				yield Buffer.concat([ftyp, mdatHead]);
				for (let left = mdatSize - 8; left > 0; left -= FILLER.length)
					yield FILLER.subarray(0, Math.min(FILLER.length, left));
			},
		};
	}
	const { head, payload } = realParts();
	const mdatSize = Math.max(8 + payload.length, totalBytes - head.length);
	const mdatHead = Buffer.alloc(8);
	mdatHead.writeUInt32BE(mdatSize > 0xffffffff ? 0 : mdatSize, 0); // 0 = the box runs to the end of the file
	mdatHead.write('mdat', 4, 'latin1');
	return {
		length: head.length + mdatSize,
		*chunks() {
			yield Buffer.concat([head, mdatHead, payload]);
			for (let left = mdatSize - 8 - payload.length; left > 0; left -= FILLER.length)
				yield FILLER.subarray(0, Math.min(FILLER.length, left));
		},
	};
}

/** The same MP4 as a readable stream (tests that feed a client or a validator). */
export function mp4Stream(
	totalBytes: number,
	durationSec: number,
): { stream: Readable; length: number } {
	const body = mp4Body(totalBytes, durationSec);
	return { stream: Readable.from(body.chunks()), length: body.length! };
}
