import type { IBinaryData, IExecuteFunctions } from 'n8n-workflow';
import { refuse } from './validate';
import { checkImageBytes, type ImageInfo, type ImageKind } from './rules/image';

export const MAX_REFERENCE_IMAGE_BYTES = 25 * 1024 * 1024;

/**
 * Reads an input binary. Binaries that n8n stores on disk or S3 (they carry an `id`) are read as a
 * stream with the size limit enforced while reading; inline ones come from memory.
 */
export async function readInputBinary(
	ctx: IExecuteFunctions,
	itemIndex: number,
	property: string,
	field: string,
	maxBytes = MAX_REFERENCE_IMAGE_BYTES,
): Promise<{ data: Buffer; meta: IBinaryData }> {
	const items = ctx.getInputData();
	const meta = items[itemIndex]?.binary?.[property];
	if (!meta) {
		const have = Object.keys(items[itemIndex]?.binary ?? {});
		refuse([
			{
				field,
				rule: `input item has no binary property "${property}"${have.length ? ` (it has: ${have.join(', ')})` : ' (it has no binary data)'}`,
			},
		]);
	}
	const refuseTooBig = (n: number): never =>
		refuse([
			{
				field,
				rule: `binary "${property}" is ${(n / 1048576).toFixed(1)} MiB; the limit is ${(maxBytes / 1048576).toFixed(0)} MiB per image`,
			},
		]);
	if (meta.id) {
		const stream = await ctx.helpers.getBinaryStream(meta.id);
		const chunks: Buffer[] = [];
		let total = 0;
		for await (const chunk of stream) {
			total += (chunk as Buffer).length;
			if (total > maxBytes) {
				const s = stream as NodeJS.ReadableStream & { destroy?: () => void };
				s.on('error', () => undefined);
				s.destroy?.();
				return refuseTooBig(total);
			}
			chunks.push(chunk as Buffer);
		}
		return { data: Buffer.concat(chunks), meta };
	}
	const data = await ctx.helpers.getBinaryDataBuffer(itemIndex, property);
	if (data.length > maxBytes) return refuseTooBig(data.length);
	return { data, meta };
}

/**
 * Reads an input binary that must be an image of `kind` (the one image check: size bound while reading, type from the
 * bytes): its bytes and format, or refused naming the field.
 */
export async function readInputImage(
	ctx: IExecuteFunctions,
	itemIndex: number,
	property: string,
	field: string,
	kind: ImageKind,
): Promise<{ data: Buffer; meta: IBinaryData; info: ImageInfo }> {
	const { data, meta } = await readInputBinary(ctx, itemIndex, property, field, kind.maxBytes);
	const checked = checkImageBytes(data, kind);
	if (!checked.ok)
		return refuse([
			{
				field,
				rule: `binary "${property}" (${meta.fileName ?? 'no name'}) ${checked.problem}`,
			},
		]);
	return { data, meta, info: checked.info };
}
