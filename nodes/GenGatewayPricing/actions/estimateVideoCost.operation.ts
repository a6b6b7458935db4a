/** Estimate Video Cost: a delta video's fee for a token count, before creating it. */
import type {
	IDataObject,
	IExecuteFunctions,
	INodeProperties,
	INodePropertyOptions,
} from 'n8n-workflow';
import { DELTA_VIDEO_UNIT_PRICES, deltaVideoFee } from '../../shared/money/prices';
import { referenceVideoOf } from '../../shared/money/delta';
import type { GatewayTransport } from '../../shared/transport';
import { checkFields, refuse } from '../../shared/validate';
import {
	LOOKED_UP_NOTE,
	UNKNOWN_RATIO_NOTE,
	displayForFee,
	feeDisplay,
	feeInputs,
	feeOperation,
	parseMaybeJson,
	resolveGroupRatio,
	type FeeInputs,
	type ReferenceChoice,
} from './fee';
import { PRICING_ESTIMATE_FIELDS } from './fields';

export const option: INodePropertyOptions = {
	name: 'Estimate Video Cost',
	value: 'estimateVideoCost',
	action: 'Estimate a delta video cost',
	description: 'Fee of a delta-video task from a token count',
};

const show = (extra: Record<string, string[]> = {}) => ({
	show: { operation: ['estimateVideoCost'], ...extra },
});

export const properties: INodeProperties[] = [
	{
		displayName: 'Model',
		name: 'videoModel',
		type: 'options',
		options: Object.keys(DELTA_VIDEO_UNIT_PRICES).map((id) => ({ name: id, value: id })),
		default: 'delta-video-2-0-mini-260615',
		displayOptions: show(),
	},
	{
		displayName: 'Video Tokens',
		name: 'tokens',
		type: 'number',
		default: 50400,
		typeOptions: { minValue: 0 },
		description: 'Video tokens (they depend on resolution, duration and reference video)',
		displayOptions: show(),
	},
	{
		displayName: 'Reference Video',
		name: 'referenceVideo',
		type: 'options',
		options: [
			{
				name: 'Detect From JSON',
				value: 'detect',
				description:
					'with_reference_video / materials of Video Create, or metadata.content of a create body',
			},
			{ name: 'No (Text, Image or Audio References Only)', value: 'no' },
			{ name: 'Yes (At Least One Reference Video)', value: 'yes' },
		],
		default: 'no',
		description:
			'Whether the task has a reference video: only a video reference uses the "with reference video" price; image or audio references count as none',
		displayOptions: show(),
	},
	{
		displayName: 'Request or Task JSON',
		name: 'referenceJson',
		type: 'json',
		default: '={{ $json }}',
		description: 'A Video Create output or a delta create body to detect a reference video in',
		displayOptions: show({ referenceVideo: ['detect'] }),
	},
];

export interface EstimateInputs extends FeeInputs {
	model: string;
	tokens: unknown;
	reference: ReferenceChoice;
	/** the JSON to detect a reference video in (Video Create output, a delta create body) */
	referenceJson?: unknown;
}

/** The checked inputs (every violated rule refused at once) and whether the price is the reference video's. */
function checkEstimate(inp: EstimateInputs) {
	const checked = checkFields(PRICING_ESTIMATE_FIELDS, {
		videoModel: inp.model,
		tokens: inp.tokens,
		groupRatio: inp.groupRatio,
	});
	const problems = [...checked.violations];
	let withRef = inp.reference === 'yes';
	let source = 'option';
	if (inp.reference === 'detect') {
		const found = referenceVideoOf(parseMaybeJson(inp.referenceJson));
		if (!found)
			problems.push({
				field: 'Request or Task JSON',
				rule:
					'tells nothing about references: give a Video Create output ' +
					'(with_reference_video / materials) or a delta create body (metadata.content), or choose Yes/No',
			});
		else {
			withRef = found.withReferenceVideo;
			source = found.source;
		}
	}
	if (problems.length) refuse(problems);
	return { tokens: checked.values?.tokens as number, withRef, source };
}

/** fee = tokens / 1e6 × unit price × group multiplier, in whole quota units. */
export async function estimateVideoCost(
	transport: GatewayTransport,
	inp: EstimateInputs,
): Promise<IDataObject> {
	const { tokens, withRef, source } = checkEstimate(inp);
	const group = await resolveGroupRatio(transport, inp);
	const { display, note } = await displayForFee(transport);
	const fee = deltaVideoFee(inp.model, tokens, withRef, group.ratio ?? 1, display.quotaPerUnit);
	const known = group.ratio !== undefined;
	return {
		model: inp.model,
		tokens: fee.tokens,
		with_reference_video: withRef,
		reference_video_source: source,
		unit_price: fee.unitPrice,
		group_ratio: group.ratio ?? null,
		group_ratio_source: group.source,
		fee_basis: known ? 'group_multiplier' : 'at_multiplier_1',
		quota_per_unit: display.quotaPerUnit,
		fee_quota: fee.quota,
		fee_base: fee.usd,
		...feeDisplay(fee.quota, display),
		note: [
			`${fee.tokens} video tokens / 1,000,000 × ${fee.unitPrice} ` +
				`(${withRef ? 'with' : 'no'} reference video) × group ratio ${group.ratio ?? 1}, ` +
				`in whole quota units (¤)`,
			known ? undefined : UNKNOWN_RATIO_NOTE,
			group.source.startsWith('group_ratio.') ? LOOKED_UP_NOTE : undefined,
			note,
		]
			.filter(Boolean)
			.join('; '),
	};
}

export const operation = (ctx: IExecuteFunctions, transport: GatewayTransport) =>
	feeOperation(
		(i): EstimateInputs => {
			const fee = feeInputs(ctx, i);
			return {
				...fee,
				model: ctx.getNodeParameter('videoModel', i) as string,
				tokens: ctx.getNodeParameter('tokens', i),
				referenceJson:
					fee.reference === 'detect' ? ctx.getNodeParameter('referenceJson', i) : undefined,
			};
		},
		(inp) => estimateVideoCost(transport, inp),
	);
