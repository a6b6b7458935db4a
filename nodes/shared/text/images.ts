/**
 * Images for the Chat and Responses nodes: binary properties of the input item (read with the size bound while
 * reading, their format from the bytes) and addresses (http(s) URLs, which the gateway fetches, or Data URLs), added
 * to the last user message as OpenAI-style parts: `image_url` (chat) or `input_image` (responses). The bound is the
 * Chat Model's: 20 MiB per image, 48 MiB per request (the gateway answers 413 past its own body cap).
 */
import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { readInputBinary, sniffImage } from '../binary';
import {
	checkImageBounds,
	IMAGE_MAX_BYTES,
	ImagePartError,
	imageFromUrl,
	type WireImage,
} from './imageParts';
import { refuse } from '../validate';

export function imageOptions(): INodeProperties[] {
	return [
		{
			displayName: 'Image Binary Properties',
			name: 'imageBinaries',
			type: 'string',
			default: 'data',
			description: `Binary properties of the input item whose images go with the last user message (comma-separated; data is where n8n's file nodes put a file, empty sends none). PNG, JPEG, WebP or GIF, at most ${IMAGE_MAX_BYTES / 1048576} MiB each; sent as Data URLs. Needs a vision model.`,
		},
		{
			displayName: 'Image URLs',
			name: 'imageUrls',
			type: 'string',
			default: '',
			placeholder: 'e.g. https://example.com/cat.png',
			description:
				'Images by address (http(s), fetched by the gateway, or Data URLs), one per line or comma-separated, sent with the last user message after the binary ones',
		},
	];
}

const list = (v: unknown): string[] =>
	typeof v === 'string'
		? v
				.split(/[\n,]/)
				.map((s) => s.trim())
				.filter(Boolean)
		: Array.isArray(v)
			? v.filter((s): s is string => typeof s === 'string' && !!s.trim()).map((s) => s.trim())
			: [];

/** The images item `i` asks for, in order (binary properties first), bounded; refused before any request when one breaks a rule. */
export async function itemImages(ctx: IExecuteFunctions, i: number): Promise<WireImage[]> {
	const o = ctx.getNodeParameter('options', i, {}) as {
		imageBinaries?: unknown;
		imageUrls?: unknown;
	};
	const images: WireImage[] = [];
	for (const prop of list(o.imageBinaries)) {
		const { data } = await readInputBinary(
			ctx,
			i,
			prop,
			'Image Binary Properties',
			IMAGE_MAX_BYTES,
		);
		const info = sniffImage(data);
		if (!info || !['image/png', 'image/jpeg', 'image/webp', 'image/gif'].includes(info.mimeType)) {
			refuse([
				{
					field: 'Image Binary Properties',
					rule: `binary "${prop}" is ${info ? info.mimeType : 'not an image the package can read'}: give a PNG, JPEG, WebP or GIF`,
				},
			]);
		}
		images.push({
			url: `data:${info.mimeType};base64,${data.toString('base64')}`,
			bytes: data.length,
		});
	}
	for (const url of list(o.imageUrls)) {
		try {
			images.push(imageFromUrl(url));
		} catch (err) {
			refuse([{ field: 'Image URLs', rule: (err as Error).message }]);
		}
	}
	try {
		checkImageBounds(images);
	} catch (err) {
		if (err instanceof ImagePartError) refuse([{ field: 'Images', rule: err.message }]);
		throw err;
	}
	return images;
}

type Json = Record<string, unknown>;

/** A message's content as a list of parts: text becomes one text part of `textType` (none when empty), a list stays. */
export function contentParts(content: unknown, textType: 'text' | 'input_text'): unknown[] {
	if (typeof content === 'string') return content ? [{ type: textType, text: content }] : [];
	return Array.isArray(content) ? content : [];
}

/** Chat messages with the images added to the last user message (a new user message when there is none). */
export function withChatImages(messages: unknown[], images: WireImage[]): unknown[] {
	if (!images.length) return messages;
	const parts = images.map((img) => ({ type: 'image_url', image_url: { url: img.url } }));
	const out = [...messages];
	const at = out.map((m) => (m as Json | undefined)?.role).lastIndexOf('user');
	if (at < 0) return [...out, { role: 'user', content: parts }];
	const m = out[at] as Json;
	const content = contentParts(m.content, 'text');
	out[at] = { ...m, content: [...content, ...parts] };
	return out;
}

/** Responses input with the images added to the last user item (text input becomes one user item with an input_text part). */
export function withResponsesImages(input: unknown, images: WireImage[]): unknown {
	if (!images.length) return input;
	const parts = images.map((img) => ({ type: 'input_image', image_url: img.url }));
	if (typeof input === 'string')
		return [
			{
				role: 'user',
				content: [...(input.trim() ? [{ type: 'input_text', text: input }] : []), ...parts],
			},
		];
	const items = Array.isArray(input) ? [...input] : [];
	const at = items.map((m) => (m as Json | undefined)?.role).lastIndexOf('user');
	if (at < 0) return [...items, { role: 'user', content: parts }];
	const m = items[at] as Json;
	const content = contentParts(m.content, 'input_text');
	items[at] = { ...m, content: [...content, ...parts] };
	return items;
}
