/** PNG: every chunk walked with its CRC, IHDR first, IDAT present and consecutive, IEND last with nothing after. */
import { crc32 } from 'node:zlib';
import { checkDimensions, invalid, type ImageLimits } from './errors';

export const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };
const DEPTHS: Record<number, number[]> = {
	0: [1, 2, 4, 8, 16],
	2: [8, 16],
	3: [1, 2, 4, 8],
	4: [8, 16],
	6: [8, 16],
};
/** deflate cannot compress better than about 1032:1: fewer IDAT bytes than this share of the pixels cannot hold them */
const MAX_DEFLATE_RATIO = 1100;

/**
 * Checks a whole PNG: signature, IHDR, every chunk's CRC, the chunks' order, and whether IDAT's bytes can hold the pixels.
 * Long: one walk over the chunks in the order PNG (ISO/IEC 15948) defines, each checked where it is read.
 */
export function checkPng(b: Buffer, limits: ImageLimits): { width: number; height: number } {
	const fail = (why: string) => invalid('PNG', why);
	if (b.length < PNG_SIGNATURE.length || !b.subarray(0, 8).equals(PNG_SIGNATURE))
		throw fail('no PNG signature');
	let pos = 8;
	let width = 0;
	let height = 0;
	let colorType = -1;
	let depth = 0;
	let idatBytes = 0;
	let idatRun: 'none' | 'open' | 'closed' = 'none';
	let sawPlte = false;
	for (let index = 0; ; index++) {
		if (pos + 12 > b.length)
			throw fail(
				pos === b.length
					? 'it ends without an IEND chunk (cut short)'
					: `it ends inside a chunk header at byte ${pos}`,
			);
		const len = b.readUInt32BE(pos);
		const type = b.toString('latin1', pos + 4, pos + 8);
		if (len > 0x7fffffff || !/^[A-Za-z]{4}$/.test(type))
			throw fail(`a broken chunk header at byte ${pos}`);
		const end = pos + 12 + len;
		if (end > b.length)
			throw fail(
				`its ${type} chunk ends ${end - b.length} bytes past the end of the file (cut short)`,
			);
		if (crc32(b.subarray(pos + 4, pos + 8 + len)) !== b.readUInt32BE(pos + 8 + len))
			throw fail(`the CRC of its ${type} chunk at byte ${pos} is wrong (damaged data)`);
		const data = b.subarray(pos + 8, pos + 8 + len);
		if (index === 0) {
			if (type !== 'IHDR' || len !== 13) throw fail('the first chunk is not IHDR');
			width = data.readUInt32BE(0);
			height = data.readUInt32BE(4);
			depth = data[8];
			colorType = data[9];
			if (!DEPTHS[colorType]?.includes(depth) || data[10] !== 0 || data[11] !== 0 || data[12] > 1)
				throw fail('its IHDR holds an impossible pixel format');
			checkDimensions('PNG', width, height, limits);
		} else if (type === 'IHDR') throw fail('a second IHDR chunk');
		if (type === 'PLTE') sawPlte = true;
		if (type === 'IDAT') {
			if (idatRun === 'closed') throw fail('its IDAT chunks are not consecutive');
			idatRun = 'open';
			idatBytes += len;
		} else if (idatRun === 'open') idatRun = 'closed';
		pos = end;
		if (type === 'IEND') {
			if (len !== 0) throw fail('its IEND chunk is not empty');
			if (pos !== b.length)
				throw fail(`${b.length - pos} bytes follow its IEND chunk (padded or joined file)`);
			break;
		}
	}
	if (colorType === 3 && !sawPlte) throw fail('a palette image without a PLTE chunk');
	if (idatBytes === 0) throw fail('it holds no image data (no IDAT bytes): header only');
	const rowBytes = Math.ceil((width * CHANNELS[colorType] * depth) / 8) + 1;
	if (idatBytes * MAX_DEFLATE_RATIO < rowBytes * height)
		throw fail(`${idatBytes} bytes of image data cannot hold ${width}x${height} pixels`);
	return { width, height };
}
