/** Where the simulator used to disagree with the spec: each case here failed before its correction. */
import { imageSize } from 'image-size';
import sharp from 'sharp';
import { useSimulator } from '../harness/simulator';
import { deltaVideoQuota, perCallQuota } from '../../simulator/catalog/billing';
import { modelById } from '../../simulator/catalog/models';
import { resolveSize } from '../../simulator/catalog/sizes';
import { checkMp4Samples, mp4Checker } from '../../nodes/shared/media/mp4';
import { bufferReader } from '../../nodes/shared/media/nal';
import { client } from './client';
import { bmp } from '../harness/inputs';

const sim = useSimulator(
	{
		quiet: true,
		taskLatencyMs: 20,
		videoLatencyMs: 20,
		syncLatencyMs: 0,
		seed: 1,
	},
	{ reset: true },
);
const { call, gen, delta, untilDone, videoDone, fetchResult } = client(() => sim);

async function delivered(
	model: string,
	size: unknown,
): Promise<{ width?: number; height?: number }> {
	const r = await gen({ model, size }, '/v1/images/generations');
	expect(r.status).toBe(200);
	return imageSize((await fetchResult(r.json.data[0].url)).buf);
}

describe('alpha-image-2 family: normalised to multiples of 16 within the tier’s pixel budget', () => {
	it.each([
		['alpha-image-2', '1000x1000', 992, 992],
		['alpha-image-2-1k', '1032x1016', 1024, 1008],
		['alpha-image-2', '100x100', 96, 96],
		['alpha-image-2', '1280x800', 1280, 800],
		['alpha-image-2-2k', '4000x500', 4000, 496],
		['alpha-image-2-2k', '2048x2048', 2048, 2048],
	])('%s %s is accepted and delivered as %ix%i', async (model, size, width, height) => {
		expect(await delivered(model, size)).toMatchObject({ width, height });
	});

	it('the 4K tier: 2880x2880 and 3840x2160 (the same pixel count) pass and keep their size', async () => {
		for (const size of ['2880x2880', '3840x2160'])
			expect((await gen({ model: 'alpha-image-2-4k', size })).status).toBe(202);
		expect(resolveSize('alpha-image-2-4k', '3840x2160', 1)).toEqual({
			ok: true,
			width: 3840,
			height: 2160,
		});
		expect(resolveSize('alpha-image-2-4k', '2880x2880', 1)).toEqual({
			ok: true,
			width: 2880,
			height: 2880,
		});
	});

	it.each([
		['alpha-image-2', '1536x1024'],
		['alpha-image-2-1k', '1040x1024'],
		['alpha-image-2-2k', '2064x2048'],
		['alpha-image-2-4k', '2896x2880'],
		['alpha-image-2', 'auto'],
		['alpha-image-2', '16:9'],
		['alpha-image-2', '1024'],
		['alpha-image-2', '0x1024'],
	])('%s %s is outside the tier’s specification: 400', async (model, size) => {
		const r = await gen({ model, size });
		expect(r.status).toBe(400);
		expect(sim.ledger).toHaveLength(0);
	});
});

describe('n is not capped at 4', () => {
	it('n images per task, each charged; [partial] delivers half (rounded up) and still charges n', async () => {
		const price = perCallQuota(modelById('alpha-image-2.5')!, 'hd');
		const five = await untilDone((await gen({ n: 5 })).json.task_id);
		expect(five.json.data).toHaveLength(5);
		expect(sim.ledger.find((l) => l.taskId === five.json.task_id)!.amount).toBe(5 * price);
		const partial = await untilDone((await gen({ n: 4, prompt: 'a cat [partial]' })).json.task_id);
		expect(partial.json).toMatchObject({ status: 'completed', billing: { status: 'charged' } });
		expect(partial.json.data).toHaveLength(2);
		expect(sim.ledger.find((l) => l.taskId === partial.json.task_id)!.amount).toBe(4 * price);
		expect((await gen({ n: 8 }, '/v1/images/generations')).json.data).toHaveLength(8);
	});

	it.each([[0], [-1], [1.5], ['two'], [1001]])('n = %p is a parameter error', async (n) => {
		expect((await gen({ n })).status).toBe(400);
	});
});

describe('alpha-image-2-az and size "auto"', () => {
	it('az takes any pixel string (not the alpha-image-2.5 list) and delivers it as asked', async () => {
		expect(await delivered('alpha-image-2-az', '1000x700')).toMatchObject({
			width: 1000,
			height: 700,
		});
		expect(await delivered('alpha-image-2-az', '2048x2048')).toMatchObject({
			width: 2048,
			height: 2048,
		});
		expect(
			(await gen({ model: 'alpha-image-2-az', size: 'auto' }, '/v1/images/generations')).status,
		).toBe(400);
	});

	it('"auto" is not a pixel string: a parameter error for the alpha families, a square fallback for beta (like a ratio string)', async () => {
		expect((await gen({ size: 'auto' })).status).toBe(400);
		expect(await delivered('beta-3.1-flash-image-preview', 'auto')).toMatchObject({
			width: 1024,
			height: 1024,
		});
		expect(await delivered('beta-3-pro-image-preview-2k', 'auto')).toMatchObject({
			width: 2048,
			height: 2048,
		});
	});
});

describe('beta pro JSON edits', () => {
	it.each([['beta-3-pro-image-preview'], ['beta-3-pro-image-preview-4k']])(
		'%s: Data URLs and public HTTP/HTTPS addresses accepted; private ones refused',
		async (model) => {
			const png = await sharp({
				create: { width: 16, height: 16, channels: 3, background: '#123' },
			})
				.png()
				.toBuffer();
			const edit = (image_url: unknown) =>
				call('POST', '/v1/images/edits/async', {
					json: { model, prompt: 'x', size: '1024x1024', n: 1, images: [{ image_url }] },
				});
			expect((await edit(`data:image/png;base64,${png.toString('base64')}`)).status).toBe(202);
			expect((await edit('https://media.example/a.png')).status).toBe(202);
			expect((await edit('http://media.example/a.png')).status).toBe(202);
			expect((await edit({ url: 'https://media.example/a.png' })).status).toBe(202);
			expect((await edit('https://192.168.1.2/a.png')).status).toBe(400);
		},
	);
});

describe('delta-video', () => {
	const img = (k: number, role = 'reference_image') => ({
		type: 'image_url',
		image_url: { url: `https://media.example/${k}.png` },
		role,
	});

	it.each([
		['reference materials only', { metadata: { content: [img(1)] } }],
		['the images shorthand only', { images: ['https://media.example/a.png'] }],
		[
			'first/last frames in metadata only',
			{
				metadata: {
					first_frame_image: 'https://media.example/f.png',
					last_frame_image: 'https://media.example/l.png',
				},
			},
		],
		[
			'first/last frame items only',
			{ metadata: { content: [img(1, 'first_frame'), img(2, 'last_frame')] } },
		],
		[
			'a text item and a material',
			{ metadata: { content: [{ type: 'text', text: 'a dog @图片1' }, img(1)] } },
		],
	])('no prompt, %s: accepted', async (_, extra) => {
		const r = await delta({ prompt: undefined, ...extra });
		expect(r.status).toBe(200);
		expect(r.json.status).toBe('queued');
	});

	it.each([
		['nothing at all', { prompt: undefined }],
		['an empty prompt with materials', { prompt: '', metadata: { content: [img(1)] } }],
		[
			'an empty text item',
			{ prompt: undefined, metadata: { content: [{ type: 'text', text: ' ' }, img(1)] } },
		],
	])('%s: 400', async (_, extra) => {
		expect((await delta(extra)).status).toBe(400);
	});

	it.each([
		[{ seconds: 5, metadata: { duration: 5 } }],
		[{ duration: 5, metadata: { seconds: 6 } }],
		[{ resolution: '480p', metadata: { size: '720p' } }],
		[{ metadata: { resolution: '480p', size: '480p' } }],
		[{ ratio: '16:9', metadata: { aspect_ratio: '16:9' } }],
		[{ metadata: { aspect_ratio: '9:16' } }],
		[{ ratio: '16:9', metadata: { ratio: '16:9' } }],
		[{ watermark: false, metadata: { watermark: true } }],
		[{ metadata: { resolution: '1080p' } }],
		[{ metadata: { seconds: 20 } }],
		[{ metadata: { ratio: 'adaptive' } }],
		[{ metadata: { seed: -2 } }],
	])('rule 1 and metadata values: %j → 400', async (extra) => {
		const r = await delta(extra);
		expect(r.status).toBe(400);
		expect(r.json).toMatchObject({ code: 'invalid_request', data: null });
		expect(sim.ledger).toHaveLength(0);
	});

	it('parameters given once, in metadata, are used', async () => {
		const r = await delta({
			watermark: undefined,
			metadata: { seconds: 6, resolution: '720p', ratio: '9:16', watermark: false },
		});
		expect(r.status).toBe(200);
		expect(r.json).toMatchObject({ seconds: '6', size: '720p' });
	});

	it('the 6000-character limit counts code points, not UTF-16 units', async () => {
		expect((await delta({ prompt: '😀'.repeat(6000) })).status).toBe(200);
		expect((await delta({ prompt: '😀'.repeat(6001) })).status).toBe(400);
		expect(
			(
				await delta({
					prompt: undefined,
					metadata: { content: [{ type: 'text', text: '𝄞'.repeat(6000) }] },
				})
			).status,
		).toBe(200);
	});

	it('fees are exact decimals rounded half-up: 9000 tokens × 11.638 / 1e6 × 1.5 × 500000 = 78556.5 → 78557', async () => {
		const id = (await delta({ prompt: 'a dog [usage=9000]' })).json.id;
		const done = await videoDone(id);
		expect(done.json.usage).toEqual({ completion_tokens: 9000, total_tokens: 9000 });
		const lines = sim.ledger.filter((l) => l.taskId === id);
		expect(lines.map((l) => l.kind)).toEqual(['reserve', 'settle']);
		expect(lines.reduce((s, l) => s + l.amount, 0)).toBe(78_557);
		expect(deltaVideoQuota('delta-video-2-0-mini-260615', 4500, false, 'default')).toBe(26_186);
		expect(deltaVideoQuota('delta-video-2-0-fast-260128', 325, true, 'default')).toBe(2360);
		expect(deltaVideoQuota('delta-video-2-0-fast-260128', 14_300, false, 'hd')).toBe(261_905);
	});
});

describe('native reference images', () => {
	const native = (mimeType: string, data: Buffer) =>
		call('POST', '/v1beta/models/beta-3.1-flash-image-preview:generateContent', {
			json: {
				contents: [
					{
						role: 'user',
						parts: [{ text: 'x' }, { inlineData: { mimeType, data: data.toString('base64') } }],
					},
				],
				generationConfig: {
					responseModalities: ['IMAGE'],
					imageConfig: { aspectRatio: '1:1', imageSize: '1K' },
				},
			},
		});

	it('BMP is allowed with a matching mimeType; a mismatched one is refused', async () => {
		expect((await native('image/bmp', bmp(2, 2))).status).toBe(200);
		expect((await native('image/png', bmp(2, 2))).status).toBe(400);
		expect(
			(
				await native(
					'image/bmp',
					await sharp({ create: { width: 4, height: 4, channels: 3, background: '#000' } })
						.png()
						.toBuffer(),
				)
			).status,
		).toBe(400);
	});
});

describe('image task statuses cancelled and expired', () => {
	it.each([
		['[cancel]', 'cancelled'],
		['[expire]', 'expired'],
	])(
		'prompt marker %s: status %s, state failed, provider_status the same, refunded',
		async (marker, status) => {
			const t = (await gen({ prompt: `a cat ${marker}` })).json;
			const done = await untilDone(t.task_id);
			expect(done.status).toBe(200);
			expect(done.json).toMatchObject({
				status,
				state: 'failed',
				provider_status: status,
				billing: { status: 'refunded_if_reserved' },
			});
			expect(done.json.data).toBeUndefined();
			expect(done.json.error.message).toEqual(expect.any(String));
			expect(
				sim.ledger.filter((l) => l.taskId === t.task_id).reduce((s, l) => s + l.amount, 0),
			).toBe(0);
		},
	);

	it.each([['cancelled'], ['expired']] as const)(
		'fault %s on the submit route does the same',
		async (kind) => {
			sim.fault({ route: 'POST /v1/images/generations/async', kind });
			const done = await untilDone((await gen({})).json.task_id);
			expect(done.json).toMatchObject({ status: kind, state: 'failed', provider_status: kind });
		},
	);
});

describe('async answers with b64_json', () => {
	it('marker [b64] and fault b64-result: the task’s data carries decodable b64_json instead of a hosted URL', async () => {
		const marked = await untilDone((await gen({ prompt: 'a cat [b64]' })).json.task_id);
		sim.fault({ route: 'POST /v1/images/generations/async', kind: 'b64-result' });
		const faulted = await untilDone((await gen({})).json.task_id);
		for (const done of [marked, faulted]) {
			expect(done.json.status).toBe('completed');
			expect(done.json.data[0].url).toBeUndefined();
			expect(done.json.result.data).toEqual(done.json.data);
			const { info } = await sharp(Buffer.from(done.json.data[0].b64_json, 'base64'))
				.raw()
				.toBuffer({ resolveWithObject: true });
			expect([1024, 1254]).toContain(info.width);
		}
		expect((await untilDone((await gen({})).json.task_id)).json.data[0].url).toMatch(/^http/);
	});
});

describe('video tasks', () => {
	it('an unknown task, another key’s task and another origin’s task answer 404 on query, as the spec says of task queries', async () => {
		const t = (await delta()).json;
		expect(await call('GET', '/v1/videos/vid_none')).toMatchObject({
			status: 404,
			json: { code: 'task_not_exist', data: null },
		});
		expect((await call('GET', `/v1/videos/${t.id}`, { key: sim.keys.other })).status).toBe(404);
		expect((await call('GET', `/v1/videos/${t.id}`, { base: sim.altBaseUrl })).status).toBe(404);
		expect((await call('GET', `/v1/videos/${t.id}`)).status).toBe(200);
	});

	it('gamma: seconds and aspect ratios outside the preferred ones are accepted (the spec only prefers them); a broken value is not', async () => {
		const make = (json: Record<string, unknown>) =>
			call('POST', '/v1/videos', { json: { model: 'gamma-video-1.5', prompt: 'a cat', ...json } });
		for (const json of [
			{ seconds: 7 },
			{ seconds: '20' },
			{ aspect_ratio: '1:1' },
			{ aspect_ratio: '4:3' },
		])
			expect((await make(json)).status).toBe(200);
		for (const json of [{ seconds: 6.5 }, { seconds: 0 }, { aspect_ratio: 16 }])
			expect((await make(json)).status).toBe(400);
	});

	it('fault video-query-error: after `polls` normal answers, the task’s queries answer the status `times` times, then normally again', async () => {
		const t = (await delta()).json;
		sim.fault({
			route: `GET /v1/videos/${t.id}`,
			kind: 'video-query-error',
			status: 401,
			polls: 2,
			times: 2,
		});
		const statuses = [];
		for (let k = 0; k < 5; k++) statuses.push((await call('GET', `/v1/videos/${t.id}`)).status);
		expect(statuses).toEqual([200, 200, 401, 401, 200]);
		sim.fault({ route: `GET /v1/videos/${t.id}`, kind: 'video-query-error' });
		expect(await call('GET', `/v1/videos/${t.id}`)).toMatchObject({
			status: 403,
			json: { error: { type: 'permission_error' } },
		});
		sim.fault({ route: `GET /v1/videos/${t.id}`, kind: 'video-query-error', status: 409 });
		expect(await call('GET', `/v1/videos/${t.id}`)).toMatchObject({
			status: 409,
			json: { code: 'query_failed', data: null },
		});
	});

	it('fault content-error: a finished video’s /content answers the 4xx (default 404), then serves the MP4', async () => {
		const t = (await delta()).json;
		await videoDone(t.id);
		sim.fault({ route: `GET /v1/videos/${t.id}/content`, kind: 'content-error' });
		expect(await call('GET', `/v1/videos/${t.id}/content`)).toMatchObject({
			status: 404,
			json: { code: 'content_unavailable', data: null },
		});
		sim.fault({ route: `GET /v1/videos/${t.id}/content`, kind: 'content-error', status: 403 });
		expect((await call('GET', `/v1/videos/${t.id}/content`)).status).toBe(403);
		const mp4 = await call('GET', `/v1/videos/${t.id}/content`);
		expect(mp4.status).toBe(200);
		expect(mp4.buf.subarray(4, 8).toString('latin1')).toBe('ftyp');
	});

	it('a generated MP4 holds an H.264 video track whose samples cover its media data as length-framed NAL units (a strict MP4 reader accepts it)', async () => {
		const t = (await delta()).json;
		await videoDone(t.id);
		const mp4 = await call('GET', `/v1/videos/${t.id}/content`);
		const checker = mp4Checker();
		checker.push(mp4.buf);
		const checked = checker.end();
		expect(checked.framed?.count).toBeGreaterThan(0);
		await expect(
			checkMp4Samples(checked, { read: bufferReader(mp4.buf) }),
		).resolves.toBeUndefined();
	});
});
