/**
 * A result image is accepted only when it is a complete, usable file: its format is read from the bytes, the whole
 * file is walked (structure, checksums where the format has them, image data present, nothing after its end) with
 * sane dimensions, and then every pixel is decoded (decode.ts; BMP is checked exactly in bmp.ts). HEIC is refused:
 * it cannot be decoded here.
 */
import { imageSize } from 'image-size';
import { BmffChecker } from './bmff';
import { checkBmp } from './bmp';
import { decodeFully } from './decode';
import {
	DEFAULT_IMAGE_LIMITS,
	InvalidMediaError,
	checkDimensions,
	type ImageLimits,
} from './errors';
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

const NAMES: Record<string, string> = {
	'image/png': 'PNG',
	'image/jpeg': 'JPEG',
	'image/webp': 'WebP',
	'image/gif': 'GIF',
	'image/tiff': 'TIFF',
	'image/avif': 'AVIF',
};

const HEIF_BRANDS = new Set(['heic', 'heix', 'heim', 'heis', 'mif1', 'msf1', 'hevc', 'hevx']);

function checkBmffImage(
	b: Buffer,
	format: 'AVIF',
	limits: ImageLimits,
): { width: number; height: number } {
	const checker = new BmffChecker({
		format,
		required: ['ftyp', 'meta', 'mdat'],
		nonEmpty: ['mdat'],
		containers: {},
	});
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

/** The real format and pixel size of a complete image that decodes to its last pixel; rejects with InvalidMediaError saying what is wrong. */
export async function validateImage(
	b: Buffer,
	limits: Partial<ImageLimits> = {},
): Promise<ValidImage> {
	const l = { ...DEFAULT_IMAGE_LIMITS, ...limits };
	const found = checkStructure(b, l);
	if (found.mimeType !== 'image/bmp') await decodeFully(b, NAMES[found.mimeType], l);
	return found;
}

/** The format and size from the first pass over the bytes (structure, no pixels). */
function checkStructure(b: Buffer, l: ImageLimits): ValidImage {
	const as = (
		mimeType: string,
		extension: string,
		dims: { width: number; height: number },
	): ValidImage => ({ mimeType, extension, ...dims });
	if (!b.length) throw new InvalidMediaError('the file is empty');
	if (b.subarray(0, 8).equals(PNG_SIGNATURE)) return as('image/png', 'png', checkPng(b, l));
	if (b[0] === 0xff && b[1] === 0xd8) return as('image/jpeg', 'jpg', checkJpeg(b, l));
	const head = b.toString('latin1', 0, 12);
	if (head.startsWith('RIFF') && head.slice(8) === 'WEBP')
		return as('image/webp', 'webp', checkWebp(b, l));
	if (head.startsWith('GIF8')) return as('image/gif', 'gif', checkGif(b, l));
	if (head.startsWith('BM')) return as('image/bmp', 'bmp', checkBmp(b, l));
	if (head.startsWith('II*\0') || head.startsWith('MM\0*'))
		return as('image/tiff', 'tiff', checkTiff(b, l));
	if (head.slice(4, 8) === 'ftyp') {
		const brand = head.slice(8, 12);
		const ftypEnd = Math.min(b.length, b.readUInt32BE(0));
		const compatible: string[] = b.toString('latin1', 16, ftypEnd).match(/[\s\S]{4}/g) ?? [];
		if (
			brand === 'avif' ||
			brand === 'avis' ||
			((brand === 'mif1' || brand === 'msf1') &&
				(compatible.includes('avif') || compatible.includes('avis')))
		)
			return as('image/avif', 'avif', checkBmffImage(b, 'AVIF', l));
		if (HEIF_BRANDS.has(brand))
			throw new InvalidMediaError(
				'not a usable HEIF: HEIC images cannot be decoded here to check their pixels (PNG, JPEG, WebP, GIF, TIFF, AVIF, BMP are accepted)',
			);
	}
	const text = b.subarray(0, 64).toString('utf8').trimStart().toLowerCase();
	const looks =
		text.startsWith('<!doctype') || text.startsWith('<html')
			? ', it looks like HTML'
			: text.startsWith('{')
				? ', it looks like JSON'
				: '';
	throw new InvalidMediaError(
		`not an image format that can be used (PNG, JPEG, WebP, GIF, TIFF, AVIF, BMP)${looks}`,
	);
}
