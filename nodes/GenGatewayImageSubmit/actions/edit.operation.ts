/**
 * Edit (image to image): its entry in the Operation list, its own parameters (the reference images and how they are
 * uploaded, shown under Edit only), how one item's references are read and checked, the rules an edit adds to the
 * mode's, and where it is sent. The shared request and the paid run are the node's (common.descriptions.ts, index.ts).
 */
import type { IExecuteFunctions, INodeProperties, INodePropertyOptions } from 'n8n-workflow';
import { z } from 'zod';
import { readInputImage } from '../../shared/binary';
import type { RuleViolation } from '../../shared/errors';
import { REFERENCE_IMAGE } from '../../shared/rules/image';
import { addressList, mediaUrlProblem } from '../../shared/rules/mediaUrl';
import { parseOrThrow } from '../../shared/validate';
import type { OperationInput, ReferenceSource } from './input';
import type { ImageMode, ReferenceImage, SubmitInput } from './request';
import { imageFamily, jsonEditConfirmed } from './rules';

export const option: INodePropertyOptions = {
	name: 'Edit',
	value: 'edit',
	action: 'Edit an image',
	description: 'Image to image, from reference images',
};

export const properties: INodeProperties[] = [
	{
		displayName: 'Reference Binary Properties',
		name: 'referenceBinaries',
		type: 'string',
		default: 'data',
		description:
			'Binary properties of the input item holding the reference images, comma-separated (several for the beta family). PNG, JPEG, WebP or BMP, up to 25 MiB each; the type is read from the bytes.',
		displayOptions: { show: { operation: ['edit'] } },
	},
	{
		displayName: 'Reference Image URLs',
		name: 'referenceUrls',
		type: 'string',
		default: '',
		description:
			'Beta family only, async or synchronous mode: public http(s) image addresses the gateway reads itself, one per line (a comma is part of an address), sent in the JSON form. They must stay reachable during generation; private, loopback or link-local hosts, user:password@ and addresses carrying a key or token are refused before anything is sent.',
		displayOptions: { show: { operation: ['edit'] } },
	},
	{
		displayName: 'Edit Upload As',
		name: 'editEncoding',
		type: 'options',
		options: [
			{ name: 'Multipart Files (Recommended)', value: 'multipart' },
			{ name: 'JSON Data URLs (Alpha-Image-2.5, Beta Flash)', value: 'json' },
		],
		default: 'multipart',
		displayOptions: { show: { operation: ['edit'], mode: ['async', 'sync'] } },
	},
];

/** sent to /v1/images/edits (and its /async form) */
export const endpoint = 'edits';

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

/** Item i's reference binaries (checked now, read again when sent), reference addresses and upload form. */
export async function readOwn(
	ctx: IExecuteFunctions,
	i: number,
	mode: ImageMode,
	containsSecret: (text: string) => boolean,
): Promise<OperationInput> {
	const references = await readReferences(ctx, i);
	return {
		references,
		referenceUrls: readUrls(ctx, i, containsSecret),
		editEncoding:
			mode !== 'native'
				? (ctx.getNodeParameter('editEncoding', i) as 'multipart' | 'json')
				: 'json',
	};
}

/** What an edit needs beyond the mode's rules: references, and an upload form the model takes. */
export function problems(input: SubmitInput): RuleViolation[] {
	const fam = imageFamily(input.req.model);
	const v: RuleViolation[] = [];
	if (!input.references.length && !input.referenceUrls.length)
		v.push({
			field: 'Reference Images',
			rule: 'an edit needs at least one reference image (it never falls back to text-to-image)',
		});
	if (input.referenceUrls.length && fam !== 'beta')
		v.push({
			field: 'Reference Image URLs',
			rule: 'public image addresses are read by the gateway for the beta family only',
		});
	if (input.referenceUrls.length && input.mode === 'native')
		v.push({
			field: 'Reference Image URLs',
			rule: 'native mode sends reference images inline (inlineData) and cannot carry addresses: give them as binary properties (e.g. download them first with an HTTP Request node), or use the async or synchronous mode',
		});
	if (fam !== 'beta' && input.references.length > 1)
		v.push({
			field: 'Reference Images',
			rule: `${input.req.model} takes a single reference image (several are for the beta family)`,
		});
	// the beta family reads public addresses itself, and those travel only in the JSON form
	const jsonAllowed =
		jsonEditConfirmed(input.req.model) || (fam === 'beta' && input.referenceUrls.length > 0);
	if (input.editEncoding === 'json' && !jsonAllowed && input.mode !== 'native')
		v.push({
			field: 'Edit Upload As',
			rule: `JSON data URLs are confirmed only for alpha-image-2.5 and beta flash (and the beta family with reference addresses); use multipart for ${input.req.model}`,
		});
	if (input.referenceUrls.length && input.editEncoding === 'multipart' && input.mode !== 'native')
		v.push({ field: 'Edit Upload As', rule: 'reference URLs go in a JSON body: choose JSON' });
	return v;
}
