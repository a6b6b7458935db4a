/** WebP: the RIFF length equals the file, its chunks tile it exactly, and an image chunk with a real bitstream is present. */
import { checkDimensions, invalid, type ImageLimits } from './errors';

export function checkWebp(b: Buffer, limits: ImageLimits): { width: number; height: number } {
	const fail = (why: string) => invalid('WebP', why);
	if (
		b.length < 12 ||
		b.toString('latin1', 0, 4) !== 'RIFF' ||
		b.toString('latin1', 8, 12) !== 'WEBP'
	)
		throw fail('no RIFF/WEBP header');
	const riffEnd = 8 + b.readUInt32LE(4);
	if (riffEnd > b.length)
		throw fail(`its RIFF length says ${riffEnd} bytes, the file has ${b.length} (cut short)`);
	if (riffEnd < b.length)
		throw fail(`${b.length - riffEnd} bytes follow its RIFF data (padded or joined file)`);
	let pos = 12;
	let size: { width: number; height: number } | undefined;
	let canvas: { width: number; height: number } | undefined;
	let frames = 0;
	while (pos < b.length) {
		if (pos + 8 > b.length) throw fail('it ends inside a chunk header');
		const type = b.toString('latin1', pos, pos + 4);
		const len = b.readUInt32LE(pos + 4);
		const data = pos + 8;
		const end = data + len + (len & 1);
		if (end > b.length)
			throw fail(`its ${type.trim()} chunk runs past the end of the file (cut short)`);
		const d = b.subarray(data, data + len);
		if (type === 'VP8 ') {
			if (len < 10 || d[3] !== 0x9d || d[4] !== 0x01 || d[5] !== 0x2a)
				throw fail('a VP8 chunk without a key frame header');
			const partition = (d[0] | (d[1] << 8) | (d[2] << 16)) >>> 5;
			if (10 + partition > len)
				throw fail('its VP8 bitstream is shorter than its first partition (cut short)');
			size ??= { width: d.readUInt16LE(6) & 0x3fff, height: d.readUInt16LE(8) & 0x3fff };
			frames++;
		} else if (type === 'VP8L') {
			if (len < 6 || d[0] !== 0x2f) throw fail('a VP8L chunk without its signature');
			const bits = d.readUInt32LE(1);
			size ??= { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
			frames++;
		} else if (type === 'VP8X') {
			if (pos !== 12 || len < 10) throw fail('a misplaced or short VP8X chunk');
			canvas = { width: d.readUIntLE(4, 3) + 1, height: d.readUIntLE(7, 3) + 1 };
		} else if (type === 'ANMF') {
			if (len < 16 + 8) throw fail('an empty animation frame');
			frames++;
		} else if (pos === 12)
			throw fail(`its first chunk is ${JSON.stringify(type)}, not an image chunk`);
		pos = end;
	}
	if (!frames) throw fail('it holds no image bitstream: header only');
	const dims = canvas ?? size!;
	checkDimensions('WebP', dims.width, dims.height, limits);
	return dims;
}
