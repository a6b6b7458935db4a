import {
	buildDeltaBody,
	buildGammaBody,
	buildGammaForm,
	deltaMaterials,
	mergeExtra,
} from '../../nodes/GenGatewayVideoCreate/actions/body';
import { parseExtraBody } from '../../nodes/GenGatewayVideoCreate/actions/request';

const fields = (f: Partial<Parameters<typeof buildDeltaBody>[0]> = {}) => ({
	model: 'delta-video-2-0-mini-260615',
	prompt: 'a paper boat',
	seconds: 5,
	resolution: '480p',
	ratio: '16:9',
	generateAudio: false,
	watermark: false,
	images: [],
	videos: [],
	audios: [],
	...f,
});

describe('buildDeltaBody', () => {
	it('materials become metadata.content items {type, <type>: {url}, role} with tokens numbered per type in array order', () => {
		const { body, materials } = buildDeltaBody(
			fields({
				images: ['https://m.example/a.png', 'https://m.example/b.png'],
				videos: ['https://m.example/v.mp4'],
				audios: ['https://m.example/s.mp3', 'https://m.example/t.mp3'],
			}),
		);
		expect((body.metadata as { content: unknown[] }).content).toEqual([
			{ type: 'image_url', image_url: { url: 'https://m.example/a.png' }, role: 'reference_image' },
			{ type: 'image_url', image_url: { url: 'https://m.example/b.png' }, role: 'reference_image' },
			{ type: 'video_url', video_url: { url: 'https://m.example/v.mp4' }, role: 'reference_video' },
			{ type: 'audio_url', audio_url: { url: 'https://m.example/s.mp3' }, role: 'reference_audio' },
			{ type: 'audio_url', audio_url: { url: 'https://m.example/t.mp3' }, role: 'reference_audio' },
		]);
		expect(materials.map((m) => [m.type, m.token, m.url])).toEqual([
			['image', '@图片1', 'https://m.example/a.png'],
			['image', '@图片2', 'https://m.example/b.png'],
			['video', '@视频1', 'https://m.example/v.mp4'],
			['audio', '@音频1', 'https://m.example/s.mp3'],
			['audio', '@音频2', 'https://m.example/t.mp3'],
		]);
	});

	it('generate_audio and watermark are always sent, also when false; ratio is never aspect_ratio', () => {
		const { body } = buildDeltaBody(fields());
		expect(body).toEqual({
			model: 'delta-video-2-0-mini-260615',
			prompt: 'a paper boat',
			seconds: 5,
			resolution: '480p',
			ratio: '16:9',
			generate_audio: false,
			watermark: false,
		});
		expect(JSON.stringify(body)).toContain('"generate_audio":false');
		expect(body).not.toHaveProperty('aspect_ratio');
	});

	it('edit mode sends omni_reference_task_type and duration -1 (follow the input); otherwise seconds', () => {
		const edit = buildDeltaBody(
			fields({ editMode: true, seconds: -1, videos: ['https://m.example/v.mp4'] }),
		).body;
		expect(edit).toMatchObject({ omni_reference_task_type: 'edit', duration: -1 });
		expect(edit).not.toHaveProperty('seconds');
		expect(buildDeltaBody(fields({ editMode: true, seconds: 6 })).body).toMatchObject({
			seconds: 6,
		});
		expect(buildDeltaBody(fields({ seconds: '7' })).body.seconds).toBe(7);
	});

	it('frames, seed and return_last_frame; empty optional fields are left out', () => {
		const { body, materials } = buildDeltaBody(
			fields({
				firstFrame: ' https://m.example/f.png ',
				lastFrame: 'https://m.example/l.png',
				seed: 42,
				returnLastFrame: true,
			}),
		);
		expect(body).toMatchObject({
			metadata: {
				first_frame_image: 'https://m.example/f.png',
				last_frame_image: 'https://m.example/l.png',
			},
			seed: 42,
			return_last_frame: true,
		});
		expect(materials).toEqual([]);
		const plain = buildDeltaBody(
			fields({ firstFrame: '', seed: undefined, returnLastFrame: false }),
		).body;
		expect(plain).not.toHaveProperty('metadata');
		expect(plain).not.toHaveProperty('seed');
		expect(plain).not.toHaveProperty('return_last_frame');
	});

	it('an empty prompt is left out (so a text item can carry it)', () => {
		expect(buildDeltaBody(fields({ prompt: '  ' })).body).not.toHaveProperty('prompt');
	});

	it("extra fields replace top-level fields and merge metadata, appending content after the node's materials", () => {
		const { body, materials } = buildDeltaBody(
			fields({
				images: ['https://m.example/a.png'],
				extraBody: {
					seconds: 8,
					metadata: {
						content: [
							{
								type: 'image_url',
								image_url: { url: 'https://m.example/x.png' },
								role: 'reference_image',
							},
						],
					},
				},
			}),
		);
		expect(body.seconds).toBe(8);
		expect(materials.map((m) => `${m.token} ${m.url}`)).toEqual([
			'@图片1 https://m.example/a.png',
			'@图片2 https://m.example/x.png',
		]);
		expect(mergeExtra({ a: 1, metadata: { b: 1 } }, { metadata: { c: 2 } })).toEqual({
			a: 1,
			metadata: { b: 1, c: 2 },
		});
		expect(mergeExtra({ seconds: 5, ratio: '16:9' }, { seconds: null, duration: 6 })).toEqual({
			ratio: '16:9',
			duration: 6,
		});
	});

	it('the images shorthand names its tokens too', () => {
		expect(
			deltaMaterials({ images: ['https://m.example/a.png', 'https://m.example/b.png'] }).map(
				(m) => m.token,
			),
		).toEqual(['@图片1', '@图片2']);
	});
});

describe('Extra Body Fields', () => {
	it('JSON text or an object; empty means none; anything else is a rule violation', () => {
		expect(parseExtraBody('{}')).toBeUndefined();
		expect(parseExtraBody('')).toBeUndefined();
		expect(parseExtraBody({ a: 1 })).toEqual({ a: 1 });
		expect(parseExtraBody('{"a":1}')).toEqual({ a: 1 });
		expect(() => parseExtraBody('{a:1}')).toThrow(
			/Extra Body Fields: must be a JSON object \(the text is not valid JSON\)/,
		);
		expect(() => parseExtraBody('[1]')).toThrow(/must be a JSON object/);
	});
});

describe('gamma body and form', () => {
	it('prompt, seconds, aspect_ratio, image_urls; materials without delta tokens', () => {
		const { body, materials } = buildGammaBody({
			model: 'gamma-video-1.0',
			prompt: 'a cat',
			seconds: '8',
			aspectRatio: '9:16',
			imageUrls: ['https://m.example/a.png'],
		});
		expect(body).toEqual({
			model: 'gamma-video-1.0',
			prompt: 'a cat',
			seconds: 8,
			aspect_ratio: '9:16',
			image_urls: ['https://m.example/a.png'],
		});
		expect(materials).toEqual([
			{ type: 'image', role: 'reference_image', url: 'https://m.example/a.png' },
		]);
		expect(
			buildGammaBody({
				model: 'gamma-video-1.0',
				prompt: 'x',
				seconds: 6,
				aspectRatio: '16:9',
				imageUrls: [],
			}).body,
		).not.toHaveProperty('image_urls');
	});

	it('multipart: text fields, repeated image_urls, and the input_reference file with its type and name', async () => {
		const form = buildGammaForm(
			{
				model: 'gamma-video-1.5',
				prompt: 'a cat',
				seconds: 8,
				image_urls: ['https://m.example/a.png', 'https://m.example/b.png'],
			},
			{ data: Buffer.from('PNGDATA'), mimeType: 'image/png', fileName: 'ref.png' },
		);
		expect(form.get('seconds')).toBe('8');
		expect(form.getAll('image_urls')).toEqual([
			'https://m.example/a.png',
			'https://m.example/b.png',
		]);
		const file = form.get('input_reference') as File;
		expect(file.name).toBe('ref.png');
		expect(file.type).toBe('image/png');
		expect(Buffer.from(await file.arrayBuffer()).toString()).toBe('PNGDATA');
	});
});
