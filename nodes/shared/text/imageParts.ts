/**
 * Images as the gateway's two text wire formats carry them (OpenAI-style parts): an image's address (a Data URL or an
 * http(s) URL) with its decoded size, and the bounds checked before a request is sent — 20 MiB per image, 48 MiB per
 * request (the gateway answers 413 past its own body cap). Used by the Chat and Responses nodes and the Chat Model.
 */

/** Each image at most this many bytes (decoded), all images of one request together at most IMAGES_MAX_BYTES: checked before sending. */
export const IMAGE_MAX_BYTES = 20 * 1024 * 1024;
export const IMAGES_MAX_BYTES = 48 * 1024 * 1024;

/** An image part the package refuses before sending (nothing left). */
export class ImagePartError extends Error {
	constructor(message: string) {
		super(message);
		this.name = 'ImagePartError';
	}
}

/** One image of a message: its address (a Data URL or an http(s) URL), its decoded size when it is a Data URL, an OpenAI `detail`. */
export interface WireImage {
	url: string;
	bytes: number;
	detail?: string;
}

/** Decoded bytes of Base64 text (padding and whitespace aside), without decoding it. */
export function base64Bytes(b64: string): number {
	const clean = b64.replace(/\s+/g, '');
	const pad = clean.endsWith('==') ? 2 : clean.endsWith('=') ? 1 : 0;
	return Math.max(0, Math.floor((clean.length * 3) / 4) - pad);
}

/** An image given as a Data URL or an http(s) address: its wire form; anything else is refused. */
export function imageFromUrl(url: string, detail?: string): WireImage {
	const u = url.trim();
	if (/^data:/i.test(u)) {
		const m = /^data:(image\/[a-z0-9.+-]+);base64,/i.exec(u.slice(0, 200));
		if (!m)
			throw new ImagePartError(
				`an image given as a Data URL must be data:image/<type>;base64,<data> (got ${JSON.stringify(u.slice(0, 40))}…)`,
			);
		return { url: u, bytes: base64Bytes(u.slice(m[0].length)), ...(detail ? { detail } : {}) };
	}
	if (/^https?:\/\//i.test(u)) return { url: u, bytes: 0, ...(detail ? { detail } : {}) };
	throw new ImagePartError(
		`an image must be a Data URL (data:image/…;base64,…) or an http(s) address (got ${JSON.stringify(u.slice(0, 40))})`,
	);
}

/** The size bound of a request's images, checked before anything is sent. */
export function checkImageBounds(images: WireImage[]): void {
	let total = 0;
	for (const [i, img] of images.entries()) {
		if (img.bytes > IMAGE_MAX_BYTES)
			throw new ImagePartError(
				`image ${i + 1} is ${(img.bytes / 1048576).toFixed(1)} MiB; the package sends images of at most ${IMAGE_MAX_BYTES / 1048576} MiB each`,
			);
		total += img.bytes;
	}
	if (total > IMAGES_MAX_BYTES)
		throw new ImagePartError(
			`the request's images are ${(total / 1048576).toFixed(1)} MiB together; the package sends at most ${IMAGES_MAX_BYTES / 1048576} MiB of images in one request`,
		);
}
