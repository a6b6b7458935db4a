import { actionNode, optionsCollection } from '../shared/ui';
import { DELTA_VIDEO_UNIT_PRICES } from '../shared/money/prices';

const FEE_OPS = ['estimateVideoCost', 'settleTask'];

export const pricingDescription = actionNode({
	displayName: 'GenGateway Pricing',
	name: 'genGatewayPricing',
	description:
		'Shows model prices in your currency, the models your key can call, and what a video costs',
	properties: [
		{
			displayName: 'Operation',
			name: 'operation',
			type: 'options',
			noDataExpression: true,
			options: [
				{
					name: 'Estimate Video Cost',
					value: 'estimateVideoCost',
					action: 'Estimate a delta video cost',
					description: 'Fee of a delta-video task from a token count',
				},
				{
					name: 'Get Prices',
					value: 'getPrices',
					action: 'Get public prices',
					description:
						'Lowest public price per model in the display currency (the key is not sent)',
				},
				{
					name: 'List My Models',
					value: 'listModels',
					action: 'List the models of my key',
					description: 'GET /v1/models for the key, joined with the public prices',
				},
				{
					name: 'Settle Task',
					value: 'settleTask',
					action: 'Settle a finished delta video task',
					description: 'Fee of a finished delta-video task from its usage',
				},
			],
			default: 'getPrices',
		},
		{
			displayName:
				"Get Prices and List My Models return one list per run (paired with the first input item). Prices are the lowest of the publicly selectable groups; your key's group may cost more.",
			name: 'listNotice',
			type: 'notice',
			default: '',
			displayOptions: { show: { operation: ['getPrices', 'listModels'] } },
		},
		{
			displayName: 'Model Filter',
			name: 'modelFilter',
			type: 'string',
			default: '',
			placeholder: 'e.g. alpha-image',
			description: 'Only models whose ID contains this text (empty: all)',
			displayOptions: { show: { operation: ['getPrices'] } },
		},
		{
			displayName: 'Include Models Not Callable',
			name: 'includeOthers',
			type: 'boolean',
			default: true,
			description:
				'Whether to also list public catalog models this key cannot call (marked callable: false)',
			displayOptions: { show: { operation: ['listModels'] } },
		},
		{
			displayName: 'Model',
			name: 'videoModel',
			type: 'options',
			options: Object.keys(DELTA_VIDEO_UNIT_PRICES).map((id) => ({ name: id, value: id })),
			default: 'delta-video-2-0-mini-260615',
			displayOptions: { show: { operation: ['estimateVideoCost'] } },
		},
		{
			displayName: 'Video Tokens',
			name: 'tokens',
			type: 'number',
			default: 50400,
			typeOptions: { minValue: 0 },
			description: 'Video tokens (they depend on resolution, duration and reference video)',
			displayOptions: { show: { operation: ['estimateVideoCost'] } },
		},
		{
			displayName: 'Task Source',
			name: 'taskSource',
			type: 'options',
			options: [
				{ name: 'Task Object (JSON)', value: 'json', description: 'E.g. the output of Task Wait' },
				{ name: 'Task ID', value: 'id', description: 'Query GET /v1/videos/{ID} with the key' },
			],
			default: 'json',
			displayOptions: { show: { operation: ['settleTask'] } },
		},
		{
			displayName: 'Task',
			name: 'task',
			type: 'json',
			default: '={{ $json }}',
			description: 'The finished task: Task Wait output or a GET /v1/videos/{ID} body',
			displayOptions: { show: { operation: ['settleTask'], taskSource: ['json'] } },
		},
		{
			displayName: 'Task ID',
			name: 'taskId',
			type: 'string',
			default: '={{ $json.task_id }}',
			displayOptions: { show: { operation: ['settleTask'], taskSource: ['id'] } },
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
			displayOptions: { show: { operation: ['settleTask'], taskSource: ['id'] } },
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
			displayOptions: { show: { operation: ['estimateVideoCost'] } },
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
			displayOptions: { show: { operation: ['settleTask'] } },
		},
		{
			displayName: 'Request or Task JSON',
			name: 'referenceJson',
			type: 'json',
			default: '={{ $json }}',
			description: 'A Video Create output or a delta create body to detect a reference video in',
			displayOptions: { show: { operation: ['estimateVideoCost'], referenceVideo: ['detect'] } },
		},
		{
			displayName: 'Group Multiplier',
			name: 'groupRatio',
			type: 'number',
			default: 0,
			typeOptions: { minValue: 0, numberPrecision: 4 },
			description:
				"Your key's group multiplier (the ratio of the group the key was created in; Get Prices shows the public groups' ratios). 0 = not known: the fee is then given at multiplier 1 and labelled at_multiplier_1, never as settled.",
			displayOptions: { show: { operation: FEE_OPS } },
		},
		optionsCollection(
			[
				{
					displayName: 'Group Name',
					name: 'groupName',
					type: 'string',
					default: '',
					placeholder: 'e.g. default',
					description:
						"Look the multiplier up by your key's group name in the public group_ratio instead (a group without a ratio is refused, never taken as 0)",
				},
			],
			{ displayOptions: { show: { operation: FEE_OPS } } },
		),
	],
});
