/** Settle Task: a finished delta video's fee from its usage (task object or task ID), or "needs manual check", never free. */
import type {
	IDataObject,
	IExecuteFunctions,
	INodeProperties,
	INodePropertyOptions,
} from 'n8n-workflow';
import { DELTA_VIDEO_UNIT_PRICES } from '../../shared/money/prices';
import { settleDeltaFee } from '../../shared/money/delta';
import type { GatewayTransport, OriginKind } from '../../shared/transport';
import { readFields } from '../../shared/validate';
import {
	LOOKED_UP_NOTE,
	displayForFee,
	feeDisplay,
	feeInputs,
	feeOperation,
	resolveGroupRatio,
	type FeeInputs,
	type ReferenceChoice,
} from './fee';
import { PRICING_TASK_FIELDS, PRICING_TASK_ID_FIELDS } from './fields';

export const option: INodePropertyOptions = {
	name: 'Settle Task',
	value: 'settleTask',
	action: 'Settle a finished delta video task',
	description: 'Fee of a finished delta-video task from its usage',
};

const show = (extra: Record<string, string[]> = {}) => ({
	show: { operation: ['settleTask'], ...extra },
});

export const properties: INodeProperties[] = [
	{
		displayName: 'Task Source',
		name: 'taskSource',
		type: 'options',
		options: [
			{ name: 'Task Object (JSON)', value: 'json', description: 'E.g. the output of Task Wait' },
			{ name: 'Task ID', value: 'id', description: 'Query GET /v1/videos/{ID} with the key' },
		],
		default: 'json',
		displayOptions: show(),
	},
	{
		displayName: 'Task',
		name: 'task',
		type: 'json',
		default: '={{ $json }}',
		description: 'The finished task: Task Wait output or a GET /v1/videos/{ID} body',
		displayOptions: show({ taskSource: ['json'] }),
	},
	{
		displayName: 'Task ID',
		name: 'taskId',
		type: 'string',
		default: '={{ $json.task_id }}',
		displayOptions: show({ taskSource: ['id'] }),
	},
	{
		displayName: 'Task Origin',
		name: 'origin',
		type: 'options',
		options: [
			{
				name: 'Video Origin',
				value: 'video',
				description:
					"The credential's Video Base URL when set, else its Base URL (where Video Create sends tasks)",
			},
			{ name: 'Base URL', value: 'base' },
		],
		default: 'video',
		description: 'The origin that created the task; it is queried there with the same key',
		displayOptions: show({ taskSource: ['id'] }),
	},
	{
		displayName: 'Reference Video',
		name: 'referenceVideo',
		type: 'options',
		options: [
			{
				name: 'Detect From Task',
				value: 'detect',
				description:
					'From with_reference_video / materials / metadata.content; if none, the higher no-reference price is used and said',
			},
			{ name: 'No (Text, Image or Audio References Only)', value: 'no' },
			{ name: 'Yes (At Least One Reference Video)', value: 'yes' },
		],
		default: 'detect',
		description:
			'Whether the task had a reference video: only a video reference uses the "with reference video" price',
		displayOptions: show(),
	},
];

export interface SettleInputs extends FeeInputs {
	source: 'json' | 'id';
	task?: unknown;
	taskId?: unknown;
	/** where the task was created (Video Create: the credential's Video Base URL when set, else Base URL) */
	origin: OriginKind;
	reference: ReferenceChoice;
}

export async function settleTask(
	transport: GatewayTransport,
	inp: SettleInputs,
): Promise<IDataObject> {
	let task: unknown;
	let id = '';
	if (inp.source === 'id') {
		id = readFields(PRICING_TASK_ID_FIELDS, { taskId: inp.taskId }).taskId;
	} else {
		task = readFields(PRICING_TASK_FIELDS, { task: inp.task }).task;
	}
	const group = await resolveGroupRatio(transport, inp);
	if (inp.source === 'id')
		task = (await transport.getJson(`/v1/videos/${id}`, { origin: inp.origin, timeout: 'query' }))
			.body;
	const { display, note } = await displayForFee(transport);
	const withReferenceVideo =
		inp.reference === 'yes' ? true : inp.reference === 'no' ? false : undefined;
	const s = settleDeltaFee(task, DELTA_VIDEO_UNIT_PRICES, group.ratio, {
		withReferenceVideo,
		quotaPerUnit: display.quotaPerUnit,
	});
	const looked =
		s.fee_quota && group.source.startsWith('group_ratio.') ? LOOKED_UP_NOTE : undefined;
	return {
		...s,
		group_ratio_source: group.source,
		...feeDisplay(s.fee_quota, display),
		fetched: inp.source === 'id',
		note: [s.note, looked, note].filter(Boolean).join('; '),
	} as unknown as IDataObject;
}

export const operation = (ctx: IExecuteFunctions, transport: GatewayTransport) =>
	feeOperation(
		(i): SettleInputs => {
			const source = ctx.getNodeParameter('taskSource', i, 'json') as 'json' | 'id';
			return {
				...feeInputs(ctx, i),
				source,
				task: source === 'json' ? ctx.getNodeParameter('task', i) : undefined,
				taskId: source === 'id' ? ctx.getNodeParameter('taskId', i) : undefined,
				origin:
					source === 'id' ? (ctx.getNodeParameter('origin', i, 'video') as OriginKind) : 'video',
			};
		},
		(inp) => settleTask(transport, inp),
	);
