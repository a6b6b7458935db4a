/**
 * The key goes only to the credential's origins, in one exact header, and never across a redirect.
 */
import { buffer as readBuffer, text as readText } from 'node:stream/consumers';
import { SafetyError, GatewayHttpError } from '../../nodes/shared/errors';
import {
	KEY,
	authHeaderCount,
	json,
	rejectionOf,
	startServer,
	text,
	transportFor,
	withoutProxyEnv,
	type TestServer,
} from './support';

let gw: TestServer; // the gateway (base origin)
let video: TestServer; // the alternative video origin
let result: TestServer; // a result host (hosted images)
let result2: TestServer; // a second result host (redirect target)
let foreign: TestServer; // any other origin

const PNG_1x1 = Buffer.from(
	'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
	'base64',
);
const png = (_req: unknown, res: import('node:http').ServerResponse) => {
	res.writeHead(200, { 'content-type': 'image/png', 'content-length': PNG_1x1.length });
	res.end(PNG_1x1);
};

beforeAll(async () => {
	withoutProxyEnv();
	[gw, video, result, result2, foreign] = await Promise.all([
		startServer(),
		startServer(),
		startServer(png),
		startServer(png),
		startServer(),
	]);
});
afterAll(() => Promise.all([gw, video, result, result2, foreign].map((s) => s.close())));
beforeEach(() => {
	gw.reset();
	video.reset();
	result.reset(png);
	result2.reset(png);
	foreign.reset();
});

const nobodyElse = (...servers: TestServer[]) => {
	for (const s of servers) expect(s.seen).toEqual([]);
};

describe('Authorization header', () => {
	it('GET carries exactly one `Authorization: Bearer <key>` with one space', async () => {
		await transportFor(gw.origin).getJson('/v1/models');
		const s = gw.seen[0];
		expect(s.headers.authorization).toBe(`Bearer ${KEY}`);
		expect(s.headers.authorization).toMatch(/^Bearer [^ ]/);
		expect(authHeaderCount(s)).toBe(1);
		expect(s.url).not.toContain(KEY);
	});

	it('POST (JSON) carries it too, with the JSON body and content type', async () => {
		await transportFor(gw.origin).submit('/v1/images/generations/async', {
			json: { model: 'alpha-image-2.5', prompt: 'a cat', n: 1 },
		});
		const s = gw.seen[0];
		expect(s.method).toBe('POST');
		expect(s.headers.authorization).toBe(`Bearer ${KEY}`);
		expect(authHeaderCount(s)).toBe(1);
		expect(s.headers['content-type']).toBe('application/json');
		expect(JSON.parse(s.body)).toEqual({ model: 'alpha-image-2.5', prompt: 'a cat', n: 1 });
	});

	it("multipart POST (Node's global FormData, as nodes build it) lets the library set the boundary, and carries the key", async () => {
		const form = new FormData();
		form.append('model', 'alpha-image-2.5');
		form.append('prompt', 'keep the cat');
		form.append('image', new Blob([PNG_1x1], { type: 'image/png' }), 'ref.png');
		const out = await transportFor(gw.origin).submit('/v1/images/edits/async', { form });
		expect(out.kind).toBe('accepted');
		expect(gw.seen).toHaveLength(1);
		const s = gw.seen[0];
		expect(s.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
		expect(s.headers.authorization).toBe(`Bearer ${KEY}`);
		expect(s.body).toContain('name="prompt"');
		expect(s.body).toContain('filename="ref.png"');
		expect(s.body).toContain('Content-Type: image/png');
		expect(s.body).toContain('IHDR');
	});

	it('extra headers do not replace the key', async () => {
		await transportFor(gw.origin).submit(
			'/v1/images/generations',
			{ json: {} },
			{ headers: { Prefer: 'respond-async' } },
		);
		expect(gw.seen[0].headers.prefer).toBe('respond-async');
		expect(gw.seen[0].headers.authorization).toBe(`Bearer ${KEY}`);
		expect(authHeaderCount(gw.seen[0])).toBe(1);
	});

	it('public endpoints (auth: false) carry no key', async () => {
		await transportFor(gw.origin).getJson('/api/pricing', { auth: false });
		expect(gw.seen[0].url).toBe('/api/pricing');
		expect(gw.seen[0].headers.authorization).toBeUndefined();
	});
});

describe('key pinning: an absolute URL on another origin is refused before anything is sent', () => {
	it('trustedKind knows exactly the two credential origins', () => {
		const t = transportFor(`${gw.origin}/v1`, { videoBase: video.origin });
		expect(t.trustedKind(`${gw.origin}/v1/images/tasks/abc`)).toBe('base');
		expect(t.trustedKind(`${video.origin}/v1/videos/abc`)).toBe('video');
		expect(t.trustedKind(`${foreign.origin}/v1/images/tasks/abc`)).toBeUndefined();
		expect(t.trustedKind(gw.origin.replace('127.0.0.1', 'localhost'))).toBeUndefined();
		expect(t.trustedKind(gw.origin.replace('http:', 'https:'))).toBeUndefined();
		expect(t.trustedKind('not a url')).toBeUndefined();
	});

	it('getJson on a foreign poll_url throws SafetyError; no server hears anything', async () => {
		const t = transportFor(gw.origin, { videoBase: video.origin });
		const err = await rejectionOf(t.getJson(`${foreign.origin}/v1/images/tasks/abc`));
		expect(err).toBeInstanceOf(SafetyError);
		expect(err.message).toContain(foreign.origin);
		expect(err.message).not.toContain(KEY);
		nobodyElse(gw, video, foreign);
	});

	it('the same host under another name (localhost vs 127.0.0.1) is another origin', async () => {
		const t = transportFor(gw.origin);
		const err = await rejectionOf(
			t.getJson(`${gw.origin.replace('127.0.0.1', 'localhost')}/v1/models`),
		);
		expect(err).toBeInstanceOf(SafetyError);
		nobodyElse(gw);
	});

	it('submit and postStream refuse a foreign absolute URL', async () => {
		const t = transportFor(gw.origin);
		expect(await rejectionOf(t.submit(`${foreign.origin}/v1/videos`, { json: {} }))).toBeInstanceOf(
			SafetyError,
		);
		expect(
			await rejectionOf(t.postStream(`${foreign.origin}/v1/chat/completions`, {})),
		).toBeInstanceOf(SafetyError);
		nobodyElse(gw, foreign);
	});

	it('download with the key refuses a foreign URL', async () => {
		const t = transportFor(gw.origin);
		expect(
			await rejectionOf(t.download(`${foreign.origin}/v1/videos/x/content`, { withKey: true })),
		).toBeInstanceOf(SafetyError);
		nobodyElse(gw, foreign);
	});

	it('a poll_url on the base origin is followed, with the key', async () => {
		const t = transportFor(`${gw.origin}/v1/`);
		await t.getJson(`${gw.origin}/v1/images/tasks/task_1`);
		expect(gw.seen[0].url).toBe('/v1/images/tasks/task_1');
		expect(gw.seen[0].headers.authorization).toBe(`Bearer ${KEY}`);
	});

	it('the video origin is trusted: absolute URLs and origin:"video" paths carry the key there and only there', async () => {
		const t = transportFor(gw.origin, { videoBase: `${video.origin}/v1` });
		await t.getJson(`${video.origin}/v1/videos/vid_1`);
		await t.getJson('/v1/videos/vid_2', { origin: 'video' });
		await t.submit(
			'/v1/videos',
			{ json: { model: 'delta-video-2-0-mini-260615', prompt: 'x' } },
			{ origin: 'video' },
		);
		const dl = await t.download('/v1/videos/vid_2/content', { withKey: true, origin: 'video' });
		await readText(dl.body);
		expect(video.seen.map((s) => `${s.method} ${s.url}`)).toEqual([
			'GET /v1/videos/vid_1',
			'GET /v1/videos/vid_2',
			'POST /v1/videos',
			'GET /v1/videos/vid_2/content',
		]);
		for (const s of video.seen) expect(s.headers.authorization).toBe(`Bearer ${KEY}`);
		nobodyElse(gw);
	});

	it('without a video origin, origin:"video" uses the base origin', async () => {
		const t = transportFor(gw.origin);
		await t.getJson('/v1/videos/vid_1', { origin: 'video' });
		expect(gw.seen[0].url).toBe('/v1/videos/vid_1');
	});
});

describe('redirects are never followed on authenticated calls', () => {
	const redirectTo =
		(target: string, status = 302) =>
		(_req: unknown, res: import('node:http').ServerResponse) => {
			res.writeHead(status, { location: target, 'content-length': 0 });
			res.end();
		};

	it.each([301, 302, 303, 307, 308])(
		'GET answered %i → GatewayHttpError naming the redirect; target hears nothing; not retried',
		async (status) => {
			gw.reset(redirectTo(`${foreign.origin}/v1/models`, status));
			const err = await rejectionOf(transportFor(gw.origin).getJson('/v1/models'));
			expect(err).toBeInstanceOf(GatewayHttpError);
			expect((err as unknown as GatewayHttpError).status).toBe(status);
			expect(err.message).toMatch(/redirect/i);
			expect(err.message).toContain(foreign.origin);
			expect(gw.seen).toHaveLength(1);
			nobodyElse(foreign);
		},
	);

	it('a redirect to the same origin is not followed either', async () => {
		gw.reset((req, res) =>
			req.url === '/v1/models' ? redirectTo('/v1/models/')(req, res) : json(res, 200, {}),
		);
		const err = await rejectionOf(transportFor(gw.origin).getJson('/v1/models'));
		expect(err).toBeInstanceOf(GatewayHttpError);
		expect(gw.seen.map((s) => s.url)).toEqual(['/v1/models']);
	});

	it.each([302, 307, 308])(
		'POST answered %i → uncertain outcome naming the redirect; sent once; target hears nothing',
		async (status) => {
			gw.reset(redirectTo(`${foreign.origin}/v1/images/generations/async`, status));
			const out = await transportFor(gw.origin).submit('/v1/images/generations/async', {
				json: { prompt: 'x' },
			});
			expect(out.kind).toBe('uncertain');
			if (out.kind !== 'uncertain') return;
			expect(out.status).toBe(status);
			expect(out.reason).toMatch(/redirect/i);
			expect(out.reason).toContain(foreign.origin);
			expect(gw.seen).toHaveLength(1);
			nobodyElse(foreign);
		},
	);

	it('a streamed POST answered 307 → uncertain, target hears nothing', async () => {
		gw.reset(redirectTo(`${foreign.origin}/v1/chat/completions`, 307));
		const out = await transportFor(gw.origin).postStream('/v1/chat/completions', { stream: true });
		expect('kind' in out && out.kind).toBe('uncertain');
		expect(gw.seen).toHaveLength(1);
		nobodyElse(foreign);
	});

	it('an authenticated download answered 302 → GatewayHttpError; target hears nothing', async () => {
		gw.reset(redirectTo(`${foreign.origin}/file.mp4`));
		const err = await rejectionOf(
			transportFor(gw.origin).download('/v1/videos/v/content', { withKey: true }),
		);
		expect(err).toBeInstanceOf(GatewayHttpError);
		expect(err.message).toMatch(/redirect/i);
		expect(gw.seen).toHaveLength(1);
		nobodyElse(foreign);
	});
});

describe('download without the key (hosted results)', () => {
	it('a result host never receives Authorization', async () => {
		const t = transportFor(gw.origin);
		const res = await t.download(`${result.origin}/img/a.png`, { withKey: false });
		expect(res.status).toBe(200);
		expect(res.contentType).toBe('image/png');
		expect(await readBuffer(res.body)).toEqual(PNG_1x1);
		expect(result.seen[0].headers.authorization).toBeUndefined();
		nobodyElse(gw);
	});

	it('follows a redirect to another host, still without the key', async () => {
		result.reset((_req, res) => {
			res.writeHead(302, {
				location: `${result2.origin}/signed/a.png?sig=abc`,
				'content-length': 0,
			});
			res.end();
		});
		const res = await transportFor(gw.origin).download(`${result.origin}/img/a.png`, {
			withKey: false,
		});
		await readBuffer(res.body);
		expect(res.url).toBe(`${result2.origin}/signed/a.png?sig=abc`);
		expect(result.seen[0].headers.authorization).toBeUndefined();
		expect(result2.seen).toHaveLength(1);
		expect(result2.seen[0].headers.authorization).toBeUndefined();
		nobodyElse(gw);
	});

	it('a result URL on the gateway origin itself is also fetched without the key when withKey is false', async () => {
		gw.reset(png);
		const res = await transportFor(gw.origin).download(`${gw.origin}/files/a.png`, {
			withKey: false,
		});
		await readBuffer(res.body);
		expect(gw.seen[0].headers.authorization).toBeUndefined();
	});

	it('a chain of relative redirects is followed up to 3 hops, then refused', async () => {
		result.reset((req, res) => {
			const n = Number(/\/hop(\d+)/.exec(req.url ?? '')?.[1] ?? 0);
			res.writeHead(302, { location: `/hop${n + 1}`, 'content-length': 0 });
			res.end();
		});
		const attempts: string[] = [];
		const t = transportFor(gw.origin, { onAttempt: (a) => attempts.push(new URL(a.url).pathname) });
		const err = await rejectionOf(t.download(`${result.origin}/hop0`, { withKey: false }));
		expect(err).toBeInstanceOf(GatewayHttpError);
		expect(result.seen.map((s) => s.url)).toEqual(['/hop0', '/hop1', '/hop2', '/hop3']);
		expect(attempts).toEqual(['/hop0', '/hop1', '/hop2', '/hop3']);
		for (const s of result.seen) expect(s.headers.authorization).toBeUndefined();
	});

	it('a redirect to a non-http scheme is refused', async () => {
		result.reset((_req, res) => {
			res.writeHead(302, { location: 'file:///etc/passwd', 'content-length': 0 });
			res.end();
		});
		const err = await rejectionOf(
			transportFor(gw.origin).download(`${result.origin}/a.png`, { withKey: false }),
		);
		expect(err).toBeInstanceOf(SafetyError);
		expect(result.seen).toHaveLength(1);
	});

	it('a non-http result address is refused before anything is sent', async () => {
		const err = await rejectionOf(
			transportFor(gw.origin).download('ftp://files.example.com/a.png', { withKey: false }),
		);
		expect(err).toBeInstanceOf(SafetyError);
	});

	it('a 404 from a result host is an HTTP error with the status, not retried', async () => {
		result.reset((_req, res) => text(res, 404, 'gone'));
		const err = await rejectionOf(
			transportFor(gw.origin).download(`${result.origin}/a.png`, { withKey: false }),
		);
		expect((err as unknown as GatewayHttpError).status).toBe(404);
		expect(result.seen).toHaveLength(1);
	});
});
