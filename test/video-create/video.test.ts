/** Video Create as a node in workflows against the simulator: UI rules, output contract, both families on both origins, faults. */
import type { ILoadOptionsFunctions, INodeExecutionData } from 'n8n-workflow';
import { startSimulator, type Simulator } from '../../simulator';
import { useSimulator } from '../harness/simulator';
import { GenGatewayDownloadResult } from '../../nodes/GenGatewayDownloadResult/GenGatewayDownloadResult.node';
import { GenGatewayTaskWait } from '../../nodes/GenGatewayTaskWait/GenGatewayTaskWait.node';
import { GenGatewayVideoCreate } from '../../nodes/GenGatewayVideoCreate/GenGatewayVideoCreate.node';
import { searchVideoModels } from '../../nodes/shared/methods/listSearch';
import { makeImageBytes } from '../harness/inputs';
import { cleanupBinaryData, runWorkflow, type RunResult, type TestNode } from '../harness/workflow';
import { atRealTime } from '../time-scale';
import { GatewayHttpError } from '../../nodes/shared/errors';
import { refusalWait } from '../../nodes/shared/runners/send';

const sim = useSimulator({ quiet: true, videoLatencyMs: 200, seed: 3 }, { reset: true });
afterAll(async () => {
	cleanupBinaryData();
});

type Params = Record<string, unknown>;
const model = (value: string) => ({ __rl: true, mode: 'id', value });
const creds = (video = false, apiKey = sim.keys.demo) => ({
	apiKey,
	baseUrl: sim.baseUrl,
	...(video ? { videoBaseUrl: sim.altBaseUrl } : {}),
});
const delta = (p: Params = {}, extra: Partial<TestNode> = {}): TestNode => ({
	name: 'Create',
	type: new GenGatewayVideoCreate(),
	parameters: {
		family: 'delta',
		model: model('delta-video-2-0-mini-260615'),
		prompt: 'a paper boat on a river',
		seconds: 5,
		resolution: '480p',
		ratio: '16:9',
		generateAudio: false,
		watermark: false,
		...p,
	},
	...extra,
});
const gamma = (p: Params = {}, extra: Partial<TestNode> = {}): TestNode => ({
	name: 'Create',
	type: new GenGatewayVideoCreate(),
	// version 1.1 (new nodes): a gamma node's model is in gammaModel
	parameters: {
		family: 'gamma',
		gammaModel: model('gamma-video-1.0'),
		prompt: 'a cat',
		gammaSeconds: 8,
		aspectRatio: '16:9',
		...p,
	},
	...extra,
});
const wait = (options: Record<string, unknown> = {}): TestNode => ({
	name: 'Wait',
	type: new GenGatewayTaskWait(),
	parameters: {
		taskId: '={{ $json.task_id }}',
		taskKind: 'auto',
		options: { videoIntervalMs: 1000, ...options },
	},
});
const posts = () => sim.log.filter((l) => l.method === 'POST');
const json = (r: RunResult, i = 0) => r.output('Create')[i].json;
const hintsOf = (r: RunResult) =>
	(r.run.data.resultData.runData.Create?.[0].hints ?? []).map((h) => h.message);
const urls = (n: number, ext = 'png') =>
	Array.from({ length: n }, (_, k) => `https://media.example/${k + 1}.${ext}`);
const errorOf = async (node: TestNode) => {
	const r = await runWorkflow({
		nodes: [{ ...node, onError: 'continueRegularOutput' }],
		credentials: creds(),
	});
	const j = json(r);
	expect(j.error_description).toMatch(/^Nothing was sent to the gateway/);
	return String(j.error);
};
const accepted = async (node: TestNode, video = false) => {
	const r = await runWorkflow({ nodes: [node], credentials: creds(video) });
	expect(r.error).toBeUndefined();
	const j = json(r);
	expect(j).toMatchObject({ kind: 'video', submission_uncertain: false });
	expect(typeof j.task_id).toBe('string');
	return {
		r,
		j,
		task: sim.state.tasks.get(String(j.task_id)) as unknown as Record<string, unknown>,
	};
};

/** [rule, failing fields, message, passing fields] — each through the node's own fields */
const deltaPairs: Array<[string, Params, RegExp, Params]> = [
	['seconds 4 to 15 (low)', { seconds: 3 }, /seconds: 3 is outside 4 to 15/, { seconds: 4 }],
	['seconds 4 to 15 (high)', { seconds: 16 }, /seconds: 16 is outside 4 to 15/, { seconds: 15 }],
	['whole seconds', { seconds: 6.5 }, /seconds: 6\.5 is not a whole number/, { seconds: '6' }],
	[
		'-1 only in edit mode',
		{ seconds: -1, referenceVideos: 'https://media.example/v.mp4' },
		/seconds: -1 \(follow the input length\) is only allowed in edit mode/,
		{ seconds: -1, referenceVideos: 'https://media.example/v.mp4', options: { editMode: true } },
	],
	[
		'1080p refused',
		{ resolution: '1080p' },
		/resolution: "1080p" is not supported \(1080p, 2K and 4K are not\)/,
		{ resolution: '720p' },
	],
	[
		'2K refused',
		{ resolution: '={{ "2K" }}' },
		/resolution: "2K" is not supported/,
		{ resolution: '480p' },
	],
	['4K refused', { resolution: '4K' }, /resolution: "4K" is not supported/, { resolution: '720p' }],
	[
		'adaptive needs an image or video (text)',
		{ ratio: 'adaptive' },
		/ratio: 'adaptive' needs at least one image or video/,
		{ ratio: 'adaptive', referenceImages: 'https://media.example/a.png' },
	],
	[
		'adaptive needs an image or video (audio)',
		{ ratio: 'adaptive', referenceAudios: 'https://media.example/a.mp3' },
		/'adaptive' needs at least one image or video/,
		{ ratio: 'adaptive', referenceVideos: 'https://media.example/v.mp4' },
	],
	[
		'first and last frame both (first only)',
		{ firstFrame: 'https://media.example/f.png' },
		/metadata\.last_frame_image: is missing: a single frame is invalid/,
		{ firstFrame: 'https://media.example/f.png', lastFrame: 'https://media.example/l.png' },
	],
	[
		'first and last frame both (last only)',
		{ lastFrame: 'https://media.example/l.png' },
		/metadata\.first_frame_image: is missing/,
		{
			firstFrame: 'https://media.example/f.png',
			lastFrame: 'https://media.example/l.png',
			ratio: 'adaptive',
		},
	],
	[
		'frames never with references',
		{
			firstFrame: 'https://media.example/f.png',
			lastFrame: 'https://media.example/l.png',
			referenceAudios: 'https://media.example/s.mp3',
		},
		/first\/last frames cannot be mixed with reference images, videos or audio/,
		{ firstFrame: 'https://media.example/f.png', lastFrame: 'https://media.example/l.png' },
	],
	[
		'images ≤ 9',
		{ referenceImages: urls(10) },
		/10 reference images: at most 9/,
		{ referenceImages: urls(9) },
	],
	[
		'videos ≤ 3',
		{ referenceVideos: urls(4, 'mp4') },
		/4 reference videos: at most 3/,
		{ referenceVideos: urls(3, 'mp4') },
	],
	[
		'audio ≤ 3',
		{ referenceAudios: urls(4, 'mp3').join('\n') },
		/4 reference audios: at most 3/,
		{ referenceAudios: urls(3, 'mp3').join('\n') },
	],
	[
		'total ≤ 12',
		{
			referenceImages: urls(9),
			referenceVideos: urls(3, 'mp4'),
			referenceAudios: 'https://media.example/s.mp3',
		},
		/13 references: at most 12 in total/,
		{
			referenceImages: urls(9),
			referenceVideos: urls(2, 'mp4'),
			referenceAudios: 'https://media.example/s.mp3',
		},
	],
	[
		'media HTTPS',
		{ referenceImages: 'http://media.example/a.png' },
		/metadata\.content\[0\]\.image_url\.url: must use https:\/\//,
		{ referenceImages: 'https://media.example/a.png' },
	],
	[
		'media not loopback',
		{ referenceVideos: 'https://127.0.0.1/v.mp4' },
		/video_url\.url: host 127\.0\.0\.1 is a private, loopback/,
		{ referenceVideos: 'https://media.example/v.mp4' },
	],
	[
		'media not localhost',
		{ firstFrame: 'https://localhost/f.png', lastFrame: 'https://media.example/l.png' },
		/metadata\.first_frame_image: host localhost is a local name/,
		{ firstFrame: 'https://media.example/f.png', lastFrame: 'https://media.example/l.png' },
	],
	[
		'media not private',
		{ referenceAudios: 'https://192.168.1.4/s.mp3' },
		/audio_url\.url: host 192\.168\.1\.4 is a private/,
		{ referenceAudios: 'https://media.example/s.mp3' },
	],
	[
		'media without keys',
		{ referenceImages: 'https://media.example/a.png?api_key=abc' },
		/must not carry an API key or token/,
		{ referenceImages: 'https://media.example/a.png?w=640' },
	],
	[
		'media without sk- keys',
		{ referenceImages: 'https://media.example/sk-abcdefgh12345678.png' },
		/sk-… or Bearer/,
		{ referenceImages: 'https://media.example/sketch.png' },
	],
	[
		'media without credentials',
		{ referenceImages: 'https://u:p@media.example/a.png' },
		/must not contain credentials/,
		{ referenceImages: 'https://media.example/a.png' },
	],
	[
		'edit mode: exactly one video, nothing else',
		{
			options: { editMode: true },
			referenceVideos: 'https://media.example/v.mp4',
			referenceImages: 'https://media.example/a.png',
		},
		/omni_reference_task_type: edit mode needs exactly one reference video and no other material/,
		{ options: { editMode: true }, referenceVideos: 'https://media.example/v.mp4', seconds: 8 },
	],
	[
		'edit mode: not two videos',
		{ options: { editMode: true }, referenceVideos: urls(2, 'mp4') },
		/edit mode needs exactly one reference video/,
		{ options: { editMode: true }, referenceVideos: urls(1, 'mp4') },
	],
	[
		'seed range (high)',
		{ options: { seed: 4294967296 } },
		/seed: 4294967296: must be an integer from -1 to 4294967295/,
		{ options: { seed: 4294967295 } },
	],
	[
		'seed range (low)',
		{ options: { seed: -7 } },
		/seed: -7: must be an integer/,
		{ options: { seed: 0 } },
	],
	[
		'prompt ≤ 6000 characters',
		{ prompt: 'x'.repeat(6001) },
		/prompt: is 6001 characters; at most 6000/,
		{ prompt: '河'.repeat(6000) },
	],
	[
		'prompt not empty',
		{ prompt: '={{ $json.nothing }}' },
		/prompt: must not be empty/,
		{ prompt: '={{ "a boat" }}' },
	],
	[
		'ratio, never aspect_ratio',
		{ options: { extraBody: '{"aspect_ratio":"16:9"}' } },
		/aspect_ratio: use 'ratio', never 'aspect_ratio'/,
		{ ratio: '9:16' },
	],
	[
		'seconds/duration never both',
		{ options: { extraBody: '{"duration":5}' } },
		/duration: is given again \(seconds, duration\)/,
		{ options: { extraBody: '{"seconds":6}' } },
	],
	[
		'seconds/duration never conflicting',
		{ options: { extraBody: '{"duration":6}' } },
		/duration: conflicts with seconds/,
		{ options: { extraBody: '{"duration":6,"seconds":null}' } },
	],
	[
		'resolution/size never both',
		{ options: { extraBody: '{"size":"480p"}' } },
		/size: is given again \(resolution, size\)/,
		{ options: { extraBody: '{"resolution":"720p"}' } },
	],
	[
		'resolution/size never conflicting',
		{ options: { extraBody: '{"size":"720p"}' } },
		/size: conflicts with resolution/,
		{ resolution: '720p' },
	],
	[
		'images shorthand never with metadata.content',
		{
			referenceImages: 'https://media.example/a.png',
			options: { extraBody: '{"images":["https://media.example/b.png"]}' },
		},
		/images: the images shorthand cannot be mixed with metadata\.content/,
		{ options: { extraBody: '{"images":["https://media.example/b.png"]}' } },
	],
	[
		'one text item at most',
		{
			prompt: '',
			options: {
				extraBody:
					'{"metadata":{"content":[{"type":"text","text":"x"},{"type":"text","text":"y"}]}}',
			},
		},
		/metadata\.content: holds 2 text items: at most one/,
		{
			prompt: '',
			options: { extraBody: '{"metadata":{"content":[{"type":"text","text":"a boat"}]}}' },
		},
	],
	[
		'a text item never with prompt',
		{ options: { extraBody: '{"metadata":{"content":[{"type":"text","text":"x"}]}}' } },
		/prompt: cannot be sent together with a text item/,
		{
			options: {
				extraBody:
					'{"metadata":{"content":[{"type":"image_url","image_url":{"url":"https://media.example/x.png"},"role":"reference_image"}]}}',
			},
		},
	],
	[
		'return_last_frame a boolean',
		{ options: { extraBody: '{"return_last_frame":"yes"}' } },
		/return_last_frame: must be true or false/,
		{ options: { returnLastFrame: true } },
	],
	[
		'generate_audio/watermark explicit booleans',
		{ generateAudio: '={{ "yes" }}' },
		// read by the one yes/no rule before the body is built ("true"/"false" text and 1/0 are read; "yes" is refused)
		/Generate Audio: must be true or false/,
		{ generateAudio: true, watermark: true },
	],
	[
		'a delta model',
		{ model: model('gamma-video-1.0') },
		/model: must be delta-video-2-0-mini-260615 or delta-video-2-0-fast-260128/,
		{ model: model('delta-video-2-0-fast-260128') },
	],
];

describe('Video Create (delta): every rule refused before sending, and accepted when met', () => {
	it.each(deltaPairs)('%s', async (_rule, fail, message, pass) => {
		expect(await errorOf(delta(fail))).toMatch(message);
		expect(posts()).toHaveLength(0);
		await accepted(delta(pass));
		expect(posts()).toHaveLength(1);
	});

	it("the credential's own key inside a media address is refused and never echoed", async () => {
		const err = await errorOf(
			delta({ referenceImages: `https://media.example/a.png?v=${sim.keys.demo}` }),
		);
		expect(err).toMatch(/must not carry an API key \(it contains the credential's key\)/);
		expect(err).not.toContain(sim.keys.demo);
		expect(posts()).toHaveLength(0);
	});

	it('all violations are reported at once, each with its field', async () => {
		const err = await errorOf(
			delta({
				seconds: 20,
				resolution: '4K',
				prompt: 'y'.repeat(6001),
				ratio: 'adaptive',
				referenceImages: 'http://a.example/x.png',
				firstFrame: 'https://media.example/f.png',
				options: { seed: -9, extraBody: '{"aspect_ratio":"1:1"}' },
			}),
		);
		expect(err).toMatch(/^8 problems: /);
		for (const field of [
			'prompt',
			'seconds',
			'resolution',
			'seed',
			'aspect_ratio',
			'metadata.content[0].image_url.url',
			'metadata.last_frame_image',
			'metadata.first_frame_image',
		])
			expect(err).toContain(`${field}: `);
		expect(posts()).toHaveLength(0);
	});

	it('Extra Body Fields that are not a JSON object are refused', async () => {
		expect(await errorOf(delta({ options: { extraBody: '{"seconds": 6' } }))).toMatch(
			/Extra Body Fields: must be a JSON object \(the text is not valid JSON\)/,
		);
		expect(posts()).toHaveLength(0);
	});

	it('a definite refusal by the gateway is an error (continueOnFail: an error item), sent once', async () => {
		const r = await runWorkflow({
			nodes: [delta({ referenceImages: 'https://media.example/login/a.png' })],
			credentials: creds(),
		});
		expect(r.error).toMatch(/needs a login/);
		const c = await runWorkflow({
			nodes: [
				delta(
					{ model: model('delta-video-2-0-fast-260128') },
					{ onError: 'continueRegularOutput' },
				),
			],
			credentials: creds(false, sim.keys.limited),
		});
		expect(json(c)).toMatchObject({ http_code: '403' });
		expect(posts()).toHaveLength(2);
	});
});

describe('Video Create (delta): body, materials and output', () => {
	it('materials go into metadata.content in order and the output names their tokens', async () => {
		const { j, task } = await accepted(
			delta({
				prompt: 'make @图片1 and @图片2 dance to @音频1 like @视频1',
				ratio: 'adaptive',
				referenceImages: '={{ ["https://media.example/a.png", "https://media.example/b.png"] }}',
				referenceVideos: 'https://media.example/v.mp4',
				referenceAudios: 'https://media.example/s.mp3',
			}),
		);
		expect(j.materials).toEqual([
			{
				type: 'image',
				role: 'reference_image',
				url: 'https://media.example/a.png',
				token: '@图片1',
			},
			{
				type: 'image',
				role: 'reference_image',
				url: 'https://media.example/b.png',
				token: '@图片2',
			},
			{
				type: 'video',
				role: 'reference_video',
				url: 'https://media.example/v.mp4',
				token: '@视频1',
			},
			{
				type: 'audio',
				role: 'reference_audio',
				url: 'https://media.example/s.mp3',
				token: '@音频1',
			},
		]);
		expect(j.with_reference_video).toBe(true);
		expect(task).toMatchObject({
			family: 'delta',
			withRefVideo: true,
			seconds: 5,
			resolution: '480p',
		});
	});

	it('materials from input item expressions, one item each', async () => {
		const input = [
			{ json: { refs: ['https://media.example/1.png'] } },
			{ json: { refs: ['https://media.example/2.png', 'https://media.example/3.png'] } },
		];
		const r = await runWorkflow({
			nodes: [delta({ referenceImages: '={{ $json.refs }}' })],
			input,
			credentials: creds(),
		});
		expect(
			r
				.output('Create')
				.map((o) => (o.json.materials as Array<{ token: string }>).map((m) => m.token)),
		).toEqual([['@图片1'], ['@图片1', '@图片2']]);
		expect(r.output('Create').map((o) => o.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
		expect(posts()).toHaveLength(2);
	});

	it('the output contract Task Wait reads', async () => {
		const { j } = await accepted(delta({ seconds: 8, resolution: '720p' }));
		expect(j).toMatchObject({
			kind: 'video',
			family: 'delta',
			model: 'delta-video-2-0-mini-260615',
			status: 'submitted',
			gateway: { status: 'queued' },
			origin: 'base',
			origin_url: sim.baseUrl,
			submission_uncertain: false,
			materials: [],
			with_reference_video: false,
		});
		expect(j.task_id).toMatch(/^[A-Za-z0-9_-]{1,200}$/);
		expect(j.task).toMatchObject({
			id: j.task_id,
			object: 'video',
			status: 'queued',
			seconds: '8',
			size: '720p',
		});
	});

	it("the clip's price before sending: an estimate from resolution and duration at the key's multiplier, with and without a reference video", async () => {
		const { r, j } = await accepted(delta({ options: { groupRatio: 1 } }));
		// 5 s at 480p, 24 fps, 864×480: 48600 video tokens × 11.638 per 1M × 1 × 500000 ¤ = ¤282803
		expect(j.cost).toMatchObject({
			status: 'estimate',
			basis: 'per video token',
			quota: 282803,
			video_tokens_estimate: 48600,
			group_multiplier: 1,
		});
		expect(String((j.cost as Record<string, unknown>).note)).toMatch(/an estimate, not a bound/);
		expect(hintsOf(r).join('\n')).toMatch(
			/This node: \$0\.57 \(¤282803\) \(an estimate, not a bound: see each cost\).*spent \$0\.57 \(¤282803\) \(an estimate, not a bound\) so far/,
		);
		const withVideo = await accepted(
			delta({ referenceVideos: 'https://media.example/v.mp4', options: { groupRatio: 1 } }),
		);
		// the reference-video price: 48600 × 7.084 per 1M × 500000 = ¤172141
		expect(withVideo.j.cost).toMatchObject({ status: 'estimate', quota: 172141 });
		expect(String((withVideo.j.cost as Record<string, unknown>).note)).toMatch(
			/plus the reference videos \(not counted\)/,
		);
		const pricingCalls = sim.log.filter((l) => l.path === '/api/pricing');
		expect(pricingCalls.every((l) => !l.auth)).toBe(true);
	});

	it('without the multiplier the price is a range up to the highest published group, never the cheapest alone', async () => {
		const { j } = await accepted(delta());
		const cost = j.cost as Record<string, number | string>;
		expect(cost).toMatchObject({ status: 'estimate', group_multiplier: null });
		expect(Number(cost.quota_low)).toBeLessThan(Number(cost.quota));
		expect(String(cost.text)).toMatch(/^\$[\d.]+–\$[\d.]+ \(¤\d+–¤\d+\)$/);
	});

	it('pricing unavailable: the cost is unknown (never 0), the task is still created', async () => {
		sim.fault({ route: 'GET /api/pricing', kind: 'status', status: 404 });
		const { j } = await accepted(delta());
		expect(j.cost).toMatchObject({ status: 'unknown', quota: null });
	});

	it('a price list that hangs never holds the created task: the item comes out with its cost unknown, the list asked once', async () => {
		sim.fault({ route: 'GET /api/pricing', kind: 'delay', delayMs: 20_000 });
		const { j } = await accepted(delta());
		expect(j.cost).toMatchObject({
			status: 'unknown',
			quota: null,
			note: expect.stringMatching(/price list could not be read \(.*\)/),
		});
		expect(sim.log.filter((l) => l.path === '/api/pricing')).toHaveLength(1);
	});
});

describe('Video Create (gamma)', () => {
	it.each([
		[
			'whole seconds',
			{ gammaSeconds: '={{ 7.5 }}' },
			/seconds: 7\.5: must be a whole number of seconds/,
			{ gammaSeconds: 15 },
		],
		[
			'up to 7 reference images',
			{ imageUrls: urls(8) },
			/image_urls: 8 reference images: at most 7/,
			{ imageUrls: urls(7), gammaSeconds: 10 },
		],
		[
			'gamma-video-1.0 with several references: at most 10 s',
			{ imageUrls: urls(2).join('\n'), gammaSeconds: 12 },
			/seconds: 12: gamma-video-1\.0 with several reference images allows at most 10 seconds/,
			{ imageUrls: urls(2).join('\n'), gammaSeconds: 10 },
		],
		[
			'aspect ratio as text',
			{ aspectRatio: '={{ 16 }}' },
			/aspect_ratio: 16: must be a ratio text/,
			{ aspectRatio: '9:16' },
		],
		['prompt not empty', { prompt: ' ' }, /prompt: must not be empty/, { prompt: 'a dog' }],
		[
			'reference addresses public',
			{ imageUrls: 'https://10.0.0.1/a.png' },
			/image_urls\[0\]: host 10\.0\.0\.1 is a private/,
			{ imageUrls: 'https://media.example/a.png' },
		],
		[
			'a gamma model',
			{ gammaModel: model('delta-video-2-0-mini-260615') },
			/model: must be gamma-video-1\.0 or gamma-video-1\.5/,
			{ gammaModel: model('gamma-video-1.5') },
		],
	] as Array<[string, Params, RegExp, Params]>)('%s', async (_rule, fail, message, pass) => {
		expect(await errorOf(gamma(fail))).toMatch(message);
		expect(posts()).toHaveLength(0);
		const { j, task } = await accepted(gamma(pass));
		expect(j.family).toBe('gamma');
		expect(task).toMatchObject({ family: 'gamma' });
	});

	it('4 seconds is sent only with Send Values Outside the Form, with a hint that it is unconfirmed upstream; 1.5 prefers 16:9 or 9:16; http references are hinted', async () => {
		expect(await errorOf(gamma({ gammaSeconds: '={{ 4 }}' }))).toMatch(
			/seconds: 4 is not one the form offers/,
		);
		expect(posts()).toHaveLength(0);
		const four = await accepted(
			gamma({ gammaSeconds: '={{ 4 }}', options: { sendOutsideForm: true } }),
		);
		expect(hintsOf(four.r).join('\n')).toMatch(
			/4 seconds passes the gateway's validation but is not confirmed upstream/,
		);
		expect(four.task.seconds).toBe(4);
		const square = await accepted(
			gamma({
				gammaModel: model('gamma-video-1.5'),
				aspectRatio: '1:1',
				imageUrls: 'http://media.example/a.png',
			}),
		);
		expect(hintsOf(square.r).join('\n')).toMatch(
			/16:9 or 9:16 are preferred[\s\S]*use http:\/\/; public HTTPS addresses are recommended/,
		);
		// gamma-video-1.5: model_price 0.5 × the lowest public group vip 0.8 = $0.4, up to the highest published group
		expect(square.j.cost).toMatchObject({
			status: 'range',
			basis: 'per call',
			quota_low: 200000,
			amount_low: 0.4,
		});
	});

	it('an input_reference file is sent as multipart and counts towards the 7 references', async () => {
		const png = await makeImageBytes('png');
		const input = [
			{
				json: {},
				binary: {
					ref: {
						data: png.toString('base64'),
						mimeType: 'application/octet-stream',
						fileName: 'r.png',
					},
				},
			},
		];
		const r = await runWorkflow({
			nodes: [gamma({ inputReference: 'ref', imageUrls: urls(6), gammaSeconds: 10 })],
			input,
			credentials: creds(),
		});
		expect(r.error).toBeUndefined();
		const j = json(r);
		expect(j.materials).toEqual([
			...urls(6).map((url) => ({ type: 'image', role: 'reference_image', url })),
			{ type: 'image', role: 'input_reference', file: 'r.png' },
		]);
		expect(sim.state.tasks.get(String(j.task_id))).toMatchObject({
			family: 'gamma',
			model: 'gamma-video-1.0',
			seconds: 10,
		});
		const over = await runWorkflow({
			nodes: [
				gamma(
					{ inputReference: 'ref', imageUrls: urls(7), gammaSeconds: 10 },
					{ onError: 'continueRegularOutput' },
				),
			],
			input,
			credentials: creds(),
		});
		expect(String(json(over).error)).toMatch(
			/image_urls: 8 reference images \(incl\. 1 input_reference file\): at most 7/,
		);
		expect(posts()).toHaveLength(1);
	});

	it('an input_reference that is missing or not an image is refused before sending', async () => {
		const input = [
			{
				json: {},
				binary: {
					ref: {
						data: Buffer.from('not an image').toString('base64'),
						mimeType: 'image/png',
						fileName: 'r.png',
					},
				},
			},
		];
		const bad = await runWorkflow({
			nodes: [gamma({ inputReference: 'ref' }, { onError: 'continueRegularOutput' })],
			input,
			credentials: creds(),
		});
		expect(String(json(bad).error)).toMatch(
			/Input Reference Binary Property: binary "ref" \(.*\) is not an image the package can read/,
		);
		const missing = await runWorkflow({
			nodes: [gamma({ inputReference: 'nope' }, { onError: 'continueRegularOutput' })],
			input,
			credentials: creds(),
		});
		expect(String(json(missing).error)).toMatch(/no binary property "nope" \(it has: ref\)/);
		expect(posts()).toHaveLength(0);
	});
});

describe('model picker', () => {
	const ctx = (family?: string) =>
		({
			getCredentials: async () => creds(),
			getNode: () => ({ name: 'x' }),
			getCurrentNodeParameter: (n: string) => (n === 'family' ? family : undefined),
		}) as unknown as ILoadOptionsFunctions;
	it("lists the key's video models of the chosen family", async () => {
		expect((await searchVideoModels.call(ctx('delta'))).results.map((x) => x.value)).toEqual([
			'delta-video-2-0-fast-260128',
			'delta-video-2-0-mini-260615',
		]);
		expect((await searchVideoModels.call(ctx('gamma'), '1.5')).results.map((x) => x.value)).toEqual(
			['gamma-video-1.5'],
		);
		expect((await searchVideoModels.call(ctx(undefined))).results).toHaveLength(4);
	});
});

describe('end to end: create → simulator ledger and log → Task Wait, on both origins', () => {
	const ledgerOf = (id: unknown) => sim.ledger.filter((l) => l.taskId === id).map((l) => l.kind);

	it("without the key's multiplier, Task Wait's fee is a range (never settled) whose highest end is not below the charge", async () => {
		const r = await runWorkflow({ nodes: [delta(), wait()], credentials: creds() });
		const done = r.output('Wait', 0)[0].json;
		const fee = done.fee as Record<string, unknown>;
		expect(fee).toMatchObject({ status: 'range', group_ratio: null });
		expect(done.cost).toMatchObject({ status: 'range' });
		// the demo key's group is hd (1.5): the charge lies within the range, and the record counts its highest end
		const charged = sim.charged({ taskId: String(done.task_id) });
		expect(Number(fee.fee_quota_low)).toBeLessThanOrEqual(charged);
		expect(Number(fee.fee_quota)).toBeGreaterThanOrEqual(charged);
		expect(
			Number((r.run.data.resultData.metadata as Record<string, string>).gengateway_spent),
		).toBeGreaterThanOrEqual(charged);
	});

	it.each([false, true])(
		'delta (alternative origin: %s): reserved at creation, settled on completion, queried and downloaded on the same origin',
		async (alt) => {
			const r = await runWorkflow({
				nodes: [
					delta({ referenceImages: 'https://media.example/a.png', ratio: 'adaptive' }),
					wait({ groupRatio: 1.5 }),
				],
				credentials: creds(alt),
			});
			expect(r.error).toBeUndefined();
			const created = json(r);
			const server = alt ? 'alt' : 'gateway';
			expect(created).toMatchObject({
				origin: alt ? 'video' : 'base',
				origin_url: alt ? sim.altBaseUrl : sim.baseUrl,
			});
			expect(sim.state.tasks.get(String(created.task_id))).toMatchObject({
				server,
				family: 'delta',
				owner: 'demo',
			});
			const done = r.output('Wait', 0)[0];
			expect(done.json).toMatchObject({
				status: 'completed',
				kind: 'video',
				family: 'delta',
				task_id: created.task_id,
			});
			// the key's group multiplier (1.5) given: the fee is settled at it and equals the ledger's settlement
			const fee = done.json.fee as Record<string, unknown>;
			expect(fee).toMatchObject({ status: 'settled', group_ratio: 1.5 });
			const charged = sim.ledger
				.filter(
					(l) => l.taskId === created.task_id && (l.kind === 'reserve' || l.kind === 'settle'),
				)
				.reduce((sum, l) => sum + l.amount, 0);
			expect(fee.fee_quota).toBe(charged);
			expect((await r.binaryBuffer(done)).subarray(4, 8).toString('latin1')).toBe('ftyp');
			expect(ledgerOf(created.task_id)).toEqual(['reserve', 'settle']);
			const videoCalls = sim.log.filter((l) => l.path.startsWith('/v1/videos'));
			expect(videoCalls.filter((l) => l.method === 'POST')).toHaveLength(1);
			expect(videoCalls.every((l) => l.server === server && l.auth && l.keyName === 'demo')).toBe(
				true,
			);
			expect(sim.log.filter((l) => l.server === 'result' && l.auth)).toHaveLength(0);
		},
	);

	it.each([false, true])(
		'gamma (alternative origin: %s): charged per call, polled and fetched from the result host without the key',
		async (alt) => {
			const r = await runWorkflow({
				nodes: [gamma({ imageUrls: 'https://media.example/a.png' }), wait()],
				credentials: creds(alt),
			});
			const created = json(r);
			expect(created).toMatchObject({
				family: 'gamma',
				origin: alt ? 'video' : 'base',
				origin_url: alt ? sim.altBaseUrl : sim.baseUrl,
				submission_uncertain: false,
			});
			expect(sim.state.tasks.get(String(created.task_id))).toMatchObject({
				server: alt ? 'alt' : 'gateway',
				family: 'gamma',
			});
			expect(r.output('Wait', 0)[0].json).toMatchObject({
				status: 'completed',
				task_id: created.task_id,
			});
			expect(r.output('Wait', 0)[0].binary?.data.mimeType).toBe('video/mp4');
			expect(ledgerOf(created.task_id)).toEqual(['charge']);
			expect(
				sim.log
					.filter((l) => l.path.startsWith('/v1/videos'))
					.every((l) => l.server === (alt ? 'alt' : 'gateway')),
			).toBe(true);
			expect(sim.log.filter((l) => l.server === 'result').every((l) => !l.auth)).toBe(true);
		},
	);

	it('gamma multipart on the alternative origin', async () => {
		const input = [
			{
				json: {},
				binary: {
					ref: {
						data: (await makeImageBytes('jpeg')).toString('base64'),
						mimeType: 'image/jpeg',
						fileName: 'r.jpg',
					},
				},
			},
		];
		const r = await runWorkflow({
			nodes: [gamma({ inputReference: 'ref', gammaModel: model('gamma-video-1.5') }), wait()],
			input,
			credentials: creds(true),
		});
		expect(json(r)).toMatchObject({ origin: 'video', submission_uncertain: false });
		expect(r.output('Wait', 0)).toHaveLength(1);
		expect(posts().map((l) => l.server)).toEqual(['alt']);
	});

	it('gamma: every response variant (ID, status, URL and failure placements) is understood', async () => {
		const input = Array.from({ length: 10 }, (_, k) => ({
			json: { p: k % 5 === 4 ? 'doomed [fail]' : `cat ${k}` },
		}));
		const r = await runWorkflow({
			nodes: [gamma({ prompt: '={{ $json.p }}' }), wait()],
			input,
			credentials: creds(),
		});
		const [ok, failed, running] = r.outputs('Wait');
		expect(running).toHaveLength(0);
		expect(ok).toHaveLength(8);
		expect(failed).toHaveLength(2);
		for (const f of failed) expect(String(f.json.error)).toMatch(/moderation/);
		for (const o of ok) expect(o.binary?.data.mimeType).toBe('video/mp4');
	});

	it('an `unknown` status before pickup keeps polling; a silent failure is reported', async () => {
		sim.fault({ route: 'POST /v1/videos', kind: 'video-unknown', polls: 3 });
		const r = await runWorkflow({ nodes: [delta(), wait()], credentials: creds() });
		expect(r.output('Wait', 0)).toHaveLength(1);
		const s = await runWorkflow({
			nodes: [delta({ prompt: 'x [fail-silent]' }), wait()],
			credentials: creds(),
		});
		expect(String(s.output('Wait', 1)[0].json.error)).toMatch(/without an error message/);
	});
});

describe('no duplicate POST under faults: an uncertain outcome is an item, never a throw', () => {
	const uncertain = (j: INodeExecutionData['json']) =>
		expect(j).toMatchObject({
			submission_uncertain: true,
			status: 'uncertain',
			kind: 'video',
			note: expect.stringMatching(/not resent: check the usage records/),
		});

	it('reset after the task was created and charged', async () => {
		sim.fault({ route: 'POST /v1/videos', kind: 'reset-after' });
		const r = await runWorkflow({ nodes: [delta()], credentials: creds() });
		expect(r.error).toBeUndefined();
		uncertain(json(r));
		expect(json(r).task_id).toBeNull();
		expect(String(json(r).reason)).toMatch(/may have accepted it/);
		expect(posts()).toHaveLength(1);
		expect(sim.ledger.filter((l) => l.kind === 'reserve')).toHaveLength(1);
	});

	it('reset before a task exists', async () => {
		sim.fault({ route: 'POST /v1/videos', kind: 'reset-before' });
		const r = await runWorkflow({ nodes: [gamma()], credentials: creds(true) });
		uncertain(json(r));
		expect(json(r).origin).toBe('video');
		expect(posts()).toHaveLength(1);
		expect(sim.ledger).toHaveLength(0);
	});

	it('5xx without a task ID', async () => {
		sim.fault({ route: 'POST /v1/videos', kind: 'status', status: 502 });
		const r = await runWorkflow({ nodes: [delta()], credentials: creds() });
		uncertain(json(r));
		expect(json(r)).toMatchObject({
			http_status: 502,
			reason: expect.stringMatching(/HTTP 502 without a task ID/),
		});
		expect(posts()).toHaveLength(1);
	});

	it('5xx that carries a task ID keeps the ID to query', async () => {
		sim.fault({
			route: 'POST /v1/videos',
			kind: 'status',
			status: 503,
			body: { id: 'vid_from_503', status: 'queued', error: { message: 'upstream slow' } },
		});
		const r = await runWorkflow({ nodes: [delta()], credentials: creds() });
		expect(json(r)).toMatchObject({
			task_id: 'vid_from_503',
			http_status: 503,
			submission_uncertain: false,
		});
		expect(posts()).toHaveLength(1);
	});

	it('a timeout (multipart too)', async () => {
		sim.fault({ route: 'POST /v1/videos', kind: 'delay', delayMs: 2000, times: 2 });
		const t = await runWorkflow({
			nodes: [delta({ options: { submitTimeoutMs: 200 } })],
			credentials: creds(),
		});
		uncertain(json(t));
		expect(String(json(t).reason)).toMatch(/timed out/);
		const input = [
			{
				json: {},
				binary: {
					ref: {
						data: (await makeImageBytes('png')).toString('base64'),
						mimeType: 'image/png',
						fileName: 'r.png',
					},
				},
			},
		];
		const g = await runWorkflow({
			nodes: [gamma({ inputReference: 'ref', options: { submitTimeoutMs: 200 } })],
			input,
			credentials: creds(),
		});
		uncertain(json(g));
		expect(posts()).toHaveLength(2);
	});

	it('an uncertain item does not stop the others; every item is sent once and paired', async () => {
		sim.fault({ route: 'POST /v1/videos', kind: 'reset-after' });
		const input = [{ json: { p: 'one' } }, { json: { p: 'two' } }, { json: { p: 'three' } }];
		const r = await runWorkflow({
			nodes: [delta({ prompt: '={{ $json.p }}' })],
			input,
			credentials: creds(),
		});
		const out = r.output('Create');
		expect(out.map((o) => o.json.submission_uncertain)).toEqual([true, false, false]);
		expect(out.map((o) => o.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(posts()).toHaveLength(3);
		expect(sim.ledger.filter((l) => l.kind === 'reserve')).toHaveLength(3);
	});

	it('a 2xx answer without a task ID is uncertain too', async () => {
		sim.fault({
			route: 'POST /v1/videos',
			kind: 'status',
			status: 200,
			body: { status: 'queued' },
		});
		const r = await runWorkflow({ nodes: [delta()], credentials: creds() });
		expect(json(r)).toMatchObject({
			task_id: null,
			submission_uncertain: true,
			reason: 'HTTP 200 without a task ID',
			task: { status: 'queued' },
		});
		expect(posts()).toHaveLength(1);
	});

	it('Task Wait routes an uncertain creation without a task ID to Failed without polling or resending', async () => {
		sim.fault({ route: 'POST /v1/videos', kind: 'reset-after' });
		const r = await runWorkflow({ nodes: [delta(), wait()], credentials: creds(true) });
		expect(r.error).toBeUndefined();
		expect(r.output('Wait', 1)[0].json).toMatchObject({
			status: 'uncertain',
			submission_uncertain: true,
			reason: expect.stringMatching(/submission outcome unknown and no task ID/),
		});
		expect(sim.log.filter((l) => l.path.startsWith('/v1/videos')).map((l) => l.method)).toEqual([
			'POST',
		]);
	});

	// the one real-time test of "a refused paid request goes again after its Retry-After": 2 s, not the 1 s the rule
	// waits at least whatever Retry-After says (MIN_REFUSAL_WAIT_MS), nor the back-off it waits without one
	it(
		'429 created nothing: the POST goes again after its Retry-After, and the task is created once',
		atRealTime(async () => {
			expect(
				refusalWait(
					new GatewayHttpError(429, 'slow down', undefined, 'POST', '/v1/videos'),
					1,
					() => 1,
				),
			).toBeLessThan(2000);
			sim.fault({ route: 'POST /v1/videos', kind: 'rate-limit', retryAfter: 2 });
			const t = Date.now();
			const r = await runWorkflow({
				nodes: [delta({}, { onError: 'continueRegularOutput' })],
				credentials: creds(),
			});
			expect(json(r)).toMatchObject({
				submission_uncertain: false,
				task_id: expect.stringMatching(/^[A-Za-z0-9_-]+$/),
			});
			expect(Date.now() - t).toBeGreaterThanOrEqual(2000);
			expect(posts().map((p) => p.status)).toEqual([429, 200]);
			expect(sim.ledger.filter((l) => l.kind === 'reserve')).toHaveLength(1);
		}),
	);
});

describe('Download Result and large videos', () => {
	it('Download Result re-downloads a finished delta video by task ID; a download cut once is retried; one cut every time is an error saying to download later', async () => {
		const r = await runWorkflow({ nodes: [delta(), wait()], credentials: creds() });
		const id = r.output('Wait', 0)[0].json.task_id;
		const dl = (extra: Partial<TestNode> = {}): TestNode => ({
			name: 'DL',
			type: new GenGatewayDownloadResult(),
			parameters: { source: 'videoTask', taskId: id, origin: 'base' },
			...extra,
		});
		const ok = await runWorkflow({ nodes: [dl()], credentials: creds() });
		expect(ok.output('DL')[0].binary?.data.mimeType).toBe('video/mp4');
		sim.fault({ route: 're:/content$', kind: 'truncate' });
		const again = await runWorkflow({ nodes: [dl()], credentials: creds() });
		expect(again.output('DL')[0].binary?.data.mimeType).toBe('video/mp4');
		sim.fault({ route: 're:/content$', kind: 'truncate', times: -1 });
		const bad = await runWorkflow({
			nodes: [dl({ onError: 'continueRegularOutput' })],
			credentials: creds(),
		});
		expect(String(bad.output('DL')[0].json.error)).toMatch(
			/download it later with GenGateway Download Result/,
		);
		sim.clearFaults();
	});

	describe('large video download', () => {
		let big: Simulator;
		beforeAll(async () => {
			big = await startSimulator({
				quiet: true,
				videoLatencyMs: 50,
				videoBytes: 300 * 1024 * 1024,
			});
		});
		afterAll(() => big.stop());

		it('a 300 MB video goes to disk with the process memory staying flat', async () => {
			const c = { apiKey: big.keys.demo, baseUrl: big.baseUrl };
			const created = await runWorkflow({ nodes: [delta()], credentials: c });
			global.gc?.();
			const before = process.memoryUsage().rss;
			let peak = before;
			const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
			const r = await runWorkflow({
				nodes: [wait()],
				input: created.output('Create'),
				credentials: c,
			});
			clearInterval(timer);
			const done = r.output('Wait', 0)[0];
			expect((done.json.files as Array<{ bytes: number }>)[0].bytes).toBe(300 * 1024 * 1024);
			expect(peak - before).toBeLessThan(120 * 1024 * 1024);
		}, 120_000);
	});
});
