import { BaseUrlError, composeUrl, normaliseBaseUrl } from '../../nodes/shared/transport/baseUrl';
import { startServer, transportFor, withoutProxyEnv, type TestServer } from './support';

describe('normaliseBaseUrl: /v1 is composed exactly once', () => {
	it.each([
		'https://gw.example.com',
		'https://gw.example.com/',
		'https://gw.example.com/v1',
		'https://gw.example.com/v1/',
		'https://gw.example.com//',
		'https://gw.example.com/v1//',
		'https://gw.example.com/V1',
		'https://gw.example.com/v1beta',
		'https://gw.example.com/v1/v1/',
		'  https://gw.example.com/v1/  ',
	])('%j → https://gw.example.com', (raw) => {
		const root = normaliseBaseUrl(raw);
		expect(root).toEqual({ origin: 'https://gw.example.com', root: 'https://gw.example.com' });
		expect(composeUrl(root, '/v1/models')).toBe('https://gw.example.com/v1/models');
		expect(composeUrl(root, '/v1beta/models/beta-3-pro-image-preview:generateContent')).toBe(
			'https://gw.example.com/v1beta/models/beta-3-pro-image-preview:generateContent',
		);
	});

	it.each([
		'https://gw.example.com/gw',
		'https://gw.example.com/gw/',
		'https://gw.example.com/gw/v1',
		'https://gw.example.com/gw/v1/',
	])('keeps a path prefix: %j', (raw) => {
		const root = normaliseBaseUrl(raw);
		expect(root.origin).toBe('https://gw.example.com');
		expect(root.root).toBe('https://gw.example.com/gw');
		expect(composeUrl(root, '/v1/images/generations/async')).toBe(
			'https://gw.example.com/gw/v1/images/generations/async',
		);
	});

	it('keeps a non-default port and drops the default one', () => {
		expect(normaliseBaseUrl('http://127.0.0.1:8080/v1')).toEqual({
			origin: 'http://127.0.0.1:8080',
			root: 'http://127.0.0.1:8080',
		});
		expect(normaliseBaseUrl('https://gw.example.com:443/v1').origin).toBe('https://gw.example.com');
	});

	it('does not mistake a path segment that merely ends in v1 for the API version', () => {
		expect(normaliseBaseUrl('https://gw.example.com/apiv1').root).toBe(
			'https://gw.example.com/apiv1',
		);
	});

	it('composeUrl refuses a path without a leading slash', () => {
		expect(() => composeUrl(normaliseBaseUrl('https://gw.example.com'), 'v1/models')).toThrow(
			/must start with "\/"/,
		);
	});
});

describe('normaliseBaseUrl refuses what cannot be a gateway origin, with clear messages', () => {
	const refuse = (raw: unknown, field?: string) => {
		try {
			normaliseBaseUrl(raw, field);
		} catch (err) {
			expect(err).toBeInstanceOf(BaseUrlError);
			return (err as BaseUrlError).message;
		}
		throw new Error(`accepted ${String(raw)}`);
	};

	it.each([
		['https://gw.example.com/v1?key=abc', /query string/],
		['https://gw.example.com/?', /query string/],
		['https://gw.example.com/v1#models', /fragment/],
		['https://gw.example.com/#', /fragment/],
		['https://user:secret@gw.example.com/v1', /user info/],
		['https://user@gw.example.com', /user info/],
	])('%j', (raw, message) => {
		expect(refuse(raw)).toMatch(message);
	});

	it('does not echo a key put in the query string', () => {
		expect(refuse('https://gw.example.com/v1?key=sk-live-secret')).not.toContain('sk-live-secret');
		expect(refuse('https://me:sk-live-secret@gw.example.com')).not.toContain('sk-live-secret');
	});

	it.each([
		'ftp://gw.example.com',
		'file:///etc/passwd',
		'ws://gw.example.com',
		'wss://gw.example.com',
		'javascript:alert(1)',
		'data:text/plain,hi',
	])('non-http scheme %j', (raw) => {
		expect(refuse(raw)).toMatch(/must use http or https/);
	});

	it.each(['gw.example.com', 'gw.example.com/v1', 'localhost:8080', '127.0.0.1:3000/v1', '/v1'])(
		'an address without a scheme: %j',
		(raw) => {
			expect(refuse(raw)).toMatch(/http:\/\/ or https:\/\//);
		},
	);

	it.each(['http://', 'https://exa mple.com', 'https://[::1'])(
		'an address that does not parse: %j',
		(raw) => {
			expect(refuse(raw)).toMatch(/is not an absolute URL/);
		},
	);

	it('does not echo a value that may be a key pasted into the wrong field', () => {
		expect(refuse('sk-live-secret')).not.toContain('sk-live-secret');
		expect(refuse('http://sk live secret')).not.toContain('sk live secret');
	});

	it.each([undefined, null, '', '   ', 42])('missing: %j', (raw) => {
		expect(refuse(raw)).toMatch(/is required/);
	});

	it('names the field', () => {
		expect(refuse('ftp://x', 'Video Base URL')).toMatch(/^Video Base URL: /);
		expect(refuse('ftp://x')).toMatch(/^Base URL: /);
	});
});

describe('the transport composes /v1/... exactly once over real HTTP', () => {
	let srv: TestServer;
	beforeAll(async () => {
		withoutProxyEnv();
		srv = await startServer();
	});
	afterAll(() => srv.close());
	beforeEach(() => srv.reset());

	it.each(['', '/', '/v1', '/v1/', '/V1/'])('base %j', async (suffix) => {
		const t = transportFor(srv.origin + suffix);
		await t.getJson('/v1/models');
		await t.submit('/v1/images/generations/async', { json: { model: 'm', prompt: 'p' } });
		expect(srv.seen.map((s) => s.url)).toEqual(['/v1/models', '/v1/images/generations/async']);
	});

	it.each(['/gw', '/gw/', '/gw/v1', '/gw/v1/'])('prefix %j is kept', async (suffix) => {
		const t = transportFor(srv.origin + suffix);
		await t.getJson('/v1/models');
		expect(srv.seen.map((s) => s.url)).toEqual(['/gw/v1/models']);
	});

	it('the video origin is normalised the same way', async () => {
		const t = transportFor('https://gw.example.com', { videoBase: `${srv.origin}/v1/` });
		await t.getJson('/v1/videos/task_1', { origin: 'video' });
		expect(srv.seen.map((s) => s.url)).toEqual(['/v1/videos/task_1']);
	});
});
