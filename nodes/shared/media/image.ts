/**
 * A result image is accepted only when it is a complete, usable file: its format is read from the bytes, and the
 * whole file is walked (structure, checksums where the format has them, image data present, nothing after its end)
 * with sane dimensions.
 */
import { imageSize } from 'image-size';
import { BmffChecker } from './bmff';
import { checkBmp } from './bmp';
import { DEFAULT_IMAGE_LIMITS, InvalidMediaError, checkDimensions, type ImageLimits } from './errors';
import { checkGif } from './gif';
import { checkJpeg } from './jpeg';
import { PNG_SIGNATURE, checkPng } from './png';
import { checkTiff } from './tiff';
import { checkWebp } from './webp';

export interface ValidImage {
	mimeType: string;
	extension: string;
	width: number;
	height: number;
}

const HEIF_BRANDS = new Set(['heic', 'heix', 'heim', 'heis', 'mif1', 'msf1', 'hevc', 'hevx']);

function checkBmffImage(b: Buffer, format: 'AVIF' | 'HEIF', limits: ImageLimits): { width: number; height: number } {
	const checker = new BmffChecker({ format, required: ['ftyp', 'meta', 'mdat'], nonEmpty: ['mdat'], containers: {} });
	checker.push(b);
	checker.end();
	let size: { width?: number; height?: number };
	try {
		size = imageSize(b);
	} catch {
		throw new InvalidMediaError(`not a complete ${format}: its size cannot be read`);
	}
	checkDimensions(format, size.width ?? 0, size.height ?? 0, limits);
	return { width: size.width!, height: size.height! };
}

/** The real format and pixel size of a complete image; throws InvalidMediaError saying what is wrong. */
export function validateImage(b: Buffer, limits: Partial<ImageLimits> = {}): ValidImage {
	const l = { ...DEFAULT_IMAGE_LIMITS, ...limits };
	const as = (mimeType: string, extension: string, dims: { width: number; height: number }): ValidImage => ({ mimeType, extension, ...dims });
	if (!b.length) throw new InvalidMediaError('the file is empty');
	if (b.subarray(0, 8).equals(PNG_SIGNATURE)) return as('image/png', 'png', checkPng(b, l));
	if (b[0] === 0xff && b[1] === 0xd8) return as('image/jpeg', 'jpg', checkJpeg(b, l));
	const head = b.toString('latin1', 0, 12);
	if (head.startsWith('RIFF') && head.slice(8) === 'WEBP') return as('image/webp', 'webp', checkWebp(b, l));
	if (head.startsWith('GIF8')) return as('image/gif', 'gif', checkGif(b, l));
	if (head.startsWith('BM')) return as('image/bmp', 'bmp', checkBmp(b, l));
	if (head.startsWith('II*\0') || head.startsWith('MM\0*')) return as('image/tiff', 'tiff', checkTiff(b, l));
	if (head.slice(4, 8) === 'ftyp') {
		const brand = head.slice(8, 12);
		if (brand === 'avif' || brand === 'avis') return as('image/avif', 'avif', checkBmffImage(b, 'AVIF', l));
		if (HEIF_BRANDS.has(brand)) return as('image/heic', 'heic', checkBmffImage(b, 'HEIF', l));
	}
	const text = b.subarray(0, 64).toString('utf8').trimStart().toLowerCase();
	const looks = text.startsWith('<!doctype') || text.startsWith('<html') ? ', it looks like HTML' : text.startsWith('{') ? ', it looks like JSON' : '';
	throw new InvalidMediaError(`not an image format that can be used (PNG, JPEG, WebP, GIF, BMP, TIFF, AVIF, HEIF)${looks}`);
}
