/** GIF: blocks walked from the logical screen to the trailer (0x3B), which ends the file; at least one image with data. */
import { checkDimensions, invalid, type ImageLimits } from './errors';

export function checkGif(b: Buffer, limits: ImageLimits): { width: number; height: number } {
	const fail = (why: string) => invalid('GIF', why);
	const sig = b.toString('latin1', 0, 6);
	if (b.length < 13 || (sig !== 'GIF87a' && sig !== 'GIF89a')) throw fail('no GIF header');
	const width = b.readUInt16LE(6);
	const height = b.readUInt16LE(8);
	checkDimensions('GIF', width, height, limits);
	const table = (packed: number) => (packed & 0x80 ? 3 * 2 ** ((packed & 7) + 1) : 0);
	let pos = 13 + table(b[10]);
	let images = 0;
	/** skips data sub-blocks; returns the data bytes they held */
	const subBlocks = (): number => {
		let bytes = 0;
		for (;;) {
			if (pos >= b.length) throw fail('it ends inside a block (cut short)');
			const n = b[pos++];
			if (n === 0) return bytes;
			pos += n;
			bytes += n;
		}
	};
	for (;;) {
		if (pos >= b.length) throw fail('it ends without its trailer (cut short)');
		const kind = b[pos++];
		if (kind === 0x3b) {
			if (!images) throw fail('it holds no image: header only');
			if (pos !== b.length)
				throw fail(`${b.length - pos} bytes follow its trailer (padded or joined file)`);
			return { width, height };
		}
		if (kind === 0x21) {
			pos++;
			subBlocks();
		} else if (kind === 0x2c) {
			if (pos + 10 > b.length) throw fail('it ends inside an image descriptor');
			pos += 9 + table(b[pos + 8]);
			pos++; // LZW minimum code size
			if (subBlocks() === 0) throw fail('an image without data');
			images++;
		} else throw fail(`an unknown block 0x${kind.toString(16)} at byte ${pos - 1}`);
	}
}
