import { groupOptions } from '../shared/money/options';
import { actionNode, optionsCollection, taskKindProperty, videoOriginProperty } from '../shared/ui';
import { GATEWAY_OBJECT_SINCE } from '../shared/items/vocabulary';

export const taskWaitDescription = actionNode({
	displayName: 'GenGateway Task Wait',
	name: 'genGatewayTaskWait',
	// 1.1: the gateway's words in one object, `gateway: { status, state? }`; 1 keeps gateway_status and gateway_state
	version: [1, GATEWAY_OBJECT_SINCE.genGatewayTaskWait],
	defaultVersion: GATEWAY_OBJECT_SINCE.genGatewayTaskWait,
	description: 'Waits for image and video tasks to finish and returns their files',
	outputNames: ['Completed', 'Failed', 'Still Running'],
	properties: [
		{
			displayName:
				'Every input item comes out of exactly one output. Still Running items keep ' +
				'their task_id: loop them through a Wait node back here instead of holding a worker.',
			name: 'notice',
			type: 'notice',
			default: '',
		},
		{
			displayName: 'Task ID',
			name: 'taskId',
			type: 'string',
			default: '={{ $json.task_id }}',
			required: true,
			description: 'The task to wait for (Image Submit / Video Create output, or an expression)',
		},
		taskKindProperty(
			'Auto reads kind, family, origin and poll fields from the input item; a task ID with nothing else is asked as an image task, then as a video task',
		),
		videoOriginProperty('videoOrigin'),
		optionsCollection([
			{
				displayName: 'Binary Property',
				name: 'binaryPropertyName',
				type: 'string',
				default: 'data',
				description: 'Name of the binary property for the result; further images get _1, _2, …',
			},
			{
				displayName: 'Concurrent Queries',
				name: 'concurrency',
				type: 'number',
				default: 16,
				typeOptions: { minValue: 1, maxValue: 64 },
				description: 'Upper bound of queries in flight; it halves when the gateway answers 429',
			},
			{
				displayName: 'Deadline (Minutes)',
				name: 'deadlineMinutes',
				type: 'number',
				default: 30,
				typeOptions: { minValue: 0.01 },
				description:
					'Overall time to wait for a task, counted from the first wait (kept across Still Running loops)',
			},
			{
				displayName: 'Download Results',
				name: 'download',
				type: 'boolean',
				default: true,
				description:
					'Whether to download results into binary data (off: URLs only). Off automatically when used as an AI-agent tool.',
			},
			...groupOptions(
				'Not added: Group Name, else not known (a delta fee is then labelled at_multiplier_1, never settled).',
			),
			{
				displayName: 'Keep Input Fields',
				name: 'keepInputFields',
				type: 'boolean',
				default: true,
				description:
					"Whether the input item's fields (e.g. a row ID) come along on the output item, so later nodes can use them; the task's own fields win",
			},
			{
				displayName: 'Max Video Size (MiB)',
				name: 'maxVideoMiB',
				type: 'number',
				default: 2048,
				typeOptions: { minValue: 1 },
				description:
					'A video larger than this (announced or counted while it downloads) is refused, so a broken host cannot fill the disk',
			},
			{
				displayName: 'Max Wait per Execution (Seconds)',
				name: 'maxWaitSeconds',
				type: 'number',
				default: 0,
				description:
					'Hand back Still Running after this long (0 = until the deadline). Use in queue mode so long jobs do not hold a worker.',
			},
			{
				displayName: 'Video Poll Interval (Ms)',
				name: 'videoIntervalMs',
				type: 'number',
				default: 4000,
				typeOptions: { minValue: 1000 },
				description:
					'Videos have no poll_after_ms; the spec suggests 3 to 5 s. No task is queried more often than once a second.',
			},
		]),
	],
});
