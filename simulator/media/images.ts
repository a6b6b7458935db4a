/** Generated result images: PNG/JPEG/WebP gradients encoded with sharp, cached. */
import sharp from 'sharp';

export type ImageFormat = 'png' | 'jpeg' | 'webp';

const MAX_CACHED = 64;
const MAX_CACHED_BYTES = 256 * 1024 * 1024;
/** Encoded images by (size, format, variant); a promise so concurrent requests share one encode. Oldest first. */
const cache = new Map<string, { image: Promise<Buffer>; bytes: number }>();
let encodes = 0;

/** How many images have been encoded so far (the padded-result path must not encode per result). */
export function encodeCount(): number {
	return encodes;
}

/** A gradient image of exactly width × height; `variant` (0–15) picks its colours. Cached, bounded by count and bytes. */
export function baseImage(
	width: number,
	height: number,
	format: ImageFormat,
	variant: number,
): Promise<Buffer> {
	const key = `${width}x${height}.${format}.${variant}`;
	const hit = cache.get(key);
	if (hit) {
		cache.delete(key);
		cache.set(key, hit);
		return hit.image;
	}
	const entry = { image: encode(width, height, format, variant), bytes: 0 };
	cache.set(key, entry);
	entry.image.then(
		(buf) => {
			entry.bytes = buf.length;
			let total = 0;
			for (const e of cache.values()) total += e.bytes;
			for (const [k, e] of cache) {
				if (cache.size <= MAX_CACHED && total <= MAX_CACHED_BYTES) break;
				if (e === entry) continue;
				cache.delete(k);
				total -= e.bytes;
			}
		},
		() => cache.delete(key),
	);
	return entry.image;
}

async function encode(
	width: number,
	height: number,
	format: ImageFormat,
	variant: number,
): Promise<Buffer> {
	encodes++;
	const hue = (variant * 47) % 360;
	const svg = Buffer.from(
		`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="hsl(${hue},70%,55%)"/><stop offset="1" stop-color="hsl(${(hue + 120) % 360},70%,35%)"/></linearGradient></defs><rect width="100%" height="100%" fill="url(#g)"/><circle cx="${width / 2}" cy="${height / 2}" r="${Math.min(width, height) / 4}" fill="rgba(255,255,255,0.35)"/></svg>`,
	);
	let img = sharp(svg);
	img =
		format === 'png'
			? img.png({ compressionLevel: 9, palette: true })
			: format === 'jpeg'
				? img.jpeg({ quality: 70 })
				: img.webp({ quality: 70 });
	return img.toBuffer();
}
