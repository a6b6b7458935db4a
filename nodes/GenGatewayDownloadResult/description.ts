import { actionNode, optionsCollection, taskKindProperty, videoOriginProperty } from '../shared/ui';
import { GATEWAY_OBJECT_SINCE } from '../shared/items/vocabulary';

// the option values are those of the first release ("imageTask", "videoTask"), so saved workflows keep their source
const fromItem = { show: { source: ['imageTask'] } };
const byTaskId = { show: { source: ['videoTask'] } };

export const downloadResultDescription = actionNode({
	displayName: 'GenGateway Download Result',
	name: 'genGatewayDownloadResult',
	// 1.1: the gateway's words in one object, `gateway: { status, state? }`; 1 keeps gateway_status and gateway_state
	version: [1, GATEWAY_OBJECT_SINCE.genGatewayDownloadResult],
	defaultVersion: GATEWAY_OBJECT_SINCE.genGatewayDownloadResult,
	description: 'Downloads the images or video of a finished task as files',
	properties: [
		{
			displayName: 'Source',
			name: 'source',
			type: 'options',
			options: [
				{
					name: 'Item From a GenGateway Node',
					value: 'imageTask',
					description:
						"Task Wait's, Image Submit's or Video Create's output item as it is (its files, or its task_id), or a task object the gateway returned",
				},
				{
					name: 'Task ID',
					value: 'videoTask',
					description: 'An image or video task ID: the task is looked up and its result downloaded',
				},
				{
					name: 'Result URL',
					value: 'url',
					description: 'A hosted result address (fetched without the key)',
				},
			],
			default: 'imageTask',
		},
		{
			displayName: 'Item or Task Object',
			name: 'task',
			type: 'json',
			default: '={{ $json }}',
			description:
				"The input item (default): its files' addresses are downloaded again under the " +
				'same file names; an item with only a task_id (a submitted or still running ' +
				"task, a delta video) has its task looked up. A task object's data / result.data works too.",
			displayOptions: fromItem,
		},
		{
			displayName: 'Task ID',
			name: 'taskId',
			type: 'string',
			default: '={{ $json.task_id }}',
			displayOptions: byTaskId,
		},
		taskKindProperty(
			'Auto reads kind, family and origin from the input item; a task ID with nothing else is asked as an image task, then as a video task',
			{ displayOptions: byTaskId },
		),
		videoOriginProperty('origin', { displayOptions: byTaskId }),
		{
			displayName: 'URL',
			name: 'url',
			type: 'string',
			default: '',
			displayOptions: { show: { source: ['url'] } },
		},
		{
			displayName: 'Result Type',
			name: 'resultType',
			type: 'options',
			options: [
				{ name: 'Image', value: 'image' },
				{ name: 'Video (MP4)', value: 'video' },
			],
			default: 'image',
			displayOptions: { show: { source: ['url'] } },
		},
		optionsCollection([
			{
				displayName: 'Binary Property',
				name: 'binaryPropertyName',
				type: 'string',
				default: 'data',
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
				displayName: 'One Item per Image',
				name: 'splitImages',
				type: 'boolean',
				default: false,
				description:
					'Whether to emit one item per image instead of all images on one item (data, data_1, …)',
			},
			{
				displayName: 'Return URLs Only',
				name: 'urlsOnly',
				type: 'boolean',
				default: false,
				description:
					'Whether to return the result addresses without downloading (automatic when used as an AI-agent tool)',
			},
			{
				displayName: 'Wait for an Unfinished Task (Seconds)',
				name: 'waitSeconds',
				type: 'number',
				default: 30,
				typeOptions: { minValue: 1 },
				description:
					'A task that is looked up and has not finished is queried until it does, for at ' +
					'most this long; then the item fails saying it is still running (Task Wait waits longer)',
			},
		]),
	],
});
