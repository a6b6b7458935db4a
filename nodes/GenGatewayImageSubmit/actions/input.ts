/**
 * Reads one Image Submit item into a checked request: the shared parameters and expressions, the operation's own (its
 * file's `readOwn`: Edit's reference binaries and URLs), the mode's rules and the operation's. Nothing is sent.
 * Reference images are checked now and read again when the request is sent, so a batch never holds every item's
 * images in memory at once.
 */
import type { IExecuteFunctions, INodeProperties, INodePropertyOptions } from 'n8n-workflow';
import type { RuleViolation } from '../../shared/errors';
import { SUBMIT_OPTION_FIELDS } from '../../shared/runners/options';
import { FLAG_RULE, numericText, OPTION_RULES } from '../../shared/rules/options';
import { fieldSet } from '../../shared/rules/rule';
import { readModel } from '../../shared/models';
import { parseOrThrow, readFields, refuse } from '../../shared/validate';
import { imageRequestSchema } from './rules';
import { modeProblems, type ImageMode, type ReferenceImage, type SubmitInput } from './request';

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

/** What an operation reads of one item beyond the shared request: its references and how they are uploaded. */
export type OperationInput = Pick<PreparedImage, 'references'> &
	Pick<SubmitInput, 'referenceUrls' | 'editEncoding'>;

/** One operation of the node (Generate, Edit), in its own file: its option, parameters, reading, rules, endpoint. */
export interface ImageSubmitOperation {
	/** its entry in the Operation list */
	option: INodePropertyOptions;
	/** its own parameters, each shown under it only (after the shared request, before the Options) */
	properties: INodeProperties[];
	/** its own parameters of item i, read and checked */
	readOwn(
		ctx: IExecuteFunctions,
		i: number,
		mode: ImageMode,
		containsSecret: (text: string) => boolean,
	): Promise<OperationInput>;
	/** the rules it adds to the mode's */
	problems(input: SubmitInput): RuleViolation[];
	/** the path under /v1/images/ it is sent to */
	endpoint: SubmitInput['endpoint'];
}

export const IMAGE_OPTION_FIELDS = fieldSet('Image Submit options', {
	deadlineMinutes: { label: 'Deadline (Minutes)', rule: OPTION_RULES.minutes },
	syncTimeoutMs: { label: 'Synchronous Timeout (Ms)', rule: OPTION_RULES.milliseconds },
	waitForResult: { label: 'Wait for Result', rule: FLAG_RULE },
	...SUBMIT_OPTION_FIELDS,
});

/** Item i as a checked request of `operation`; `containsSecret` tells whether a text holds the credential's key (such
 * an address is never sent). */
export async function prepareImageItem(
	ctx: IExecuteFunctions,
	i: number,
	operation: ImageSubmitOperation,
	containsSecret: (text: string) => boolean,
): Promise<PreparedImage> {
	const raw = ctx.getNodeParameter('options', i, {}) as ImageSubmitOptions;
	const options: ImageSubmitOptions = {
		...raw,
		...readFields(IMAGE_OPTION_FIELDS, raw as Record<string, unknown>),
	};
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
	const { references, ...own } = await operation.readOwn(ctx, i, mode, containsSecret);
	const input: Omit<SubmitInput, 'references'> = {
		endpoint: operation.endpoint,
		mode,
		req,
		...own,
		aspectRatio: aspectRatio ?? '1:1',
		nativeImageSize:
			mode === 'native' ? (ctx.getNodeParameter('nativeImageSize', i) as '1K' | '2K' | '4K') : '1K',
	};
	// the rules need to know how many references there are, not their bytes
	const counted: SubmitInput = {
		...input,
		references: references.map((r) => ({
			data: Buffer.alloc(0),
			mimeType: r.mimeType,
			fileName: r.fileName,
		})),
	};
	const violations = [...modeProblems(counted), ...operation.problems(counted)];
	if (violations.length) refuse(violations);
	return { input, references, options };
}

/** The request as sent: the references read again (and checked again) now. */
export async function loadSubmitInput(p: PreparedImage): Promise<SubmitInput> {
	const references: ReferenceImage[] = [];
	for (const r of p.references) references.push(await r.load());
	return { ...p.input, references };
}
