/**
 * Reads one Image Submit item into a checked request: parameters, expressions, reference binaries and URLs, every
 * rule. Nothing is sent. Reference images are checked now and read again when the request is sent, so a batch never
 * holds every item's images in memory at once.
 */
import type { IExecuteFunctions } from 'n8n-workflow';
import { readInputImage } from '../../shared/binary';
import { REFERENCE_IMAGE } from '../../shared/rules/image';
import { z } from 'zod';
import { SUBMIT_OPTION_FIELDS } from '../../shared/runners/options';
import { FLAG_RULE, numericText, OPTION_RULES } from '../../shared/rules/options';
import { fieldSet } from '../../shared/rules/rule';
import { readModel } from '../../shared/models';
import { addressList, mediaUrlProblem } from '../../shared/rules/mediaUrl';
import { parseOrThrow, readFields } from '../../shared/validate';
import { imageRequestSchema } from './rules';
import { checkModeFits, type ImageMode, type ReferenceImage, type SubmitInput } from './request';

export interface ImageSubmitOptions {
	binaryPropertyName?: string;
	deadlineMinutes?: number;
	submitTimeoutMs?: number;
	syncTimeoutMs?: number;
	waitForResult?: boolean;
	maxConcurrency?: number;
}

/** A reference binary, checked; its bytes are read again by `load` when the request is sent. */
export interface ReferenceSource {
	property: string;
	mimeType: string;
	fileName: string;
	bytes: number;
	load(): Promise<ReferenceImage>;
}

/** The checked request of one item: the submit input without the reference bytes. */
export interface PreparedImage {
	input: Omit<SubmitInput, 'references'>;
	references: ReferenceSource[];
	options: ImageSubmitOptions;
}

export const IMAGE_OPTION_FIELDS = fieldSet('Image Submit options', {
	deadlineMinutes: { label: 'Deadline (Minutes)', rule: OPTION_RULES.minutes },
	syncTimeoutMs: { label: 'Synchronous Timeout (Ms)', rule: OPTION_RULES.milliseconds },
	waitForResult: { label: 'Wait for Result', rule: FLAG_RULE },
	...SUBMIT_OPTION_FIELDS,
});

const FIELD = 'Reference Binary Properties';

async function readReference(
	ctx: IExecuteFunctions,
	i: number,
	property: string,
): Promise<ReferenceImage> {
	const { data, info } = await readInputImage(ctx, i, property, FIELD, REFERENCE_IMAGE);
	return { data, mimeType: info.mimeType, fileName: `${property}.${info.extension}` };
}

async function readReferences(ctx: IExecuteFunctions, i: number): Promise<ReferenceSource[]> {
	const props = String(ctx.getNodeParameter('referenceBinaries', i, '') ?? '')
		.split(',')
		.map((s) => s.trim())
		.filter(Boolean);
	const refs: ReferenceSource[] = [];
	for (const property of props) {
		const checked = await readReference(ctx, i, property);
		refs.push({
			property,
			mimeType: checked.mimeType,
			fileName: checked.fileName,
			bytes: checked.data.length,
			load: () => readReference(ctx, i, property),
		});
	}
	return refs;
}

/** Public http(s) addresses the gateway reads itself: the same checks as video media addresses (spec: public HTTP/HTTPS). */
function readUrls(
	ctx: IExecuteFunctions,
	i: number,
	containsSecret: (text: string) => boolean,
): string[] {
	const urls = addressList(ctx.getNodeParameter('referenceUrls', i, ''));
	const address = z.unknown().superRefine((u, ctx) => {
		const why = mediaUrlProblem(u, { allowHttp: true, containsSecret });
		if (why) ctx.addIssue({ code: z.ZodIssueCode.custom, message: why });
	});
	return parseOrThrow(z.object({ 'Reference Image URLs': z.array(address) }), {
		'Reference Image URLs': urls,
	})['Reference Image URLs'] as string[];
}

/** `containsSecret` tells whether a text holds the credential's key (such an address is never sent). */
export async function prepareImageItem(
	ctx: IExecuteFunctions,
	i: number,
	containsSecret: (text: string) => boolean,
): Promise<PreparedImage> {
	const raw = ctx.getNodeParameter('options', i, {}) as ImageSubmitOptions;
	const options: ImageSubmitOptions = {
		...raw,
		...readFields(IMAGE_OPTION_FIELDS, raw as Record<string, unknown>),
	};
	const operation = ctx.getNodeParameter('operation', i) as 'generate' | 'edit';
	const mode = ctx.getNodeParameter('mode', i) as ImageMode;
	const model = readModel(ctx, i);
	const aspectRatio =
		mode === 'native' ? (ctx.getNodeParameter('aspectRatio', i) as string) : undefined;
	const req = parseOrThrow(imageRequestSchema, {
		model,
		prompt: ctx.getNodeParameter('prompt', i),
		size:
			mode === 'native' ? undefined : (ctx.getNodeParameter('size', i, '') as string) || undefined,
		n: mode === 'native' ? 1 : numericText(ctx.getNodeParameter('n', i, 1)),
		quality:
			mode === 'native'
				? undefined
				: (ctx.getNodeParameter('quality', i, '') as string) || undefined,
		aspectRatio,
	});
	const references = operation === 'edit' ? await readReferences(ctx, i) : [];
	const input: Omit<SubmitInput, 'references'> = {
		operation,
		mode,
		req,
		referenceUrls: operation === 'edit' ? readUrls(ctx, i, containsSecret) : [],
		editEncoding:
			operation === 'edit' && mode !== 'native'
				? (ctx.getNodeParameter('editEncoding', i) as 'multipart' | 'json')
				: 'json',
		aspectRatio: aspectRatio ?? '1:1',
		nativeImageSize:
			mode === 'native' ? (ctx.getNodeParameter('nativeImageSize', i) as '1K' | '2K' | '4K') : '1K',
	};
	// the mode rules need to know how many references there are, not their bytes
	checkModeFits({
		...input,
		references: references.map((r) => ({
			data: Buffer.alloc(0),
			mimeType: r.mimeType,
			fileName: r.fileName,
		})),
	});
	return { input, references, options };
}

/** The request as sent: the references read again (and checked again) now. */
export async function loadSubmitInput(p: PreparedImage): Promise<SubmitInput> {
	const references: ReferenceImage[] = [];
	for (const r of p.references) references.push(await r.load());
	return { ...p.input, references };
}
