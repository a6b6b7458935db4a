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

export const model = (value: string) => ({ __rl: true, mode: 'id', value });
