/**
 * The credential's Test button never follows a redirect: the key in `Authorization` reaches the Base URL's
 * origin only, and a redirect fails the test with a message that says why (n8n's tester run in-process).
 */
import { cleanupBinaryData } from '../harness/workflow';
import { KEY, json, startServer, withoutProxyEnv, type TestServer } from '../transport/support';
import { testCredential } from './tester';

let gw: TestServer;
let foreign: TestServer;
beforeAll(async () => {
	withoutProxyEnv();
	[gw, foreign] = await Promise.all([startServer(), startServer()]);
});
afterAll(async () => {
	await Promise.all([gw.close(), foreign.close()]);
	cleanupBinaryData();
});
beforeEach(() => {
	foreign.reset((_req, res) =>
		json(res, 200, { object: 'list', data: [{ id: 'alpha-image-2.5' }] }),
	);
});

describe('credential test', () => {
	it('a gateway answering the model list: success, the key sent once to the Base URL', async () => {
		gw.reset((_req, res) => json(res, 200, { object: 'list', data: [{ id: 'alpha-image-2.5' }] }));
		const verdict = await testCredential({ apiKey: KEY, baseUrl: gw.origin });
		expect(verdict).toEqual({
			status: 'OK',
			message: expect.stringMatching(/^Connection successful! /),
		});
		expect(gw.seen.map((s) => [s.method, s.url, s.headers.authorization])).toEqual([
			['GET', '/v1/models', `Bearer ${KEY}`],
		]);
	});

	it.each([301, 302, 303, 307, 308])(
		'HTTP %i to another origin is not followed: the other origin sees nothing, the test fails saying why',
		async (status) => {
			gw.reset((_req, res) => {
				res.writeHead(status, { location: `${foreign.origin}/v1/models` });
				res.end();
			});
			const verdict = await testCredential({ apiKey: KEY, baseUrl: gw.origin });
			// what the other origin received, if anything: the header n8n would have re-sent
			expect(foreign.seen.map((s) => s.headers.authorization ?? '(no header)')).toEqual([]);
			expect(gw.seen).toHaveLength(1);
			expect(verdict.status).toBe('Error');
			expect(verdict.message).toMatch(
				new RegExp(`^The Base URL answered a redirect \\(HTTP ${status}\\)`),
			);
			expect(verdict.message).toMatch(/not followed/);
			expect(verdict.message).not.toContain(KEY);
		},
	);

	it('a same-origin redirect (e.g. http → path with a slash) is not followed either', async () => {
		gw.reset((req, res) => {
			if (req.url === '/v1/models') {
				res.writeHead(302, { location: '/v1/models/' });
				res.end();
			} else json(res, 200, { object: 'list', data: [] });
		});
		const verdict = await testCredential({ apiKey: KEY, baseUrl: gw.origin });
		expect(verdict.status).toBe('Error');
		expect(gw.seen.map((s) => s.url)).toEqual(['/v1/models']);
	});

	it('401 and 403 keep their messages', async () => {
		gw.reset((_req, res) => json(res, 401, { error: { message: 'invalid key' } }));
		expect(await testCredential({ apiKey: KEY, baseUrl: gw.origin })).toMatchObject({
			status: 'Error',
			message: expect.stringMatching(/HTTP 401/),
		});
		gw.reset((_req, res) => json(res, 403, { error: { message: 'no' } }));
		expect(await testCredential({ apiKey: KEY, baseUrl: gw.origin })).toMatchObject({
			status: 'Error',
			message: expect.stringMatching(/HTTP 403/),
		});
	});
});
