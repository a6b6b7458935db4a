/** The simulator against the spec, over real HTTP. */
import { imageSize } from 'image-size';
import sharp from 'sharp';
import { FormData, request } from 'undici';
import { startSimulator } from '../../simulator';
import { useSimulator } from '../harness/simulator';
import { waitFor } from '../harness/wait';

const sim = useSimulator(
	{
		quiet: true,
		taskLatencyMs: 100,
		pollAfterMs: 50,
		videoLatencyMs: 150,
		seed: 1,
	},
	{ reset: true },
);

interface Call {
	key?: string | null;
	json?: unknown;
	form?: FormData;
	headers?: Record<string, string>;
	base?: string;
	auth?: string;
}
async function call(method: string, path: string, o: Call = {}) {
	const key = o.key === undefined ? sim.keys.demo : o.key;
	const headers: Record<string, string> = { ...(o.headers ?? {}) };
	if (o.auth !== undefined) headers.authorization = o.auth;
	else if (key) headers.authorization = `Bearer ${key}`;
	let body: string | FormData | undefined;
	if (o.json !== undefined) {
		headers['content-type'] = 'application/json';
		body = JSON.stringify(o.json);
	} else if (o.form) body = o.form as never;
	const res = await request(`${o.base ?? sim.baseUrl}${path}`, {
		method: method as 'GET',
		headers,
		body: body as never,
	});
	const buf = Buffer.from(await res.body.arrayBuffer());
	let json: Record<string, any> | undefined;
	try {
		json = JSON.parse(buf.toString('utf8'));
	} catch {
		json = undefined;
	}
	return { status: res.statusCode, headers: res.headers, json: json as Record<string, any>, buf };
}
const gen = (json: Record<string, unknown>, path = '/v1/images/generations/async', o: Call = {}) =>
	call('POST', path, {
		json: { model: 'alpha-image-2.5', prompt: 'a cat', size: '1024x1024', ...json },
		...o,
	});
const untilDone = (id: string, o: Call = {}) =>
	waitFor(async () => {
		const r = await call('GET', `/v1/images/tasks/${id}`, o);
		return r.json?.status !== 'processing' && r;
	}, `task ${id} done`);

describe('keys, groups, models', () => {
	it('lists models per key group; Bearer with exactly one space', async () => {
		const demo = await call('GET', '/v1/models');
		const limited = await call('GET', '/v1/models', { key: sim.keys.limited });
		expect(demo.json.data.map((m: { id: string }) => m.id)).toContain('alpha-image-2-4k');
		const ids = limited.json.data.map((m: { id: string }) => m.id);
		expect(ids).toContain('alpha-image-2.5');
		expect(ids).not.toContain('alpha-image-2-4k');
		expect(ids).not.toContain('delta-video-2-0-fast-260128');
		expect((await call('GET', '/v1/models', { auth: `Bearer  ${sim.keys.demo}` })).status).toBe(
			401,
		);
		expect((await call('GET', '/v1/models', { key: null })).status).toBe(401);
		expect((await call('GET', '/v1/models', { key: 'sk-wrong' })).json.error.message).toMatch(
			/Invalid token/,
		);
	});

	it('403 outside the group, 403 insufficient quota, 503 model_not_found', async () => {
		const denied = await gen({ model: 'alpha-image-2-4k', size: '2048x2048' }, undefined, {
			key: sim.keys.limited,
		});
		expect(denied.status).toBe(403);
		const broke = await gen({}, undefined, { key: sim.keys.broke });
		expect(broke).toMatchObject({
			status: 403,
			json: { error: { code: 'insufficient_user_quota' } },
		});
		const offline = await call('POST', '/v1/chat/completions', {
			json: { model: 'beta-2.0-flash-offline', messages: [{ role: 'user', content: 'x' }] },
		});
		expect(offline).toMatchObject({ status: 503, json: { error: { code: 'model_not_found' } } });
	});
});

describe('image submission forms', () => {
	it.each([
		['/v1/images/generations/async', {}, {}, 202],
		['/v1/image-tasks/generations', {}, {}, 202],
		['/v1/images/generations', { background: true }, {}, 200],
		['/v1/images/generations', { task_type: 'async' }, {}, 200],
		['/v1/images/generations', {}, { prefer: 'respond-async' }, 200],
	])('%s %j %j → task with HTTP %i', async (path, extra, headers, status) => {
		const r = await gen(extra, path, { headers: headers as Record<string, string> });
		expect(r.status).toBe(status);
		expect(r.json).toMatchObject({
			object: 'image.generation.task',
			status: 'processing',
			state: 'queued',
			poll_after_ms: 50,
		});
		expect(r.json.task_id).toBe(r.json.id);
	});

	it.each([['auto'], ['opaque'], ['transparent'], ['true']])(
		'background "%s" (a string) is not an async switch',
		async (bg) => {
			const r = await gen({ background: bg }, '/v1/images/generations');
			expect(r.status).toBe(200);
			expect(r.json.task_id).toBeUndefined();
			expect(r.json.data[0].url).toMatch(/^http:\/\/127\.0\.0\.1/);
		},
	);

	it('multipart text "true" for background is async; edits as multipart and JSON data URLs', async () => {
		const png = await sharp({ create: { width: 32, height: 32, channels: 3, background: '#0a0' } })
			.png()
			.toBuffer();
		const form = new FormData();
		for (const [k, v] of Object.entries({
			model: 'alpha-image-2.5',
			prompt: 'edit',
			size: '1024x1024',
			background: 'true',
		}))
			form.append(k, v);
		form.append('image', new Blob([png], { type: 'image/png' }), 'a.png');
		const mp = await call('POST', '/v1/images/edits', { form });
		expect(mp.status).toBe(200);
		expect(mp.json.task_id).toBeDefined();
		const json = await call('POST', '/v1/images/edits/async', {
			json: {
				model: 'alpha-image-2.5',
				prompt: 'x',
				size: '1024x1024',
				images: [{ image_url: `data:image/png;base64,${png.toString('base64')}` }],
			},
		});
		expect(json.status).toBe(202);
		const alpha2 = await call('POST', '/v1/images/edits/async', {
			json: {
				model: 'alpha-image-2',
				prompt: 'x',
				size: '1024x1024',
				images: [{ image_url: `data:image/png;base64,${png.toString('base64')}` }],
			},
		});
		expect(alpha2.status).toBe(400);
		const beta = new FormData();
		for (const [k, v] of Object.entries({
			model: 'beta-3-pro-image-preview',
			prompt: 'x',
			size: '1024x1024',
		}))
			beta.append(k, v);
		beta.append('image[]', new Blob([png], { type: 'image/png' }), 'a.png');
		beta.append('image[]', new Blob([png], { type: 'image/png' }), 'b.png');
		expect((await call('POST', '/v1/images/edits/async', { form: beta })).status).toBe(202);
		const notImage = new FormData();
		for (const [k, v] of Object.entries({ model: 'alpha-image-2.5', prompt: 'x' }))
			notImage.append(k, v);
		notImage.append('image', new Blob([Buffer.from('<html>')], { type: 'image/png' }), 'x.png');
		expect((await call('POST', '/v1/images/edits/async', { form: notImage })).status).toBe(400);
	});

	it('beta HTTPS references: public ok; private, loopback and unresolvable refused', async () => {
		const ref = (u: string) =>
			call('POST', '/v1/images/edits/async', {
				json: {
					model: 'beta-3.1-flash-image-preview',
					prompt: 'x',
					size: '1024x1024',
					images: [{ image_url: u }],
				},
			});
		expect((await ref('https://media.example/a.png')).status).toBe(202);
		for (const u of [
			'https://127.0.0.1/a.png',
			'https://10.0.0.1/a.png',
			'https://nowhere.invalid/a.png',
		])
			expect((await ref(u)).status).toBe(400);
	});

	it('size rules per family and tier; az async refuses response_format', async () => {
		expect((await gen({ size: '1000x1000' })).status).toBe(400);
		expect((await gen({ model: 'alpha-image-2', size: '1008x1008' })).status).toBe(202);
		expect((await gen({ model: 'alpha-image-2', size: '2048x2048' })).status).toBe(400);
		expect((await gen({ model: 'alpha-image-2-4k', size: '2880x2880' })).status).toBe(202);
		const az = await gen({ model: 'alpha-image-2-az' });
		expect(az.status).toBe(400);
		expect(az.json.error.message).toBe("Unknown parameter: 'response_format'.");
		expect((await gen({ model: 'alpha-image-2-az' }, '/v1/images/generations')).status).toBe(200);
	});

	it('beta: a ratio string falls back to a square; unsuffixed tier from the longest side', async () => {
		const square = await gen(
			{ model: 'beta-3-pro-image-preview', size: '16:9' },
			'/v1/images/generations',
		);
		const px = await call('GET', new URL(square.json.data[0].url).pathname, {
			base: sim.resultBaseUrl,
			key: null,
		});
		expect(imageSize(px.buf)).toMatchObject({ width: 1024, height: 1024 });
		const wide = await gen(
			{ model: 'beta-3-pro-image-preview', size: '1800x1000' },
			'/v1/images/generations',
		);
		const w = await call('GET', new URL(wide.json.data[0].url).pathname, {
			base: sim.resultBaseUrl,
			key: null,
		});
		expect(imageSize(w.buf).width).toBe(2048);
	});
});

describe('task queries, lifecycle, results', () => {
	it('every alias answers for the owner only; completed with data and result.data; real images on the result origin', async () => {
		const t = (await gen({})).json;
		const done = await untilDone(t.task_id);
		expect(done.json).toMatchObject({
			status: 'completed',
			state: 'succeeded',
			provider_status: 'completed',
		});
		expect(done.json.result.data).toEqual(done.json.data);
		for (const p of [
			'/v1/image-tasks/',
			'/v1/images/generations/',
			'/v1/images/edits/',
			'/v1/tasks/',
		])
			expect((await call('GET', `${p}${t.task_id}`)).json.status).toBe('completed');
		expect((await call('GET', `/v1/tasks/${t.task_id}`, { key: sim.keys.other })).status).toBe(404);
		expect((await call('GET', '/v1/tasks/nope')).status).toBe(404);
		const img = await request(done.json.data[0].url);
		const buf = Buffer.from(await img.body.arrayBuffer());
		expect(img.headers['content-type']).toBe('image/png');
		expect([1024, 1254]).toContain(imageSize(buf).width);
		expect(sim.log.filter((l) => l.server === 'result').every((l) => !l.auth)).toBe(true);
	});

	it('terminal records expire after the retention', async () => {
		const short = await startSimulator({ quiet: true, taskLatencyMs: 10, retentionMs: 100 });
		try {
			const r = await request(`${short.baseUrl}/v1/images/generations/async`, {
				method: 'POST',
				headers: { authorization: `Bearer ${short.keys.demo}`, 'content-type': 'application/json' },
				body: JSON.stringify({ model: 'alpha-image-2.5', prompt: 'x' }),
			});
			const id = ((await r.body.json()) as { task_id: string }).task_id;
			const q = async () => {
				const a = await request(`${short.baseUrl}/v1/tasks/${id}`, {
					headers: { authorization: `Bearer ${short.keys.demo}` },
				});
				await a.body.dump();
				return a.statusCode;
			};
			// found, then (once it has ended and its retention passed) gone
			expect(await q()).toBe(200);
			await waitFor(async () => (await q()) === 404, 'the record expired');
		} finally {
			await short.stop();
		}
	});

	it('ledger: one charge per accepted task however often it is polled; failures refunded', async () => {
		const t = (await gen({})).json;
		for (let k = 0; k < 5; k++) await untilDone(t.task_id);
		expect(sim.ledger.filter((l) => l.taskId === t.task_id)).toHaveLength(1);
		const f = (await gen({ prompt: 'x [fail]' })).json;
		const done = await untilDone(f.task_id);
		expect(done.json).toMatchObject({
			status: 'failed',
			billing: { status: 'refunded_if_reserved' },
		});
		expect(sim.ledger.filter((l) => l.taskId === f.task_id).reduce((s, l) => s + l.amount, 0)).toBe(
			0,
		);
	});
});

describe('native, chat, responses', () => {
	it('native: inlineData and inline_data both appear; block and no-image paths; mismatches refused', async () => {
		const keys = new Set<string>();
		for (let k = 0; k < 2; k++) {
			const r = await call('POST', '/v1beta/models/beta-3.1-flash-image-preview:generateContent', {
				json: {
					contents: [{ role: 'user', parts: [{ text: 'x' }] }],
					generationConfig: {
						responseModalities: ['IMAGE'],
						imageConfig: { aspectRatio: '1:1', imageSize: '1K' },
					},
				},
			});
			expect(r.json.task_id).toBeUndefined();
			for (const p of r.json.candidates[0].content.parts)
				for (const k2 of Object.keys(p)) keys.add(k2);
		}
		expect(keys).toEqual(new Set(['text', 'inlineData', 'inline_data']));
		const blocked = await call(
			'POST',
			'/v1beta/models/beta-3.1-flash-image-preview:generateContent',
			{ json: { contents: [{ parts: [{ text: '[block]' }] }] } },
		);
		expect(blocked.json).toMatchObject({ promptFeedback: { blockReason: 'SAFETY' } });
		expect(blocked.json.candidates).toBeUndefined();
		const mismatch = await call(
			'POST',
			'/v1beta/models/beta-3-pro-image-preview-2k:generateContent',
			{
				json: {
					contents: [{ parts: [{ text: 'x' }] }],
					generationConfig: { imageConfig: { imageSize: '4K' } },
				},
			},
		);
		expect(mismatch.status).toBe(400);
	});

	it('chat SSE: data lines, usage chunk with empty choices, [DONE]; responses SSE: named events, completion, no [DONE]', async () => {
		const chat = await call('POST', '/v1/chat/completions', {
			json: { model: 'alpha-chat-4o', messages: [{ role: 'user', content: 'hi' }], stream: true },
		});
		const text = chat.buf.toString('utf8');
		expect(chat.headers['content-type']).toBe('text/event-stream');
		expect(text.trim().endsWith('data: [DONE]')).toBe(true);
		expect(text).toMatch(/"choices":\[\],.*"usage"/);
		const resp = await call('POST', '/v1/responses', {
			json: { model: 'alpha-chat-4o', input: 'hi', stream: true },
		});
		const rt = resp.buf.toString('utf8');
		expect(rt).toMatch(/^event: response\.created/);
		expect(rt).toContain('event: response.completed');
		expect(rt).not.toContain('[DONE]');
		const plain = await call('POST', '/v1/responses', {
			json: { model: 'alpha-chat-4o', input: 'hi' },
		});
		expect(plain.json.output_text).toBeUndefined();
		expect(plain.json.output.at(-1).content[0].type).toBe('output_text');
	});
});

describe('videos', () => {
	const delta = (extra: Record<string, unknown> = {}, o: Call = {}) =>
		call('POST', '/v1/videos', {
			json: {
				model: 'delta-video-2-0-mini-260615',
				prompt: 'a dog',
				seconds: 5,
				resolution: '480p',
				ratio: '16:9',
				generate_audio: false,
				watermark: false,
				...extra,
			},
			...o,
		});

	it('delta lifecycle, usage, /content MP4, reserve then settle in the ledger', async () => {
		const t = (await delta()).json;
		expect(t).toMatchObject({ object: 'video', status: 'queued', progress: 0 });
		const early = await call('GET', `/v1/videos/${t.id}/content`);
		expect(early).toMatchObject({ status: 400, json: { code: 'task_not_finished', data: null } });
		const done = await waitFor(async () => {
			const r = await call('GET', `/v1/videos/${t.id}`);
			return !['queued', 'in_progress'].includes(r.json.status) && r;
		}, 'the video done');
		expect(done.json).toMatchObject({ status: 'completed', progress: 100 });
		expect(done.json.usage.completion_tokens).toBeGreaterThan(0);
		const mp4 = await call('GET', `/v1/videos/${t.id}/content`);
		expect(mp4.buf.subarray(4, 8).toString('latin1')).toBe('ftyp');
		expect(Number(mp4.headers['content-length'])).toBe(mp4.buf.length);
		const kinds = sim.ledger.filter((l) => l.taskId === t.id).map((l) => l.kind);
		expect(kinds).toEqual(['reserve', 'settle']);
		expect(await call('GET', '/v1/videos/vid_none')).toMatchObject({
			status: 404,
			json: { code: 'task_not_exist', data: null },
		});
		expect((await call('GET', '/v1/videos/vid_none/content')).status).toBe(404);
	});

	it.each([
		[{ aspect_ratio: '16:9' }],
		[{ duration: 5 }],
		[{ size: '720p' }],
		[{ ratio: 'adaptive' }],
		[{ resolution: '1080p' }],
		[{ prompt: 'x'.repeat(6001) }],
		[{ seed: -2 }],
		[{ seconds: -1 }],
		[{ images: ['http://media.example/a.png'] }],
		[{ images: ['https://127.0.0.1/a.png'] }],
		[{ metadata: { first_frame_image: 'https://media.example/f.png' } }],
		[{ metadata: { content: [{ type: 'text', text: 'a' }] } }],
		[
			{
				images: ['https://media.example/a.png'],
				metadata: {
					content: [
						{
							type: 'image_url',
							image_url: { url: 'https://media.example/b.png' },
							role: 'reference_image',
						},
					],
				},
			},
		],
		[
			{
				metadata: {
					content: Array.from({ length: 10 }, (_, k) => ({
						type: 'image_url',
						image_url: { url: `https://media.example/${k}.png` },
						role: 'reference_image',
					})),
				},
			},
		],
	])('delta rule: %j → 400 in the task envelope', async (extra) => {
		const r = await delta(extra);
		expect(r.status).toBe(400);
		expect(r.json).toMatchObject({ code: 'invalid_request', data: null });
		expect(sim.ledger).toHaveLength(0);
	});

	it('gamma: the response variants cover every ID, status and URL placement', async () => {
		const ids: string[] = [];
		for (let k = 0; k < 5; k++) {
			const r = await call('POST', '/v1/videos', {
				json: { model: 'gamma-video-1.0', prompt: 'x', seconds: 8 },
			});
			const b = r.json;
			ids.push(b.task_id ?? b.id ?? b.data?.task_id);
		}
		const resultUrl = (b: Record<string, any>) =>
			b.result_url ?? b.video?.url ?? b.data?.result_url ?? b.data?.url ?? b.data?.video?.url;
		for (const id of ids)
			await waitFor(
				async () => resultUrl((await call('GET', `/v1/videos/${id}`)).json),
				`gamma ${id} done`,
			);
		const places = new Set<string>();
		for (const id of ids) {
			const b = (await call('GET', `/v1/videos/${id}`)).json;
			if (b.result_url) places.add('result_url');
			if (b.video?.url) places.add('video.url');
			if (b.data?.result_url) places.add('data.result_url');
			if (b.data?.url) places.add('data.url');
			if (b.data?.video?.url) places.add('data.video.url');
			places.add(b.status ? `status:${b.status}` : `data.status:${b.data.status}`);
		}
		expect([...places].filter((p) => !p.includes('status'))).toHaveLength(5);
		expect([...places].some((p) => p.startsWith('data.status:'))).toBe(true);
		expect([...places].some((p) => /status:[A-Z]+$/.test(p))).toBe(true);
	});

	it('the alternative origin keeps its own tasks; compat path /v1/video/generations', async () => {
		const alt = await delta({}, { base: sim.altBaseUrl });
		expect((await call('GET', `/v1/videos/${alt.json.id}`, { base: sim.altBaseUrl })).status).toBe(
			200,
		);
		expect((await call('GET', `/v1/videos/${alt.json.id}`)).status).toBe(404);
		const compat = await call('POST', '/v1/video/generations', {
			json: { model: 'gamma-video-1.5', prompt: 'x', seconds: 6 },
		});
		expect(compat.status).toBe(200);
	});
});

describe('pricing, faults, admin API', () => {
	it('pricing and status without a key', async () => {
		const p = await call('GET', '/api/pricing', { key: null });
		expect(
			p.json.data.find((m: { model_name: string }) => m.model_name === 'delta-chat-tiered')
				.billing_mode,
		).toBe('tiered_expr');
		expect(p.json.usable_group.promo).toBeDefined();
		expect(p.json.group_ratio.promo).toBeUndefined();
		sim.setStatus({ quota_display_type: 'CUSTOM' });
		expect((await call('GET', '/api/status', { key: null })).json.data.quota_display_type).toBe(
			'CUSTOM',
		);
		sim.setStatus({});
	});

	it('rate limits with and without Retry-After and with an empty body; 5xx; times counting', async () => {
		sim.fault({ route: 'GET /v1/models', kind: 'rate-limit', retryAfter: 2 });
		sim.fault({ route: 'GET /v1/models', kind: 'rate-limit', emptyBody: true });
		sim.fault({ route: 'GET /v1/models', kind: 'status', status: 502, times: 2 });
		const a = await call('GET', '/v1/models');
		expect(a.status).toBe(429);
		expect(a.headers['retry-after']).toBe('2');
		const b = await call('GET', '/v1/models');
		expect(b.status).toBe(429);
		expect(b.buf.length).toBe(0);
		expect(b.headers['retry-after']).toBeUndefined();
		expect((await call('GET', '/v1/models')).status).toBe(502);
		expect((await call('GET', '/v1/models')).status).toBe(502);
		expect((await call('GET', '/v1/models')).status).toBe(200);
	});

	it('reset before creation leaves no task; reset after creation leaves a charged task', async () => {
		sim.fault({ route: 'POST /v1/images/generations/async', kind: 'reset-before' });
		await expect(gen({})).rejects.toThrow();
		expect(sim.ledger).toHaveLength(0);
		sim.fault({ route: 'POST /v1/images/generations/async', kind: 'reset-after' });
		await expect(gen({})).rejects.toThrow();
		expect(sim.ledger).toHaveLength(1);
	});

	it('empty result, HTML result, truncated image, foreign poll_url, malformed JSON, uncertain failure, expiry, redirect', async () => {
		sim.fault({ route: 'POST /v1/images/generations/async', kind: 'empty-result' });
		const empty = await untilDone((await gen({})).json.task_id);
		expect(empty.json).toMatchObject({ status: 'completed', data: [] });
		sim.fault({ route: 'POST /v1/images/generations/async', kind: 'uncertain-failed' });
		const unc = await untilDone((await gen({})).json.task_id);
		expect(unc.json).toMatchObject({ status: 'failed', submission_uncertain: true });
		sim.fault({ route: 'POST /v1/images/generations/async', kind: 'foreign-poll-url' });
		const foreign = await gen({});
		expect(new URL(foreign.json.poll_url).origin).toBe(sim.resultBaseUrl);
		const ok = await untilDone((await gen({})).json.task_id);
		const path = new URL(ok.json.data[0].url).pathname;
		sim.fault({ route: `GET ${path}`, kind: 'html-result' });
		const html = await call('GET', path, { base: sim.resultBaseUrl, key: null });
		expect(html.buf.toString()).toMatch(/<html>/);
		sim.fault({ route: `GET ${path}`, kind: 'truncate' });
		await expect(call('GET', path, { base: sim.resultBaseUrl, key: null })).rejects.toThrow();
		sim.fault({ route: 're:^GET /v1/images/tasks/', kind: 'malformed-json' });
		const bad = await call('GET', `/v1/images/tasks/${ok.json.task_id}`);
		expect(bad.json).toBeUndefined();
		sim.fault({ route: 'POST /v1/images/generations/async', kind: 'expire' });
		const gone = (await gen({})).json.task_id;
		expect((await call('GET', `/v1/tasks/${gone}`)).status).toBe(404);
		sim.fault({ route: 'GET /v1/models', kind: 'redirect' });
		const redirect = await call('GET', '/v1/models');
		expect(redirect.status).toBe(302);
		expect(redirect.headers.location).toMatch(sim.resultBaseUrl);
	});

	it('video-unknown answers `unknown` for the first polls', async () => {
		sim.fault({ route: 'POST /v1/videos', kind: 'video-unknown', polls: 2 });
		const t = (
			await call('POST', '/v1/videos', {
				json: {
					model: 'delta-video-2-0-mini-260615',
					prompt: 'x',
					generate_audio: false,
					watermark: false,
				},
			})
		).json;
		expect((await call('GET', `/v1/videos/${t.id}`)).json.status).toBe('unknown');
		expect((await call('GET', `/v1/videos/${t.id}`)).json.status).toBe('unknown');
		expect((await call('GET', `/v1/videos/${t.id}`)).json.status).not.toBe('unknown');
	});

	it('admin API over HTTP sets faults and reads log and ledger; admin calls are not logged', async () => {
		await call('POST', '/__sim/faults', {
			key: null,
			json: { route: 'GET /v1/models', kind: 'status', status: 500 },
		});
		expect((await call('GET', '/v1/models')).status).toBe(500);
		const log = await call('GET', '/__sim/log', { key: null });
		expect(log.json).toEqual([
			expect.objectContaining({
				method: 'GET',
				path: '/v1/models',
				status: 500,
				auth: true,
				server: 'gateway',
			}),
		]);
		await gen({});
		expect((await call('GET', '/__sim/ledger', { key: null })).json).toHaveLength(1);
		await call('POST', '/__sim/reset', { key: null });
		expect(sim.log).toHaveLength(0);
	});
});
