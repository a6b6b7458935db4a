/**
 * The vision model's eyes: an image part (a Data URL, or an http(s) address on loopback or on a host the test mapped
 * to a loopback origin, `imageHosts`) read and decoded with a real
 * decoder (sharp, fully decoded), answered with its format and pixel size. Bounded: at most the model's bytes per
 * image (decoded), at most 50 megapixels, 5 s to fetch an address, no redirects.
 */
import sharp from 'sharp';

export interface SeenImage {
	format: 'png' | 'jpeg' | 'webp' | 'gif';
	width: number;
	height: number;
	bytes: number;
}

export type ImageRead = { ok: true; image: SeenImage } | { ok: false; message: string };

const FORMATS = new Set(['png', 'jpeg', 'webp', 'gif']);
const MAX_PIXELS = 50_000_000;
const FETCH_TIMEOUT_MS = 5000;

/** Loopback hosts only: the simulator reads the result host or a test's own server, never the network. */
function isLoopback(hostname: string): boolean {
	const h = hostname.replace(/^\[|\]$/g, '');
	return h === 'localhost' || h === '::1' || /^127(?:\.\d{1,3}){3}$/.test(h);
}

async function fetchBounded(
	url: URL,
	where: string,
	maxBytes: number,
): Promise<Buffer | { message: string }> {
	const controller = new AbortController();
	const timer = setTimeout(() => controller.abort(), FETCH_TIMEOUT_MS);
	try {
		const res = await fetch(url, { redirect: 'error', signal: controller.signal });
		if (!res.ok || !res.body) {
			await res.body?.cancel().catch(() => undefined);
			return {
				message: `The image at ${where} could not be read: ${url.origin} answered HTTP ${res.status}`,
			};
		}
		const parts: Buffer[] = [];
		let total = 0;
		const reader = res.body.getReader();
		for (;;) {
			const { done, value } = await reader.read();
			if (done) return Buffer.concat(parts);
			total += value.length;
			if (total > maxBytes) {
				await reader.cancel().catch(() => undefined);
				return { message: tooLarge(where, `more than ${maxBytes}`, maxBytes) };
			}
			parts.push(Buffer.from(value));
		}
	} catch (err) {
		const reason = controller.signal.aborted
			? `no complete answer within ${FETCH_TIMEOUT_MS} ms`
			: (err as Error).message;
		return { message: `The image at ${where} could not be read from ${url.origin}: ${reason}` };
	} finally {
		clearTimeout(timer);
	}
}

function tooLarge(where: string, size: string, maxBytes: number): string {
	return `The image at ${where} is ${size} bytes; this model accepts images of at most ${maxBytes} bytes (${(maxBytes / 1048576).toFixed(maxBytes % 1048576 ? 2 : 0)} MiB) each`;
}

/** Reads and decodes the image an image part points at. `where` names the part in messages (e.g. `messages[0].content[1]`). */
export async function readImage(
	url: unknown,
	where: string,
	maxBytes: number,
	hosts: ReadonlyMap<string, string> = new Map(),
): Promise<ImageRead> {
	if (typeof url !== 'string' || !url)
		return { ok: false, message: `The image part at ${where} has no image_url` };
	let bytes: Buffer;
	if (url.startsWith('data:')) {
		const m = /^data:([a-z]+\/[a-z0-9.+-]+)?(;[^,]*)?,/i.exec(url.slice(0, 200));
		if (!m || !/;base64$/i.test(m[2] ?? ''))
			return {
				ok: false,
				message: `The image at ${where} is not a Base64 Data URL (data:<mime>;base64,<data>)`,
			};
		const data = url.slice(m[0].length);
		const decodedSize = Math.floor((data.replace(/\s+/g, '').length * 3) / 4);
		if (decodedSize > maxBytes + 2)
			return { ok: false, message: tooLarge(where, String(decodedSize), maxBytes) };
		bytes = Buffer.from(data, 'base64');
		if (bytes.length > maxBytes)
			return { ok: false, message: tooLarge(where, String(bytes.length), maxBytes) };
	} else {
		let parsed: URL;
		try {
			parsed = new URL(url);
		} catch {
			return {
				ok: false,
				message: `The image at ${where} is neither a Data URL nor a valid http(s) address`,
			};
		}
		if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
			return {
				ok: false,
				message: `The image at ${where} must be a Data URL or an http(s) address`,
			};
		const mapped = hosts.get(parsed.hostname);
		if (mapped) parsed = new URL(`${parsed.pathname}${parsed.search}`, mapped);
		if (!isLoopback(parsed.hostname))
			return {
				ok: false,
				message: `The image at ${where} could not be read: the simulator fetches image addresses on loopback only (host ${parsed.hostname})`,
			};
		const fetched = await fetchBounded(parsed, where, maxBytes);
		if (!Buffer.isBuffer(fetched)) return { ok: false, ...fetched };
		bytes = fetched;
	}
	try {
		const meta = await sharp(bytes, { limitInputPixels: MAX_PIXELS }).metadata();
		if (!meta.format || !FORMATS.has(meta.format))
			return {
				ok: false,
				message: `The image at ${where} is ${meta.format ?? 'of an unknown format'}; this model reads PNG, JPEG, WebP and GIF`,
			};
		// a real decode of every pixel: a truncated or corrupt file fails here
		await sharp(bytes, { limitInputPixels: MAX_PIXELS }).raw().toBuffer();
		return {
			ok: true,
			image: {
				format: meta.format as SeenImage['format'],
				width: meta.width!,
				height: meta.height!,
				bytes: bytes.length,
			},
		};
	} catch (err) {
		return {
			ok: false,
			message: `The image at ${where} could not be decoded: ${(err as Error).message}`,
		};
	}
}

/** What the vision model answers about the images it got: `png 64x48` (several: joined with `; `). */
export function describeImages(images: SeenImage[]): string {
	return images.map((i) => `${i.format} ${i.width}x${i.height}`).join('; ');
}
