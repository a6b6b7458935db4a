import { NodeConnectionTypes, type INodeTypeDescription } from 'n8n-workflow';
import { modelLocator } from '../shared/ui';

const delta = { show: { family: ['delta'] } };
const gamma = { show: { family: ['gamma'] } };

export const videoCreateDescription: INodeTypeDescription = {
	displayName: 'GenGateway Video Create',
	name: 'genGatewayVideoCreate',
	icon: { light: 'file:../../icons/videoCreate.svg', dark: 'file:../../icons/videoCreate.dark.svg' },
	group: ['transform'],
	version: 1,
	subtitle: '={{$parameter["family"] + ": " + ($parameter["model"].value || $parameter["model"])}}',
	description:
		'Creates delta-video or gamma-video tasks. Every rule is checked before sending. The POST is never resent: an unknown outcome is marked submission_uncertain instead of failing, so Retry On Fail cannot pay twice.',
	defaults: { name: 'GenGateway Video Create' },
	usableAsTool: true,
	inputs: [NodeConnectionTypes.Main],
	outputs: [NodeConnectionTypes.Main],
	credentials: [{ name: 'genGatewayApi', required: true }],
	properties: [
		{
			displayName: 'Family',
			name: 'family',
			type: 'options',
			noDataExpression: true,
			options: [
				{ name: 'Delta Video', value: 'delta', description: 'Text, image, video and audio references, first/last frames' },
				{ name: 'Gamma Video', value: 'gamma', description: 'Text with optional reference images' },
			],
			default: 'delta',
		},
		modelLocator('searchVideoModels', 'delta-video-2-0-mini-260615'),
		{ displayName: 'Prompt', name: 'prompt', type: 'string', typeOptions: { rows: 4 }, default: '', required: true, description: 'Delta: at most 6000 characters; name materials with the tokens listed in the output (@图片1, @视频1, @音频1)' },
		{ displayName: 'Seconds', name: 'seconds', type: 'number', default: 5, description: '4 to 15 whole seconds (-1 only in edit mode: follow the input length)', displayOptions: delta },
		{ displayName: 'Seconds', name: 'gammaSeconds', type: 'options', options: [6, 8, 10, 12, 15, 4].map((s) => ({ name: s === 4 ? '4 (Unconfirmed Upstream)' : String(s), value: s })), default: 8, displayOptions: gamma },
		{ displayName: 'Resolution', name: 'resolution', type: 'options', options: [{ name: '480p', value: '480p' }, { name: '720p', value: '720p' }], default: '480p', description: '1080p, 2K and 4K are not supported', displayOptions: delta },
		{ displayName: 'Ratio', name: 'ratio', type: 'options', options: ['16:9', '9:16', '1:1', '4:3', '3:4', '21:9', 'adaptive'].map((r) => ({ name: r === 'adaptive' ? 'Adaptive (Needs an Image or Video)' : r, value: r })), default: '16:9', displayOptions: delta },
		{ displayName: 'Aspect Ratio', name: 'aspectRatio', type: 'options', options: ['16:9', '9:16', '1:1'].map((r) => ({ name: r, value: r })), default: '16:9', displayOptions: gamma },
		{ displayName: 'Generate Audio', name: 'generateAudio', type: 'boolean', default: false, description: 'Whether to generate sound (always sent explicitly)', displayOptions: delta },
		{ displayName: 'Watermark', name: 'watermark', type: 'boolean', default: false, description: 'Whether to add a watermark (always sent explicitly)', displayOptions: delta },
		{ displayName: 'Reference Image URLs', name: 'referenceImages', type: 'string', default: '', description: 'HTTPS addresses, comma or newline separated, or an array expression (delta: at most 9)', displayOptions: delta },
		{ displayName: 'Reference Video URLs', name: 'referenceVideos', type: 'string', default: '', description: 'MP4/MOV H.264/H.265, 3 to 10 s, 24 to 60 FPS, 432 to 2160 px per side, ≥ 407,696 pixels, ≤ 200 MB (at most 3; the gateway checks the media itself)', displayOptions: delta },
		{ displayName: 'Reference Audio URLs', name: 'referenceAudios', type: 'string', default: '', description: 'MP3 or PCM WAV, 2 to 30 s, ≤ 15 MB (at most 3)', displayOptions: delta },
		{ displayName: 'First Frame URL', name: 'firstFrame', type: 'string', default: '', description: 'Give both first and last frame, and no reference materials', displayOptions: delta },
		{ displayName: 'Last Frame URL', name: 'lastFrame', type: 'string', default: '', displayOptions: delta },
		{ displayName: 'Reference Image URLs', name: 'imageUrls', type: 'string', default: '', description: 'Public HTTPS image addresses (at most 7; gamma-video-1.0 with several: at most 10 s)', displayOptions: gamma },
		{ displayName: 'Input Reference Binary Property', name: 'inputReference', type: 'string', default: '', description: 'Optional: a binary property of the input item sent as the input_reference file (multipart)', displayOptions: gamma },
		{
			displayName: 'Options',
			name: 'options',
			type: 'collection',
			placeholder: 'Add Option',
			default: {},
			options: [
				{ displayName: 'Edit Mode', name: 'editMode', type: 'boolean', default: false, description: 'Whether to edit one reference video (omni_reference_task_type: edit): exactly one reference video and nothing else' },
				{ displayName: 'Extra Body Fields (JSON)', name: 'extraBody', type: 'json', default: '{}', description: 'Delta: further fields; they are checked by the same rules (alias pairs, no aspect_ratio, …)' },
				{ displayName: 'Return Last Frame', name: 'returnLastFrame', type: 'boolean', default: false },
				{ displayName: 'Seed', name: 'seed', type: 'number', default: -1, description: '-1 to 4294967295; no guarantee of identical output' },
				{ displayName: 'Submit Timeout (Ms)', name: 'submitTimeoutMs', type: 'number', default: 120000 },
			],
		},
	],
};
