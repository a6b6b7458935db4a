/**
 * The one image check for every image the package is given inline (a binary property or a Data URL), whatever the
 * node: the size bound first (from the length, before decoding), then the type read from the bytes (never from a name
 * or a declared MIME type). A text file, an SVG or broken Base64 is refused the same way on every path.
 */
import { imageSize } from 'image-size';

const IMAGE_MIME: Record<string, { mime: string; ext: string }> = {
	png: { mime: 'image/png', ext: 'png' },
	jpg: { mime: 'image/jpeg', ext: 'jpg' },
	webp: { mime: 'image/webp', ext: 'webp' },
	bmp: { mime: 'image/bmp', ext: 'bmp' },
	gif: { mime: 'image/gif', ext: 'gif' },
	tiff: { mime: 'image/tiff', ext: 'tiff' },
	heif: { mime: 'image/heic', ext: 'heic' },
	avif: { mime: 'image/avif', ext: 'avif' },
};

export interface ImageInfo {
	mimeType: string;
	extension: string;
	width: number;
	height: number;
}

/** Format and real pixel size read from the bytes (magic numbers and headers), never from a name. */
function sniffImage(buf: Uint8Array): ImageInfo | undefined {
	if (!buf.length) return undefined;
	try {
		const r = imageSize(buf);
		const t = r.type && IMAGE_MIME[r.type];
		if (!t || !r.width || !r.height) return undefined;
		return { mimeType: t.mime, extension: t.ext, width: r.width, height: r.height };
	} catch {
		return undefined;
	}
}

/** What one kind of input takes: the image types (by their bytes; none = any image the package reads) and the size bound. */
export interface ImageKind {
	types?: readonly string[];
	/** how a refusal names the types */
	names: string;
	maxBytes: number;
}

const MiB = 1024 * 1024;

/** Images for a vision model (Chat, Responses, the Chat Model): 20 MiB each. */
export const VISION_IMAGE: ImageKind = {
	types: ['image/png', 'image/jpeg', 'image/webp', 'image/gif'],
	names: 'a PNG, JPEG, WebP or GIF image',
	maxBytes: 20 * MiB,
};
/** Image Submit's reference images: 25 MiB each. */
export const REFERENCE_IMAGE: ImageKind = {
	types: ['image/png', 'image/jpeg', 'image/webp', 'image/bmp'],
	names: 'a PNG, JPEG, WebP or BMP image',
	maxBytes: 25 * MiB,
};
/** Video Create's input reference: any image the package reads, 25 MiB. */
export const ANY_IMAGE: ImageKind = { names: 'an image the package can read', maxBytes: 25 * MiB };

const mib = (n: number) => (n / MiB).toFixed(1);

/** Why `bytes` decoded bytes break the bound, or undefined. */
export function imageSizeProblem(bytes: number, kind: ImageKind): string | undefined {
	return bytes > kind.maxBytes
		? `is ${mib(bytes)} MiB; the limit is ${(kind.maxBytes / MiB).toFixed(0)} MiB per image`
		: undefined;
}

/** An image that passed the check (its format from the bytes, its decoded size), or why it is refused. */
export type CheckedImage =
	{ ok: true; info: ImageInfo; bytes: number } | { ok: false; problem: string };

/** The image's format and size from its bytes, or why it is refused. */
export function checkImageBytes(data: Uint8Array, kind: ImageKind): CheckedImage {
	const big = imageSizeProblem(data.length, kind);
	if (big) return { ok: false, problem: big };
	const info = sniffImage(data);
	if (!info || (kind.types && !kind.types.includes(info.mimeType)))
		return {
			ok: false,
			problem: `is not ${kind.names} (checked from its bytes${info ? `: ${info.mimeType}` : ''})`,
		};
	return { ok: true, info, bytes: data.length };
}

const DATA_URL = /^data:([^;,]*)((?:;[^;,]*)*),/i;

/** Decoded bytes of Base64 text (padding and whitespace aside), without decoding it. */
export function base64Bytes(b64: string): number {
	const clean = b64.replace(/\s+/g, '');
	const pad = clean.endsWith('==') ? 2 : clean.endsWith('=') ? 1 : 0;
	return Math.max(0, Math.floor((clean.length * 3) / 4) - pad);
}

/** Base64 bytes of an image (a Data URL's data, or a part's Base64 text), checked: the image, or why not. */
export function checkBase64Image(b64: string, kind: ImageKind): CheckedImage {
	const big = imageSizeProblem(base64Bytes(b64), kind);
	if (big) return { ok: false, problem: big };
	const clean = b64.replace(/\s+/g, '');
	if (!clean || clean.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(clean))
		return { ok: false, problem: 'is not valid Base64 (A–Z, a–z, 0–9, +, / and = padding)' };
	return checkImageBytes(Buffer.from(clean, 'base64'), kind);
}

/** A Data URL typed in or handed over: `data:image/<type>;base64,<data>` whose bytes are an image of `kind`, or why not. */
export function checkDataUrlImage(text: string, kind: ImageKind): CheckedImage {
	const m = DATA_URL.exec(text.slice(0, 300));
	if (!m || !/;base64$/i.test(m[2]))
		return {
			ok: false,
			problem: `must be data:image/<type>;base64,<data> (got ${JSON.stringify(text.slice(0, 40))}…)`,
		};
	return checkBase64Image(text.slice(m[0].length), kind);
}
