/**
 * Images as the gateway's two text wire formats carry them (OpenAI-style parts): an image's address (a Data URL or an
 * http(s) URL) with its decoded size, and the bounds checked before a request is sent — 20 MiB per image, 48 MiB per
 * request (the gateway answers 413 past its own body cap). Used by the Chat and Responses nodes and the Chat Model.
 */

import { mediaUrlProblem } from '../rules/mediaUrl';
import { checkBase64Image, checkDataUrlImage, VISION_IMAGE } from '../rules/image';

/** Each image at most this many bytes (decoded), all images of one request together at most IMAGES_MAX_BYTES: checked before sending. */
export const IMAGE_MAX_BYTES = VISION_IMAGE.maxBytes;
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

/** Tells whether a text holds the credential's key (any form the redactor knows): such an address is never sent. */
export type ContainsSecret = (text: string) => boolean;

/**
 * An image given as a Data URL or an http(s) address: its wire form. A Data URL goes through the one image check (its
 * bytes: type and size), an address through the one media-address rule; anything else is refused.
 */
export function imageFromUrl(
	url: string,
	containsSecret: ContainsSecret | undefined,
	detail?: string,
): WireImage {
	const u = url.trim();
	const extra = detail ? { detail } : {};
	if (/^data:/i.test(u)) {
		const checked = checkDataUrlImage(u, VISION_IMAGE);
		if (!checked.ok) throw new ImagePartError(`the image given as a Data URL ${checked.problem}`);
		return { url: u, bytes: checked.bytes, ...extra };
	}
	if (!/^https?:/i.test(u))
		throw new ImagePartError(
			`an image must be a Data URL (data:image/…;base64,…) or an http(s) address (got ${JSON.stringify(u.slice(0, 40))})`,
		);
	const problem = mediaUrlProblem(u, { allowHttp: true, containsSecret });
	if (problem) throw new ImagePartError(`the image address ${problem}`);
	return { url: u, bytes: 0, ...extra };
}

/** An image given as bytes or their Base64 text (the agent's file parts): checked by the one image check, as a Data URL. */
export function imageFromData(data: Uint8Array | string, detail?: string): WireImage {
	const b64 = typeof data === 'string' ? data : Buffer.from(data).toString('base64');
	const checked = checkBase64Image(b64, VISION_IMAGE);
	if (!checked.ok) throw new ImagePartError(`the image ${checked.problem}`);
	return {
		url: `data:${checked.info.mimeType};base64,${b64.replace(/\s+/g, '')}`,
		bytes: checked.bytes,
		...(detail ? { detail } : {}),
	};
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
			`the request's images are ${(total / 1048576).toFixed(1)} MiB together; the ` +
				`package sends at most ${IMAGES_MAX_BYTES / 1048576} MiB of images in one request`,
		);
}
