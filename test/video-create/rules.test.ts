/**
 * The video request rules on raw bodies: every rule with failing and passing bodies. Passing bodies are
 * then sent to the simulator (the gateway's stand-in) and must be accepted there; failing bodies that the
 * gateway also checks must be refused there too, so our rules and the gateway's agree.
 */
import { useSimulator } from '../harness/simulator';
import { GatewayHttpError, InputRuleError } from '../../nodes/shared/errors';
import { normaliseBaseUrl } from '../../nodes/shared/transport/baseUrl';
import { GatewayTransport } from '../../nodes/shared/transport';
import { parseOrThrow } from '../../nodes/shared/validate';
import { buildGammaForm } from '../../nodes/GenGatewayVideoCreate/actions/body';
import { deltaSchema } from '../../nodes/GenGatewayVideoCreate/actions/deltaSchema';
import { gammaSchema } from '../../nodes/GenGatewayVideoCreate/actions/gammaSchema';
import { makeImageBytes } from '../harness/inputs';
import { aud, content, img, many, text, vid } from '../fixtures/video-rules';

type Obj = Record<string, unknown>;
const sim = useSimulator({ quiet: true, videoLatencyMs: 60_000 });
let transport: GatewayTransport;
beforeAll(async () => {
	transport = new GatewayTransport({ apiKey: sim.keys.demo, base: normaliseBaseUrl(sim.baseUrl) });
});

const MINI = 'delta-video-2-0-mini-260615';
const B: Obj = {
	model: MINI,
	prompt: 'a paper boat on a river',
	seconds: 5,
	resolution: '480p',
	ratio: '16:9',
	generate_audio: false,
	watermark: false,
};
/** the base body with changes; a change to undefined removes the field */
const d = (changes: Obj = {}): Obj =>
	Object.fromEntries(Object.entries({ ...B, ...changes }).filter(([, v]) => v !== undefined));
/** [name, body, rule the message must match, whether the gateway checks it too] */
type Refused = [string, Obj, RegExp, boolean?];
const deltaRefused: Refused[] = [
	// the gateway reads this body as a gamma request and, gamma's seconds being only preferred, accepts it
	[
		'model outside the delta family',
		d({ model: 'gamma-video-1.0' }),
		/^model: must be delta-video-2-0-mini-260615 or delta-video-2-0-fast-260128/,
		false,
	],
	[
		'aspect_ratio instead of ratio',
		d({ aspect_ratio: '16:9' }),
		/^aspect_ratio: use 'ratio', never 'aspect_ratio'/,
	],
	[
		'aspect_ratio inside metadata',
		d({ metadata: { aspect_ratio: '16:9' } }),
		/^metadata\.aspect_ratio: use 'ratio'/,
	],
	[
		'seconds and duration, same value',
		d({ duration: 5 }),
		/^duration: is given again \(seconds, duration\)/,
	],
	[
		'seconds and duration, conflicting',
		d({ duration: 6 }),
		/^duration: conflicts with seconds \(seconds=5, duration=6\)/,
	],
	[
		'seconds at top level and in metadata',
		d({ metadata: { seconds: 5 } }),
		/^metadata\.seconds: is given again/,
	],
	[
		'seconds and metadata.duration',
		d({ metadata: { duration: 8 } }),
		/^metadata\.duration: conflicts with seconds/,
	],
	[
		'resolution and size, same value',
		d({ size: '480p' }),
		/^size: is given again \(resolution, size\)/,
	],
	['resolution and size, conflicting', d({ size: '720p' }), /^size: conflicts with resolution/],
	[
		'a parameter both at top level and in metadata',
		d({ metadata: { watermark: false } }),
		/^metadata\.watermark: is also given at top level/,
	],
	[
		'ratio not in the list',
		d({ ratio: '2:1' }),
		/^ratio: "2:1" must be one of 16:9, 9:16, 1:1, 4:3, 3:4, 21:9, adaptive/,
	],
	[
		'adaptive with text only',
		d({ ratio: 'adaptive' }),
		/^ratio: 'adaptive' needs at least one image or video input/,
	],
	[
		'adaptive with audio only',
		d({ ratio: 'adaptive', ...content(aud()) }),
		/^ratio: 'adaptive' needs at least one image or video/,
	],
	[
		'only a first frame',
		d({ metadata: { first_frame_image: 'https://media.example/f.png' } }),
		/^metadata\.last_frame_image: is missing: a single frame is invalid/,
	],
	[
		'only a last frame (content form)',
		d(content(img('l', 'last_frame'))),
		/^metadata\.first_frame_image: is missing/,
	],
	[
		'two first frames',
		d({
			metadata: {
				first_frame_image: 'https://media.example/f.png',
				last_frame_image: 'https://media.example/l.png',
				content: [img('f2', 'first_frame')],
			},
		}),
		/^metadata\.first_frame_image: is given more than once/,
	],
	[
		'frames with a reference image',
		d({
			metadata: {
				first_frame_image: 'https://media.example/f.png',
				last_frame_image: 'https://media.example/l.png',
				content: [img()],
			},
		}),
		/first\/last frames cannot be mixed with reference images, videos or audio/,
	],
	[
		'frames with reference audio',
		d({
			metadata: {
				first_frame_image: 'https://media.example/f.png',
				last_frame_image: 'https://media.example/l.png',
				content: [aud()],
			},
		}),
		/cannot be mixed with reference/,
	],
	[
		'images shorthand mixed with metadata.content',
		d({ images: ['https://media.example/a.png'], ...content(img()) }),
		/^images: the images shorthand cannot be mixed with metadata\.content/,
	],
	[
		'two text items',
		d({ prompt: undefined, ...content(text('a'), text('b')) }),
		/^metadata\.content: holds 2 text items: at most one/,
	],
	[
		'a text item together with prompt',
		d(content(text())),
		/^prompt: cannot be sent together with a text item/,
	],
	['empty prompt', d({ prompt: '   ' }), /^prompt: must not be empty/],
	['no prompt at all', d({ prompt: undefined }), /^prompt: must not be empty/],
	['prompt that is not text', d({ prompt: 42 }), /^prompt: must be text/],
	[
		'6001-character prompt',
		d({ prompt: 'x'.repeat(6001) }),
		/^prompt: is 6001 characters; at most 6000/,
	],
	[
		'6001-character text item',
		d({ prompt: undefined, ...content(text('字'.repeat(6001))) }),
		/^metadata\.content\[0\]\.text: is 6001 characters/,
	],
	[
		'10 reference images',
		d(content(...many(10, img))),
		/^metadata\.content: 10 reference images: at most 9/,
	],
	[
		'10 images in the shorthand',
		d({ images: many(10, (k) => `https://media.example/${k}.png`) }),
		/^images: 10 reference images: at most 9/,
	],
	['4 reference videos', d(content(...many(4, vid))), /4 reference videos: at most 3/],
	['4 reference audio', d(content(...many(4, aud))), /4 reference audios: at most 3/],
	[
		'13 references in total',
		d(content(...many(9, img), ...many(3, vid), aud())),
		/13 references: at most 12 in total/,
	],
	[
		'a role that does not fit the type',
		d(content({ ...img(), role: 'reference_video' })),
		/^metadata\.content\[0\]\.role: must be reference_image or first_frame or last_frame for image_url/,
	],
	[
		'an unknown item type',
		d(
			content({
				type: 'file_url',
				file_url: { url: 'https://media.example/a.pdf' },
				role: 'reference_file',
			}),
		),
		/^metadata\.content\[0\]\.type: "file_url" is not text, image_url, video_url or audio_url/,
	],
	[
		'a media item without {url}',
		d(
			content({
				type: 'video_url',
				video_url: 'https://media.example/v.mp4',
				role: 'reference_video',
			}),
		),
		/^metadata\.content\[0\]\.video_url: must be an object \{url\}/,
	],
	[
		'http media address',
		d(content({ ...vid(), video_url: { url: 'http://media.example/v.mp4' } })),
		/^metadata\.content\[0\]\.video_url\.url: must use https:\/\//,
	],
	[
		'loopback media address',
		d({ images: ['https://127.0.0.1/a.png'] }),
		/^images\[0\]: host 127\.0\.0\.1 is a private, loopback/,
	],
	[
		'private frame address',
		d({
			metadata: {
				first_frame_image: 'https://10.0.0.2/f.png',
				last_frame_image: 'https://media.example/l.png',
			},
		}),
		/^metadata\.first_frame_image: host 10\.0\.0\.2 is a private/,
	],
	[
		'API key in a media address',
		d(content({ ...aud(), audio_url: { url: 'https://media.example/s.mp3?api_key=abc' } })),
		/audio_url\.url: must not carry an API key or token/,
	],
	[
		'credentials in a media address',
		d(content({ ...img(), image_url: { url: 'https://u:p@media.example/a.png' } })),
		/must not contain credentials/,
		false,
	],
	[
		'edit mode with an image as well',
		d({ omni_reference_task_type: 'edit', ...content(vid(), img()) }),
		/^omni_reference_task_type: edit mode needs exactly one reference video and no other material/,
	],
	[
		'edit mode with two videos',
		d({ omni_reference_task_type: 'edit', ...content(vid(1), vid(2)) }),
		/edit mode needs exactly one reference video/,
	],
	[
		'edit mode without a video',
		d({ omni_reference_task_type: 'edit' }),
		/edit mode needs exactly one reference video/,
	],
	[
		'another omni_reference_task_type',
		d({ omni_reference_task_type: 'remix', ...content(vid()) }),
		/^omni_reference_task_type: must be 'edit' when given/,
	],
	[
		'duration -1 outside edit mode',
		d({ seconds: undefined, duration: -1, ...content(vid()) }),
		/^duration: -1 \(follow the input length\) is only allowed in edit mode/,
	],
	['3 seconds', d({ seconds: 3 }), /^seconds: 3 is outside 4 to 15 seconds/],
	['16 seconds', d({ seconds: '16' }), /^seconds: 16 is outside 4 to 15/],
	['5.5 seconds', d({ seconds: 5.5 }), /^seconds: 5\.5 is not a whole number of seconds/],
	['"5s"', d({ seconds: '5s' }), /^seconds: "5s" is not a whole number/],
	[
		'1080p',
		d({ resolution: '1080p' }),
		/^resolution: "1080p" is not supported \(1080p, 2K and 4K are not\)/,
	],
	[
		'2K',
		d({ resolution: '2K' }),
		/^resolution: "2K" is not supported \(1080p, 2K and 4K are not\)/,
	],
	['4K through size', d({ resolution: undefined, size: '4k' }), /^size: "4k" is not supported/],
	[
		'a pixel size',
		d({ resolution: undefined, size: '1280x720' }),
		/^size: "1280x720" is a pixel size: give 480p or 720p/,
	],
	['seed -2', d({ seed: -2 }), /^seed: -2: must be an integer from -1 to 4294967295/],
	['seed 4294967296', d({ seed: 4294967296 }), /^seed: 4294967296: must be an integer/],
	['seed 1.5', d({ seed: 1.5 }), /^seed: 1\.5: must be an integer/],
	[
		'generate_audio left out',
		d({ generate_audio: undefined }),
		/^generate_audio: must be sent explicitly \(true or false\)/,
		false,
	],
	['watermark left out', d({ watermark: undefined }), /^watermark: must be sent explicitly/, false],
	['watermark as text', d({ watermark: 'false' }), /^watermark: must be true or false/],
	[
		'return_last_frame as text',
		d({ return_last_frame: 'yes' }),
		/^return_last_frame: must be true or false/,
	],
];

const deltaAccepted: Array<[string, Obj]> = [
	['the fast model', d({ model: 'delta-video-2-0-fast-260128' })],
	['ratio only (no aspect_ratio)', d({ ratio: '21:9' })],
	['duration instead of seconds', d({ seconds: undefined, duration: 6 })],
	['size instead of resolution', d({ resolution: undefined, size: '720p' })],
	['adaptive with a reference image', d({ ratio: 'adaptive', ...content(img()) })],
	['adaptive with a reference video', d({ ratio: 'adaptive', ...content(vid()) })],
	[
		'adaptive with first and last frames',
		d({
			ratio: 'adaptive',
			metadata: {
				first_frame_image: 'https://media.example/f.png',
				last_frame_image: 'https://media.example/l.png',
			},
		}),
	],
	[
		'first and last frames (content form)',
		d(content(img('f', 'first_frame'), img('l', 'last_frame'))),
	],
	[
		'the images shorthand alone',
		d({ images: ['https://media.example/a.png', 'https://media.example/b.png'] }),
	],
	['one text item instead of prompt', d({ prompt: undefined, ...content(text(), img()) })],
	['6000-character prompt', d({ prompt: 'x'.repeat(6000) })],
	['6000 CJK characters', d({ prompt: '船'.repeat(6000) })],
	['9 images', d(content(...many(9, img)))],
	['3 videos and 3 audio', d(content(...many(3, vid), ...many(3, aud)))],
	['12 references with a prompt (13 items)', d(content(...many(9, img), ...many(2, vid), aud()))],
	[
		'public HTTPS addresses with a signed query',
		d(
			content({
				...vid(),
				video_url: { url: 'https://cdn.media.example/v.mp4?X-Amz-Signature=abc&X-Amz-Expires=600' },
			}),
		),
	],
	[
		'edit mode with one video and duration -1',
		d({ omni_reference_task_type: 'edit', seconds: undefined, duration: -1, ...content(vid()) }),
	],
	[
		'edit mode with one video and 8 seconds',
		d({ omni_reference_task_type: 'edit', seconds: 8, ...content(vid()) }),
	],
	['4 seconds', d({ seconds: 4 })],
	['15 seconds as text', d({ seconds: '15' })],
	['720p', d({ resolution: '720p' })],
	['seed -1', d({ seed: -1 })],
	['seed 0', d({ seed: 0 })],
	['seed 4294967295', d({ seed: 4294967295 })],
	[
		'audio and watermark on, last frame asked',
		d({ generate_audio: true, watermark: true, return_last_frame: true }),
	],
];

const G: Obj = {
	model: 'gamma-video-1.0',
	prompt: 'a cat on a sofa',
	seconds: 8,
	aspect_ratio: '16:9',
};
const g = (changes: Obj = {}): Obj =>
	Object.fromEntries(Object.entries({ ...G, ...changes }).filter(([, v]) => v !== undefined));
const urls = (n: number) => many(n, (k) => `https://media.example/${k}.png`);
const gammaRefused: Refused[] = [
	[
		'model outside the gamma family',
		g({ model: MINI }),
		/^model: must be gamma-video-1\.0 or gamma-video-1\.5/,
	],
	['empty prompt', g({ prompt: ' ' }), /^prompt: must not be empty/],
	[
		'seconds not whole',
		g({ seconds: 6.5 }),
		/^seconds: 6\.5: must be a whole number of seconds \(6, 8, 10, 12, 15 are preferred\)/,
	],
	['8 reference images', g({ image_urls: urls(8) }), /^image_urls: 8 reference images: at most 7/],
	[
		'gamma-video-1.0 with several references over 10 s',
		g({ image_urls: urls(2), seconds: 12 }),
		/^seconds: 12: gamma-video-1\.0 with several reference images allows at most 10 seconds/,
	],
	[
		'image_urls not a list',
		g({ image_urls: 'https://media.example/1.png' }),
		/^image_urls: must be a list of addresses/,
	],
	[
		'a private reference address',
		g({ image_urls: ['https://192.168.0.9/a.png'] }),
		/^image_urls\[0\]: host 192\.168\.0\.9 is a private/,
	],
	[
		'a key in a reference address',
		g({ image_urls: ['https://media.example/a.png?token=abc'] }),
		/^image_urls\[0\]: must not carry an API key/,
		false,
	],
	[
		'an aspect ratio that is not text',
		g({ aspect_ratio: 16 }),
		/^aspect_ratio: 16: must be a ratio text such as 16:9/,
	],
	[
		"delta's ratio field",
		g({ ratio: '16:9' }),
		/^ratio: gamma-video uses 'aspect_ratio', not 'ratio'/,
		false,
	],
	// outside what the form offers, though the gateway takes them: refused here unless Send Values Outside the Form is on
	[
		'4 seconds (passes the gateway, unconfirmed upstream, not offered)',
		g({ seconds: 4 }),
		/^seconds: 4 is not one the form offers \(6, 8, 10, 12, 15; Options → Send Values Outside the Form sends it anyway\)/,
		false,
	],
	['5 seconds (not offered)', g({ seconds: 5 }), /^seconds: 5 is not one the form offers/, false],
	[
		'an aspect ratio outside the offered ones',
		g({ aspect_ratio: '4:3' }),
		/^aspect_ratio: 4:3 is not one the form offers \(16:9, 9:16, 1:1; Options → Send Values Outside the Form sends it anyway\)/,
		false,
	],
];
const gammaAccepted: Array<[string, Obj]> = [
	...[6, 8, 10, 12, 15].map((s): [string, Obj] => [`${s} seconds`, g({ seconds: s })]),
	['seconds as text', g({ seconds: '10' })],
	['7 reference images', g({ image_urls: urls(7), seconds: 10 })],
	['gamma-video-1.0 with several references at 10 s', g({ image_urls: urls(2), seconds: 10 })],
	['gamma-video-1.0 with one reference at 15 s', g({ image_urls: urls(1), seconds: 15 })],
	[
		'gamma-video-1.5 with several references at 15 s',
		g({ model: 'gamma-video-1.5', image_urls: urls(3), seconds: 15, aspect_ratio: '9:16' }),
	],
	['an http reference (HTTPS only recommended)', g({ image_urls: ['http://media.example/a.png'] })],
	['1:1', g({ aspect_ratio: '1:1' })],
	// offered, though only the other two are preferred: sent with a hint (Video Create), accepted by the gateway
	[
		'gamma-video-1.5 at 1:1 (16:9 or 9:16 only preferred)',
		g({ model: 'gamma-video-1.5', aspect_ratio: '1:1' }),
	],
];
/** Not offered by the form, accepted by the gateway: sent only with Send Values Outside the Form. */
const gammaOutsideForm: Array<[string, Obj]> = [
	['4 seconds (unconfirmed upstream, passes validation)', g({ seconds: 4 })],
	['5 seconds', g({ seconds: 5 })],
	['an aspect ratio outside the offered ones', g({ aspect_ratio: '4:3' })],
];

const messageOf = (schema: ReturnType<typeof deltaSchema>, body: Obj): string => {
	try {
		parseOrThrow(schema, body);
	} catch (err) {
		expect(err).toBeInstanceOf(InputRuleError);
		return (err as InputRuleError).violations.map((v) => `${v.field}: ${v.rule}`).join('\n');
	}
	return '(accepted)';
};
const gatewayStatus = async (body: Obj | FormData): Promise<number> => {
	try {
		const out = await transport.submit(
			'/v1/videos',
			body instanceof FormData ? { form: body } : { json: body },
			{ origin: 'video', timeout: 'videoSubmit' },
		);
		return out.kind === 'accepted' ? out.status : -1;
	} catch (err) {
		if (err instanceof GatewayHttpError) return err.status;
		throw err;
	}
};

describe('delta-video rules', () => {
	it.each(deltaRefused)('refused: %s', async (_name, body, rule, gatewayChecks = true) => {
		expect(messageOf(deltaSchema(), body)).toMatch(new RegExp(rule.source, 'm'));
		if (gatewayChecks) expect(await gatewayStatus(body)).toBe(400);
	});

	it.each(deltaAccepted)('accepted here and by the gateway: %s', async (_name, body) => {
		expect(messageOf(deltaSchema(), body)).toBe('(accepted)');
		expect(await gatewayStatus(body)).toBe(200);
	});

	it('prompt length counts characters, not UTF-16 units', () => {
		expect(messageOf(deltaSchema(), d({ prompt: '🎬'.repeat(6000) }))).toBe('(accepted)');
		expect(messageOf(deltaSchema(), d({ prompt: '🎬'.repeat(6001) }))).toMatch(
			/is 6001 characters/,
		);
	});

	it("the credential's key in a media address is refused when the check is given", () => {
		const body = d({ images: ['https://media.example/a.png?x=sk9-secret'] });
		expect(messageOf(deltaSchema(), body)).toBe('(accepted)');
		expect(
			messageOf(deltaSchema({ containsSecret: (t) => t.includes('sk9-secret') }), body),
		).toMatch(/^images\[0\]: must not carry an API key \(it contains the credential's key\)/);
	});

	it('every violation at once, each with its field path', () => {
		const body = {
			...d({
				seconds: 20,
				resolution: '4K',
				ratio: 'adaptive',
				seed: -5,
				watermark: undefined,
				aspect_ratio: '1:1',
			}),
			images: ['http://media.example/a.png', 'https://localhost/b.png'],
			metadata: { first_frame_image: 'https://media.example/f.png' },
		};
		const fields = messageOf(deltaSchema(), body)
			.split('\n')
			.map((l) => l.split(':')[0]);
		expect(fields).toEqual(
			expect.arrayContaining([
				'aspect_ratio',
				'images[0]',
				'images[1]',
				'metadata.last_frame_image',
				'metadata.first_frame_image',
				'seconds',
				'resolution',
				'seed',
				'watermark',
			]),
		);
		expect(fields.length).toBeGreaterThanOrEqual(9);
	});
});

describe('gamma-video rules', () => {
	it.each(gammaRefused)('refused: %s', async (_name, body, rule, gatewayChecks = true) => {
		expect(messageOf(gammaSchema(), body)).toMatch(new RegExp(rule.source, 'm'));
		if (gatewayChecks) expect(await gatewayStatus(body)).toBe(400);
	});

	it.each(gammaAccepted)('accepted here and by the gateway: %s', async (_name, body) => {
		expect(messageOf(gammaSchema(), body)).toBe('(accepted)');
		expect(await gatewayStatus(body)).toBe(200);
	});

	it.each(gammaOutsideForm)(
		'refused here, accepted with Send Values Outside the Form and by the gateway: %s',
		async (_name, body) => {
			expect(messageOf(gammaSchema(), body)).toMatch(/is not one the form offers/);
			expect(messageOf(gammaSchema({ outsideForm: true }), body)).toBe('(accepted)');
			expect(await gatewayStatus(body)).toBe(200);
		},
	);

	it('an input_reference file counts as a reference image, here and at the gateway (multipart)', async () => {
		const file = { data: await makeImageBytes('png'), mimeType: 'image/png', fileName: 'ref.png' };
		const seven = g({ image_urls: urls(7), seconds: 10 });
		expect(messageOf(gammaSchema({ files: 1 }), seven)).toMatch(
			/^image_urls: 8 reference images \(incl\. 1 input_reference file\): at most 7/,
		);
		expect(await gatewayStatus(buildGammaForm(seven, file))).toBe(400);
		const six = g({ image_urls: urls(6), seconds: 10 });
		expect(messageOf(gammaSchema({ files: 1 }), six)).toBe('(accepted)');
		expect(await gatewayStatus(buildGammaForm(six, file))).toBe(200);
		const twelve = g({ seconds: 12, image_urls: urls(1) });
		expect(messageOf(gammaSchema({ files: 1 }), twelve)).toMatch(
			/gamma-video-1\.0 with several reference images allows at most 10 seconds/,
		);
		expect(await gatewayStatus(buildGammaForm(twelve, file))).toBe(400);
	});
});
