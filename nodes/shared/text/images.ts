/**
 * Images for the Chat and Responses nodes: binary properties of the input item (read with the size bound while
 * reading, their format from the bytes) and addresses (http(s) URLs, which the gateway fetches, or Data URLs), added
 * to the last user message as OpenAI-style parts: `image_url` (chat) or `input_image` (responses). The bound is the
 * Chat Model's: 20 MiB per image, 48 MiB per request (the gateway answers 413 past its own body cap).
 */
import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { readInputImage } from '../binary';
import type { RuleViolation } from '../errors';
import { VISION_IMAGE } from '../rules/image';
import { addressList } from '../rules/mediaUrl';
import {
	checkImageBounds,
	IMAGE_MAX_BYTES,
	ImagePartError,
	imageFromUrl,
	type ContainsSecret,
	type WireImage,
} from './imageParts';
import { refuse } from '../validate';

const BINARIES = 'Image Binary Properties';
const URLS = 'Image URLs';

export function imageOptions(): INodeProperties[] {
	return [
		{
			displayName: 'Image Binary Properties',
			name: 'imageBinaries',
			type: 'string',
			default: 'data',
			description:
				`Binary properties of the input item whose images go with the last user message ` +
				`(comma-separated; data is where n8n's file nodes put a file, empty sends none). ` +
				`PNG, JPEG, WebP or GIF, at most ${IMAGE_MAX_BYTES / 1048576} MiB each; sent as ` +
				`Data URLs. Needs a vision model.`,
		},
		{
			displayName: 'Image URLs',
			name: 'imageUrls',
			type: 'string',
			default: '',
			placeholder: 'e.g. https://example.com/cat.png',
			description:
				'Images by address, one per line (a comma is part of an address): public ' +
				'http(s) addresses the gateway fetches, or Data URLs (PNG, JPEG, WebP or GIF by ' +
				'their bytes). Sent with the last user message after the binary ones. Private ' +
				'hosts, user:password@ and addresses carrying a key or token are refused before anything is sent.',
		},
	];
}

const names = (v: unknown): string[] =>
	typeof v === 'string'
		? v
				.split(',')
				.map((s) => s.trim())
				.filter(Boolean)
		: Array.isArray(v)
			? v.filter((s): s is string => typeof s === 'string' && !!s.trim()).map((s) => s.trim())
			: [];

type Body = Record<string, unknown>;

/**
 * Item `i`'s request body with its images: checked now with them — every rule, before any request of the batch — and
 * their bytes then dropped; `body()` reads the images again (and checks them again) when the item's request is built,
 * as Image Submit reads its references. A batch so holds the images of the item in flight only (Chat and Responses
 * send one item at a time), never every item's. `asSent` makes the checked body with the images added.
 */
export async function withItemImages(
	ctx: IExecuteFunctions,
	i: number,
	containsSecret: ContainsSecret,
	asSent: (images: WireImage[]) => Body,
): Promise<{ body(): Promise<Body> }> {
	const first = await itemImages(ctx, i, containsSecret);
	if (!first.length) return ready(asSent(first));
	// checked with its images, then dropped (no closure here holds the first reading or its body)
	asSent(first);
	return { body: async () => asSent(await itemImages(ctx, i, containsSecret)) };
}

/** A body without images, kept as checked. */
function ready(body: Body): { body(): Promise<Body> } {
	return { body: async () => body };
}

/**
 * The images item `i` asks for, in order (binary properties first), bounded; refused before any request when one
 * breaks a rule: each binary and each Data URL through the one image check (type by its bytes, size), each address
 * through the one media-address rule (`containsSecret`: the credential's key in any form). One address per line.
 */
async function itemImages(
	ctx: IExecuteFunctions,
	i: number,
	containsSecret: ContainsSecret,
): Promise<WireImage[]> {
	const o = ctx.getNodeParameter('options', i, {}) as {
		imageBinaries?: unknown;
		imageUrls?: unknown;
	};
	const images: WireImage[] = [];
	for (const prop of names(o.imageBinaries)) {
		const { data, info } = await readInputImage(ctx, i, prop, BINARIES, VISION_IMAGE);
		images.push({
			url: `data:${info.mimeType};base64,${data.toString('base64')}`,
			bytes: data.length,
		});
	}
	const problems: RuleViolation[] = [];
	for (const [n, url] of addressList(o.imageUrls).entries()) {
		try {
			images.push(imageFromUrl(typeof url === 'string' ? url : String(url), containsSecret));
		} catch (err) {
			if (!(err instanceof ImagePartError)) throw err;
			problems.push({ field: `${URLS}[${n}]`, rule: err.message });
		}
	}
	if (problems.length) refuse(problems);
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
