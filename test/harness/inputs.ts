import sharp from 'sharp';

/** A real image of the given format and size, made for edit inputs. */
export async function makeImageBytes(
	format: 'png' | 'jpeg' | 'webp',
	width = 64,
	height = 48,
): Promise<Buffer> {
	const img = sharp({
		create: { width, height, channels: 3, background: { r: 200, g: 80, b: 40 } },
	});
	return format === 'png'
		? img.png().toBuffer()
		: format === 'jpeg'
			? img.jpeg().toBuffer()
			: img.webp().toBuffer();
}

/**
 * A 24-bit uncompressed BMP (BITMAPINFOHEADER, bottom-up rows padded to 4 bytes), built by hand: sharp cannot write BMP.
 * `pixels`: one grey (`flat`) or random-looking bytes (`noise`, for decoders that must see real pixel data).
 */
export function bmp(width: number, height: number, pixels: 'flat' | 'noise' = 'flat'): Buffer {
	const row = Math.floor((24 * width + 31) / 32) * 4;
	const b = Buffer.alloc(54 + row * height);
	for (let i = 54; i < b.length; i++) b[i] = pixels === 'flat' ? 0x80 : (i * 2654435761) >>> 24;
	b.write('BM', 0, 'latin1');
	b.writeUInt32LE(b.length, 2);
	b.writeUInt32LE(54, 10);
	b.writeUInt32LE(40, 14);
	b.writeInt32LE(width, 18);
	b.writeInt32LE(height, 22);
	b.writeUInt16LE(1, 26);
	b.writeUInt16LE(24, 28);
	b.writeUInt32LE(row * height, 34);
	return b;
}

export const model = (value: string) => ({ __rl: true, mode: 'id', value });
