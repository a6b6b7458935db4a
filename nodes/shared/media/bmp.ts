/**
 * BMP, checked exactly (libvips cannot read BMP): uncompressed pixels only (BI_RGB, or BI_BITFIELDS at 16/32 bits),
 * whose rows (stride × height) fill the file from the pixel offset to its last byte, with a palette that fits before
 * them and holds every index used. Every byte of such a pixel array is a pixel, so covering it is decoding it.
 * Run-length, JPEG or PNG compressed BMPs are refused: they are not decoded here.
 */
import { checkDimensions, invalid, type ImageLimits } from './errors';

const HEADERS = [12, 40, 52, 56, 108, 124];

export function checkBmp(b: Buffer, limits: ImageLimits): { width: number; height: number } {
	const fail = (why: string) => invalid('BMP', why);
	if (b.length < 26 || b.toString('latin1', 0, 2) !== 'BM') throw fail('no BMP header');
	const declared = b.readUInt32LE(2);
	if (declared !== b.length)
		throw fail(
			`its size field says ${declared} bytes, the file has ${b.length}${declared > b.length ? ' (cut short)' : ' (padded)'}`,
		);
	const offset = b.readUInt32LE(10);
	const dib = b.readUInt32LE(14);
	if (!HEADERS.includes(dib) || 14 + dib > b.length) throw fail('an unknown or cut header');
	const core = dib === 12;
	const width = core ? b.readUInt16LE(18) : b.readInt32LE(18);
	const height = Math.abs(core ? b.readInt16LE(20) : b.readInt32LE(22));
	const planes = b.readUInt16LE(core ? 22 : 26);
	const bpp = b.readUInt16LE(core ? 24 : 28);
	const compression = core ? 0 : b.readUInt32LE(30);
	checkDimensions('BMP', width, height, limits);
	if (planes !== 1) throw fail(`${planes} colour planes`);
	if (![1, 4, 8, 16, 24, 32].includes(bpp)) throw fail(`${bpp} bits per pixel`);
	const bitfields = compression === 3 || compression === 6;
	if (compression !== 0 && !(bitfields && (bpp === 16 || bpp === 32)))
		throw fail(
			`compression ${compression} at ${bpp} bits per pixel is not decoded here (only uncompressed BMP is accepted)`,
		);
	let tables = 14 + dib;
	if (bitfields) {
		const masks = compression === 6 ? 4 : 3;
		if (dib === 40) tables += masks * 4;
		if (tables > b.length) throw fail('its colour masks are cut');
		for (let k = 0; k < 3; k++)
			if (b.readUInt32LE(14 + 40 + k * 4) === 0) throw fail('an empty colour mask');
	}
	let colours = 0;
	if (bpp <= 8) {
		const used = core ? 0 : b.readUInt32LE(46);
		if (used > 2 ** bpp) throw fail(`a palette of ${used} colours at ${bpp} bits per pixel`);
		colours = used || 2 ** bpp;
		tables += colours * (core ? 3 : 4);
	}
	if (offset < tables)
		throw fail(
			`its pixel data starts at byte ${offset}, inside its headers or palette (which end at byte ${tables})`,
		);
	const row = Math.floor((bpp * width + 31) / 32) * 4;
	const pixels = row * height;
	if (offset + pixels > b.length)
		throw fail(
			`its pixel data needs ${pixels} bytes from byte ${offset}; the file ends before (cut short)`,
		);
	if (offset + pixels < b.length)
		throw fail(`${b.length - offset - pixels} bytes follow its pixel data (padded or joined file)`);
	if (bpp <= 8 && colours < 2 ** bpp)
		checkIndexes(b, offset, row, width, height, bpp, colours, fail);
	return { width, height };
}

/** Every palette index of every row is below the palette's size. */
function checkIndexes(
	b: Buffer,
	offset: number,
	row: number,
	width: number,
	height: number,
	bpp: number,
	colours: number,
	fail: (why: string) => Error,
): void {
	const perByte = 8 / bpp;
	const mask = (1 << bpp) - 1;
	for (let y = 0; y < height; y++) {
		const start = offset + y * row;
		for (let x = 0; x < width; x++) {
			const byte = b[start + Math.floor(x / perByte)];
			const index = (byte >> (8 - bpp * ((x % perByte) + 1))) & mask;
			if (index >= colours)
				throw fail(`pixel ${x},${y} uses colour ${index} of a ${colours}-colour palette`);
		}
	}
}
