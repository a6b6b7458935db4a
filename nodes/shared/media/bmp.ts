/** BMP: the size field equals the file; the pixel array (uncompressed) fits inside it from its offset. */
import { checkDimensions, invalid, type ImageLimits } from './errors';

export function checkBmp(b: Buffer, limits: ImageLimits): { width: number; height: number } {
	const fail = (why: string) => invalid('BMP', why);
	if (b.length < 26 || b.toString('latin1', 0, 2) !== 'BM') throw fail('no BMP header');
	const declared = b.readUInt32LE(2);
	if (declared !== b.length) throw fail(`its size field says ${declared} bytes, the file has ${b.length}${declared > b.length ? ' (cut short)' : ' (padded)'}`);
	const offset = b.readUInt32LE(10);
	const dib = b.readUInt32LE(14);
	if (![12, 40, 52, 56, 64, 108, 124].includes(dib) || 14 + dib > b.length) throw fail('an unknown or cut header');
	const core = dib === 12;
	const width = core ? b.readUInt16LE(18) : b.readInt32LE(18);
	const height = Math.abs(core ? b.readInt16LE(20) : b.readInt32LE(22));
	const bpp = b.readUInt16LE(core ? 24 : 28);
	const compression = core ? 0 : b.readUInt32LE(30);
	checkDimensions('BMP', width, height, limits);
	if (![1, 4, 8, 16, 24, 32].includes(bpp)) throw fail(`${bpp} bits per pixel`);
	if (offset < 14 + dib || offset >= b.length) throw fail('its pixel data offset is outside the file');
	if (compression === 0 || compression === 3 || compression === 6) {
		const row = Math.floor((bpp * width + 31) / 32) * 4;
		if (offset + row * height > b.length) throw fail(`its pixel data needs ${row * height} bytes from byte ${offset}; the file ends before (cut short)`);
	}
	return { width, height };
}
