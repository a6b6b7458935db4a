/** The Image Submit parameters Generate and Edit share (written once, shown under both): descriptions only. */
import type { IDisplayOptions, INodeProperties } from 'n8n-workflow';
import { ALPHA_25_SIZES, ALPHA_2_TIER_CAP, BETA_FLASH_ONLY_RATIOS, BETA_PRO_RATIOS } from './rules';
import { spendOptions } from '../../shared/money/options';
import { concurrencyOption } from '../../shared/runners/options';
import { modelLocator, optionsCollection } from '../../shared/ui';

const TIERS = (['1k', '2k', '4k'] as const)
	.map(
		(t) =>
			`${t === '1k' ? 'standard/1K' : t.toUpperCase()} ${ALPHA_2_TIER_CAP[t]}x${ALPHA_2_TIER_CAP[t]}`,
	)
	.join(', ');
const ratioOptions = (list: readonly string[]) => list.map((r) => ({ name: r, value: r }));
const isFlash = { _cnd: { includes: 'flash' } };
const ALPHA_25 = 'alpha-image-2.5';
const ALPHA_AZ = 'alpha-image-2-az';
/** alpha-image-2 and its tiers, listed rather than matched: n8n tests a `regex` display condition in a VM with a 250 ms
 * budget on every parameter read, and on a busy n8n that fails the node ("Regular expression execution timed out") */
const ALPHA_2 = [
	'alpha-image-2',
	...(Object.keys(ALPHA_2_TIER_CAP) as Array<keyof typeof ALPHA_2_TIER_CAP>).map(
		(t) => `alpha-image-2-${t}`,
	),
];
const isBeta = { _cnd: { startsWith: 'beta-' } };
const notNative = { mode: ['native'] };
/** One Size field per model family (the same parameter, shown for one family each), each with its own one-sentence hint. */
const sizeField = (
	hint: string,
	show: IDisplayOptions['show'],
	hide: IDisplayOptions['hide'],
): INodeProperties => ({
	displayName: 'Size',
	name: 'size',
	type: 'string',
	default: '1024x1024',
	placeholder: 'e.g. 1536x1024',
	description:
		'Pixel string WIDTHxHEIGHT. Delivered pixels can differ; the output reports the real size.',
	hint,
	displayOptions: { ...(show ? { show } : {}), hide: { ...notNative, ...hide } },
});

/** The request both operations send: model, mode, prompt, size, ratio, quality, count (before an operation's own). */
export const requestProperties: INodeProperties[] = [
	modelLocator('searchImageModels', ALPHA_25, { default: { mode: 'list', value: ALPHA_25 } }),
	{
		displayName:
			'alpha-image-2-az always runs synchronously, whatever the mode: its channel refuses the asynchronous form.',
		name: 'azNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { model: [ALPHA_AZ] } },
	},
	// n8n's node panel lists, for a node in its AI category, the options of the first parameter named "mode" as the
	// node's actions (beside Generate and Edit). This first "mode" has no options and is never shown, so the panel
	// lists the two operations only; the real field below keeps its name, so saved workflows keep their mode.
	{
		displayName: 'Mode',
		name: 'mode',
		type: 'hidden',
		default: 'async',
		displayOptions: { show: { '@version': [0] } },
	},
	{
		displayName: 'Mode',
		name: 'mode',
		type: 'options',
		options: [
			{
				name: 'Async Task (Recommended)',
				value: 'async',
				description: 'Submit once, get a task ID, wait or poll later',
			},
			{
				name: 'Synchronous',
				value: 'sync',
				description: 'Waits for the images in the same call (up to 10 minutes)',
			},
			{
				name: 'Native (Beta Family)',
				value: 'native',
				description: '/v1beta generateContent: returns images directly, no task ID',
			},
		],
		default: 'async',
	},
	{
		displayName: 'Prompt',
		name: 'prompt',
		type: 'string',
		typeOptions: { rows: 4 },
		default: '',
		required: true,
		placeholder: 'e.g. a watercolour fox in a snowy forest, soft morning light',
		description: 'What to draw; for edits, what to keep and what to change',
	},
	{
		displayName: 'Size',
		name: 'size',
		type: 'options',
		options: ALPHA_25_SIZES.map((v) => ({ name: v, value: v })),
		default: '1024x1024',
		description:
			'The sizes alpha-image-2.5 takes (targets: delivered pixels can differ; the output reports the real size)',
		displayOptions: { show: { model: [ALPHA_25] }, hide: notNative },
	},
	sizeField(
		`Any WIDTHxHEIGHT within the tier's pixel count (${TIERS}); the gateway rounds it to multiples of 16.`,
		{ model: ALPHA_2 },
		{},
	),
	sizeField(
		'Any pixel string; alpha-image-2-az delivers what its channel makes of it.',
		{ model: [ALPHA_AZ] },
		{},
	),
	sizeField(
		'A pixel string (never a ratio like 16:9) for the nearest supported ratio; without a -1k/-2k/-4k suffix the longest side picks the tier.',
		{ model: [isBeta] },
		{},
	),
	sizeField(
		'This package has no size rules for this model: the size is sent as given and the gateway decides.',
		undefined,
		{ model: [ALPHA_25, ALPHA_AZ, ...ALPHA_2, isBeta] },
	),
	// the same parameter twice: flash models are offered their four extra ratios, every other model the pro set
	{
		displayName: 'Aspect Ratio',
		name: 'aspectRatio',
		type: 'options',
		options: ratioOptions(BETA_PRO_RATIOS),
		default: '1:1',
		description: 'Ratios beta pro recognises (flash models also offer 1:4, 1:8, 4:1, 8:1)',
		displayOptions: { show: { mode: ['native'] }, hide: { model: [isFlash] } },
	},
	{
		displayName: 'Aspect Ratio',
		name: 'aspectRatio',
		type: 'options',
		options: ratioOptions([...BETA_PRO_RATIOS, ...BETA_FLASH_ONLY_RATIOS]),
		default: '1:1',
		description: 'Ratios beta flash recognises: the pro set plus 1:4, 1:8, 4:1, 8:1',
		displayOptions: { show: { mode: ['native'], model: [isFlash] } },
	},
	{
		displayName: 'Image Size (Unsuffixed Models)',
		name: 'nativeImageSize',
		type: 'options',
		options: [
			{ name: '1K', value: '1K' },
			{ name: '2K', value: '2K' },
			{ name: '4K', value: '4K' },
		],
		default: '1K',
		description:
			'For models with a -1k/-2k/-4k suffix the suffix decides; the key needs permission for the tier',
		displayOptions: { show: { mode: ['native'] } },
	},
	{
		displayName: 'Quality',
		name: 'quality',
		type: 'options',
		options: [
			{ name: 'Omit (Recommended)', value: '' },
			{ name: 'Auto', value: 'auto' },
			{ name: 'High', value: 'high' },
		],
		default: '',
		description:
			'alpha-image-2.5: omit, auto or high (high has no proven extra quality). Other alpha models: as their channel supports. The beta family does not take it.',
		displayOptions: { hide: { mode: ['native'] } },
	},
	{
		displayName: 'Number of Images',
		name: 'n',
		type: 'number',
		default: 1,
		typeOptions: { minValue: 1 },
		description:
			'Keep 1: one image per task. More images can partially fail without a clear hint and with unclear billing.',
		displayOptions: { hide: { mode: ['native'] } },
	},
];

/** The Options collection (after every operation's own parameters). */
export const submitOptions: INodeProperties = optionsCollection([
	{
		displayName: 'Binary Property',
		name: 'binaryPropertyName',
		type: 'string',
		default: 'data',
		description: 'Where images go (synchronous, native, or waited); further images get _1, _2, …',
	},
	concurrencyOption(),
	...spendOptions(),
	{
		displayName: 'Deadline (Minutes)',
		name: 'deadlineMinutes',
		type: 'number',
		default: 30,
		description: 'With Wait for Result: how long to wait before handing back status running',
	},
	{
		displayName: 'Submit Timeout (Ms)',
		name: 'submitTimeoutMs',
		type: 'number',
		default: 60000,
	},
	{
		displayName: 'Synchronous Timeout (Ms)',
		name: 'syncTimeoutMs',
		type: 'number',
		default: 600000,
	},
	{
		displayName: 'Wait for Result',
		name: 'waitForResult',
		type: 'boolean',
		default: false,
		description:
			'Whether to wait for async tasks like Task Wait does and emit the images (holds the execution meanwhile)',
	},
]);
