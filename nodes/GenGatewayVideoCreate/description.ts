import { spendOptions } from '../shared/money/options';
import { concurrencyOption } from '../shared/runners/options';
import { actionNode, modelLocator, optionsCollection } from '../shared/ui';
import {
	DELTA_MODELS,
	DELTA_SECONDS,
	GAMMA_ASPECT_RATIOS,
	GAMMA_MODELS,
	GAMMA_SECONDS,
	OUTSIDE_FORM,
} from './actions/schemas';
import { GATEWAY_OBJECT_SINCE } from '../shared/items/vocabulary';

const delta = { show: { family: ['delta'] } };
const gamma = { show: { family: ['gamma'] } };
/**
 * Version 1.1 (new nodes) gives each family its own Model field: switching Family shows that family's field, which
 * starts at the family's first model, so a delta model never stays behind on a gamma node. Version 1 (workflows made
 * before) keeps the one Model field of both families.
 */
const V1 = { '@version': [1] };
const V11 = { '@version': [{ _cnd: { gte: 1.1 } }] };
const MODEL_HINT = 'Video models of the chosen family that your key can call.';
const outsideForm = `Others are refused before sending unless Options → ${OUTSIDE_FORM} is on.`;

const MEDIA_NOT_FETCHED = 'The gateway downloads these addresses itself and checks each file.';

export const videoCreateDescription = actionNode({
	displayName: 'GenGateway Video Create',
	name: 'genGatewayVideoCreate',
	// 1.2: the gateway's words in one object, `gateway: { status, state? }`; 1 and 1.1 keep gateway_status
	version: [1, 1.1, GATEWAY_OBJECT_SINCE.genGatewayVideoCreate],
	defaultVersion: GATEWAY_OBJECT_SINCE.genGatewayVideoCreate,
	description:
		'Starts a video from a prompt and references; as an AI tool it waits up to 10 minutes and returns its URL and cost',
	properties: [
		{
			displayName: 'Family',
			name: 'family',
			type: 'options',
			noDataExpression: true,
			options: [
				{
					name: 'Delta Video',
					value: 'delta',
					description: 'Text, image, video and audio references, first/last frames, edit mode',
				},
				{ name: 'Gamma Video', value: 'gamma', description: 'Text with optional reference images' },
			],
			default: 'delta',
		},
		modelLocator('searchVideoModels', DELTA_MODELS[0], {
			hint: MODEL_HINT,
			displayOptions: { show: V1 },
		}),
		modelLocator('searchVideoModels', DELTA_MODELS[0], {
			hint: MODEL_HINT,
			default: { mode: 'list', value: DELTA_MODELS[0] },
			displayOptions: { show: { ...delta.show, ...V11 } },
		}),
		{
			...modelLocator('searchVideoModels', GAMMA_MODELS[0], {
				hint: MODEL_HINT,
				default: { mode: 'list', value: GAMMA_MODELS[0] },
				displayOptions: { show: { ...gamma.show, ...V11 } },
			}),
			name: 'gammaModel',
		},
		{
			displayName: 'Prompt',
			name: 'prompt',
			type: 'string',
			typeOptions: { rows: 4 },
			default: '',
			placeholder: 'e.g. a paper boat drifts down a rainy street, slow pan',
			description:
				'What the video shows (required; checked with the other rules). Delta: at most ' +
				'6000 characters, or leave empty and give one text item in Extra Body Fields. ' +
				'Delta names each reference material in the prompt by a token: @ + 图片 (image), ' +
				'视频 (video) or 音频 (audio) + its number within its type, in the order given (@图片1 ' +
				'is the first image). These are Chinese words, shown as boxes where no CJK font ' +
				"is installed: copy them from the output's materials[].token.",
		},
		{
			displayName: 'Seconds',
			name: 'seconds',
			type: 'number',
			// no minimum or maximum: the editor would drop the keys typed past them (20 became 2); the rule below says it
			typeOptions: { numberPrecision: 0 },
			default: DELTA_SECONDS.default,
			description: `${DELTA_SECONDS.min} to ${DELTA_SECONDS.max} whole seconds. -1 (follow the input video's length) only in Edit Mode.`,
			hint: `Offered: ${DELTA_SECONDS.min} to ${DELTA_SECONDS.max} whole seconds (-1 in Edit Mode). ${outsideForm}`,
			displayOptions: delta,
		},
		{
			displayName: 'Seconds',
			name: 'gammaSeconds',
			type: 'options',
			options: GAMMA_SECONDS.map((s) => ({ name: String(s), value: s })),
			default: 8,
			description:
				"The seconds the gamma spec prefers (4 passes the gateway's validation but is " +
				'not confirmed upstream: not offered). gamma-video-1.0 with several reference images: at most 10.',
			hint: `Offered: ${GAMMA_SECONDS.join(', ')} seconds. ${outsideForm}`,
			displayOptions: gamma,
		},
		{
			displayName: 'Resolution',
			name: 'resolution',
			type: 'options',
			options: [
				{ name: '480p', value: '480p' },
				{ name: '720p', value: '720p' },
			],
			default: '480p',
			description: '1080p, 2K and 4K are not supported',
			displayOptions: delta,
		},
		{
			displayName: 'Ratio',
			name: 'ratio',
			type: 'options',
			options: ['16:9', '9:16', '1:1', '4:3', '3:4', '21:9', 'adaptive'].map((r) => ({
				name: r === 'adaptive' ? 'Adaptive (Needs an Image or Video)' : r,
				value: r,
			})),
			default: '16:9',
			description:
				'Sent as ratio (never aspect_ratio). Adaptive needs at least one image or video input.',
			displayOptions: delta,
		},
		{
			displayName: 'Aspect Ratio',
			name: 'aspectRatio',
			type: 'options',
			options: GAMMA_ASPECT_RATIOS.map((r) => ({ name: r, value: r })),
			default: '16:9',
			description: 'gamma-video-1.5 prefers 16:9 or 9:16',
			hint: `Offered: ${GAMMA_ASPECT_RATIOS.join(', ')}. ${outsideForm}`,
			displayOptions: gamma,
		},
		{
			displayName: 'Generate Audio',
			name: 'generateAudio',
			type: 'boolean',
			default: false,
			description: 'Whether to generate sound (always sent explicitly)',
			displayOptions: delta,
		},
		{
			displayName: 'Watermark',
			name: 'watermark',
			type: 'boolean',
			default: false,
			description: 'Whether to add a watermark (always sent explicitly)',
			displayOptions: delta,
		},
		{
			displayName: 'Reference Image URLs',
			name: 'referenceImages',
			type: 'string',
			default: '',
			placeholder: 'https://cdn.example.com/cat.png',
			description:
				'At most 9. HTTPS addresses, one per line (a comma is part of an address), or an expression giving a list. Tokens @图片1, @图片2, … in this order.',
			hint: MEDIA_NOT_FETCHED,
			displayOptions: delta,
		},
		{
			displayName: 'Reference Video URLs',
			name: 'referenceVideos',
			type: 'string',
			default: '',
			description:
				'At most 3 (exactly one in Edit Mode). Tokens @视频1, … Each: MP4 or MOV, H.264 ' +
				'or H.265, ≤ 200 MB, 3 to 10 s, 24 to 60 FPS, 432 to 2160 px per side, at least ' +
				'407,696 pixels (512x512 fails, 640x640 passes).',
			hint: MEDIA_NOT_FETCHED,
			displayOptions: delta,
		},
		{
			displayName: 'Reference Audio URLs',
			name: 'referenceAudios',
			type: 'string',
			default: '',
			description:
				'At most 3. Tokens @音频1, … Each: MP3 or PCM WAV, ≤ 15 MB, 2 to 30 s. All references together: at most 12.',
			hint: MEDIA_NOT_FETCHED,
			displayOptions: delta,
		},
		{
			displayName: 'First Frame URL',
			name: 'firstFrame',
			type: 'string',
			default: '',
			description:
				'HTTPS image address. Give both first and last frame, and no reference materials.',
			displayOptions: delta,
		},
		{
			displayName: 'Last Frame URL',
			name: 'lastFrame',
			type: 'string',
			default: '',
			description: 'HTTPS image address (with First Frame URL)',
			displayOptions: delta,
		},
		{
			displayName: 'Reference Image URLs',
			name: 'imageUrls',
			type: 'string',
			default: '',
			description:
				'Public image addresses (HTTPS recommended), one per line (a comma is part of ' +
				'an address), or an expression giving a list. At most 7 together with an input ' +
				'reference file; gamma-video-1.0 with several: at most 10 seconds.',
			hint: MEDIA_NOT_FETCHED,
			displayOptions: gamma,
		},
		{
			displayName: 'Input Reference Binary Property',
			name: 'inputReference',
			type: 'string',
			default: '',
			placeholder: 'data',
			description:
				'Optional: the binary property of the input item holding an image, sent as the input_reference file (multipart). Counts towards the 7 reference images.',
			displayOptions: gamma,
		},
		optionsCollection([
			{
				displayName: 'Edit Mode',
				name: 'editMode',
				type: 'boolean',
				default: false,
				description:
					'Whether to edit one reference video (delta, omni_reference_task_type: edit): ' +
					'exactly one reference video and no other material; Seconds -1 follows its length',
			},
			{
				displayName: 'Extra Body Fields (JSON)',
				name: 'extraBody',
				type: 'json',
				default: '{}',
				description:
					"Delta: raw fields merged into the body. Top-level fields replace the node's " +
					'field of the same name (null removes it); metadata is merged and ' +
					"metadata.content items are appended after the node's materials. They are " +
					'checked by the same rules (alias pairs, no aspect_ratio, one text item, …).',
			},
			concurrencyOption(),
			...spendOptions(),
			{
				displayName: 'Return Last Frame',
				name: 'returnLastFrame',
				type: 'boolean',
				default: false,
				description: 'Whether to ask for a last-frame artifact (delta)',
			},
			{
				displayName: 'Seed',
				name: 'seed',
				type: 'number',
				default: -1,
				description:
					'Delta: 0 to 4294967295 to fix the seed (-1: random, not sent). Identical output is not guaranteed.',
			},
			{
				displayName: OUTSIDE_FORM,
				name: 'sendOutsideForm',
				type: 'boolean',
				default: false,
				description:
					'Whether to send a Seconds or (gamma) Aspect Ratio value the form does not ' +
					'offer, e.g. from an expression, instead of refusing it before any request. The ' +
					'gateway may refuse it, adjust it, or charge for it.',
			},
			{
				displayName: 'Submit Timeout (Ms)',
				name: 'submitTimeoutMs',
				type: 'number',
				typeOptions: { minValue: 1 },
				default: 120000,
				description:
					'After this the outcome is unknown: the item is marked submission_uncertain and the POST is not resent',
			},
		]),
	],
});
