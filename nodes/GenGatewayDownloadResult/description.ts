import { actionNode, videoOriginProperty, optionsCollection } from '../shared/ui';

export const downloadResultDescription = actionNode({
	displayName: 'GenGateway Download Result',
	name: 'genGatewayDownloadResult',
	description: 'Downloads the images or video of a finished task as files',
	properties: [
		{
			displayName: 'Source',
			name: 'source',
			type: 'options',
			options: [
				{ name: 'Image Task Object', value: 'imageTask', description: 'A task object (data / result.data with url or b64_json), e.g. the input item' },
				{ name: 'Video Task ID', value: 'videoTask', description: 'Delta: authenticated /v1/videos/{id}/content; gamma: the result URL of the task' },
				{ name: 'URL', value: 'url', description: 'A hosted result address (fetched without the key)' },
			],
			default: 'imageTask',
		},
		{ displayName: 'Task Object', name: 'task', type: 'json', default: '={{ $json }}', displayOptions: { show: { source: ['imageTask'] } } },
		{ displayName: 'Task ID', name: 'taskId', type: 'string', default: '={{ $json.task_id }}', displayOptions: { show: { source: ['videoTask'] } } },
		videoOriginProperty('origin', { displayOptions: { show: { source: ['videoTask'] } } }),
		{ displayName: 'URL', name: 'url', type: 'string', default: '', displayOptions: { show: { source: ['url'] } } },
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
			{ displayName: 'Binary Property', name: 'binaryPropertyName', type: 'string', default: 'data' },
			{ displayName: 'Max Video Size (MiB)', name: 'maxVideoMiB', type: 'number', default: 2048, typeOptions: { minValue: 1 }, description: 'A video larger than this (announced or counted while it downloads) is refused, so a broken host cannot fill the disk' },
			{ displayName: 'One Item per Image', name: 'splitImages', type: 'boolean', default: false, description: 'Whether to emit one item per image instead of all images on one item (data, data_1, …)' },
			{ displayName: 'Return URLs Only', name: 'urlsOnly', type: 'boolean', default: false, description: 'Whether to return the result addresses without downloading (automatic when used as an AI-agent tool)' },
			]),
	],
});
