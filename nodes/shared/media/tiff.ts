/** TIFF: the first image directory and every strip or tile it points to lie inside the file. */
import { checkDimensions, invalid, type ImageLimits } from './errors';

const TYPE_SIZE: Record<number, number> = { 1: 1, 3: 2, 4: 4, 16: 8 };

export function checkTiff(b: Buffer, limits: ImageLimits): { width: number; height: number } {
	const fail = (why: string) => invalid('TIFF', why);
	const le = b.toString('latin1', 0, 2) === 'II';
	if (b.length < 8 || (!le && b.toString('latin1', 0, 2) !== 'MM')) throw fail('no TIFF header');
	const u16 = (o: number) => (le ? b.readUInt16LE(o) : b.readUInt16BE(o));
	const u32 = (o: number) => (le ? b.readUInt32LE(o) : b.readUInt32BE(o));
	if (u16(2) !== 42) throw fail('not a classic TIFF');
	const ifd = u32(4);
	if (ifd < 8 || ifd + 2 > b.length)
		throw fail('its image directory is outside the file (cut short)');
	const count = u16(ifd);
	if (ifd + 2 + count * 12 + 4 > b.length)
		throw fail('its image directory runs past the end of the file (cut short)');
	const tags = new Map<number, number[]>();
	for (let k = 0; k < count; k++) {
		const e = ifd + 2 + k * 12;
		const tag = u16(e);
		const size = TYPE_SIZE[u16(e + 2)];
		const n = u32(e + 4);
		if (!size || n > 1_000_000) continue;
		const at = size * n <= 4 ? e + 8 : u32(e + 8);
		if (at + size * n > b.length)
			throw fail(`its tag ${tag} points past the end of the file (cut short)`);
		const read = (o: number) => (size === 1 ? b[o] : size === 2 ? u16(o) : u32(o));
		tags.set(
			tag,
			Array.from({ length: n }, (_, j) => read(at + j * size)),
		);
	}
	const width = tags.get(256)?.[0] ?? 0;
	const height = tags.get(257)?.[0] ?? 0;
	checkDimensions('TIFF', width, height, limits);
	const offsets = tags.get(273) ?? tags.get(324);
	const counts = tags.get(279) ?? tags.get(325);
	if (!offsets?.length || !counts || counts.length !== offsets.length)
		throw fail('it holds no image data: header only');
	offsets.forEach((o, j) => {
		if (!counts[j] || o + counts[j] > b.length)
			throw fail(`its image data ${j} lies outside the file (cut short)`);
	});
	return { width, height };
}
