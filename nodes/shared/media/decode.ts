/**
 * The pixel check of an image result: libvips (through sharp) decodes every frame to its last pixel, and any error
 * or warning (truncation, a missing table the decoder would guess) refuses the file. The pixel size is read from the
 * header and held to the caps before a single pixel is decoded; decoding is bounded in time and in how many run at
 * once. Its output is one byte per pixel (the first channel; at most `maxPixels` bytes, 100 MB at the default cap),
 * because a pipeline that shrinks the image lets the JPEG loader skip its warnings (the media fuzzer found a corrupt
 * Huffman code passing that way).
 */
import type sharpType from 'sharp';
import { Limit } from '../limit';
import { invalid, type ImageLimits } from './errors';

/** decodes at once in this process (libvips uses several threads for each) */
export const DECODE_CONCURRENCY = 2;
/** one image's decode ends after this */
export const DECODE_TIMEOUT_SECONDS = 60;

const decodes = new Limit(DECODE_CONCURRENCY);
let loaded: typeof sharpType | undefined;

function sharp(): typeof sharpType {
	// loaded on first use, so that a platform without libvips fails image results, not the whole package
	loaded ??= require('sharp') as typeof sharpType;
	return loaded;
}

const reason = (err: unknown) =>
	String((err as Error)?.message ?? err)
		.split('\n')[0]
		.slice(0, 200);

/** Decodes the whole image (every frame) or throws InvalidMediaError; `format` names it in messages. */
export async function decodeFully(b: Buffer, format: string, limits: ImageLimits): Promise<void> {
	let lib: typeof sharpType;
	try {
		lib = sharp();
	} catch (err) {
		throw invalid(
			format,
			`it cannot be decoded on this machine (the image library did not load: ${reason(err)})`,
		);
	}
	await decodes.run(async () => {
		let meta: sharpType.Metadata;
		try {
			meta = await lib(b, { failOn: 'error', animated: true, limitInputPixels: false }).metadata();
		} catch (err) {
			throw invalid(format, `its header cannot be read (${reason(err)})`);
		}
		const width = meta.width ?? 0;
		const frameHeight = meta.pageHeight ?? meta.height ?? 0;
		const frames = meta.pages ?? 1;
		if (width < 1 || frameHeight < 1)
			throw invalid(format, `its size ${width}x${frameHeight} is not a picture`);
		if (
			width > limits.maxSide ||
			frameHeight > limits.maxSide ||
			width * frameHeight * frames > limits.maxPixels
		) {
			throw invalid(
				format,
				`its ${frames > 1 ? `${frames} frames of ` : ''}${width}x${frameHeight} pixels ` +
					`are beyond any generated image (at most ${limits.maxSide} px a side, ` +
					`${limits.maxPixels / 1e6} megapixels in all)`,
			);
		}
		try {
			await lib(b, {
				failOn: 'warning',
				animated: true,
				limitInputPixels: limits.maxPixels,
				sequentialRead: true,
			})
				.extractChannel(0)
				.timeout({ seconds: DECODE_TIMEOUT_SECONDS })
				.raw({ depth: 'uchar' })
				.toBuffer();
		} catch (err) {
			throw invalid(format, `its pixels do not decode to the end (${reason(err)})`);
		}
	});
}
