/**
 * JPEG: marker segments walked from SOI; a frame header (SOF) before the first scan; every scan (SOS) followed by
 * entropy-coded data; EOI last with nothing after.
 */
import { checkDimensions, invalid, type ImageLimits } from './errors';

const isSof = (m: number) => m >= 0xc0 && m <= 0xcf && m !== 0xc4 && m !== 0xc8 && m !== 0xcc;

export function checkJpeg(b: Buffer, limits: ImageLimits): { width: number; height: number } {
	const fail = (why: string) => invalid('JPEG', why);
	if (b.length < 4 || b[0] !== 0xff || b[1] !== 0xd8) throw fail('no SOI marker');
	let pos = 2;
	let size: { width: number; height: number } | undefined;
	let scans = 0;
	for (;;) {
		if (pos >= b.length)
			throw fail(
				scans
					? 'it ends without an EOI marker (cut short)'
					: 'it ends before any image data: header only',
			);
		if (b[pos] !== 0xff) throw fail(`no marker where one must be (byte ${pos})`);
		while (pos < b.length && b[pos] === 0xff) pos++;
		if (pos >= b.length) throw fail('it ends inside a marker');
		const marker = b[pos++];
		if (marker === 0xd9) {
			if (!scans) throw fail('it ends (EOI) before any scan: header only');
			if (pos !== b.length)
				throw fail(`${b.length - pos} bytes follow its EOI marker (padded or joined file)`);
			return size!;
		}
		if (marker === 0xd8 || marker === 0x00)
			throw fail(
				`an unexpected marker 0xFF${marker.toString(16).padStart(2, '0').toUpperCase()} at byte ${pos - 2}`,
			);
		if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) continue;
		if (pos + 2 > b.length) throw fail('it ends inside a segment header');
		const len = b.readUInt16BE(pos);
		if (len < 2 || pos + len > b.length)
			throw fail(
				`its segment 0xFF${marker.toString(16).toUpperCase()} runs past the end of the file (cut short)`,
			);
		if (isSof(marker)) {
			if (len < 8) throw fail('a frame header that is too short');
			size = { height: b.readUInt16BE(pos + 3), width: b.readUInt16BE(pos + 5) };
			checkDimensions('JPEG', size.width, size.height, limits);
		}
		pos += len;
		if (marker !== 0xda) continue;
		if (!size) throw fail('a scan before the frame header');
		// entropy-coded data runs to the next marker that is neither a stuffed 0xFF00 nor a restart marker
		const start = pos;
		for (;;) {
			const ff = b.indexOf(0xff, pos);
			if (ff === -1 || ff + 1 >= b.length)
				throw fail('it ends inside the image data without an EOI marker (cut short)');
			const next = b[ff + 1];
			if (next === 0x00 || (next >= 0xd0 && next <= 0xd7) || next === 0xff) {
				pos = ff + (next === 0xff ? 1 : 2);
				continue;
			}
			pos = ff;
			break;
		}
		if (pos === start) throw fail('a scan without image data');
		scans++;
	}
}
