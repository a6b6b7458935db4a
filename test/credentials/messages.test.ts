/**
 * What the credential's Test button says for each way it can fail, and what it sends: n8n's credential tester
 * (tester.ts) run against real loopback servers, a closed port and a name that does not resolve. Every failure
 * names what is wrong and what to do; nothing is sent for a base URL the nodes would refuse.
 */
import {
	KEY,
	closedPort,
	json,
	startServer,
	text,
	withoutProxyEnv,
	type TestServer,
} from '../transport/support';
import { MESSAGE_401, MESSAGE_403, checkGatewayCredential } from '../../nodes/shared/credentials';
import { testCredential } from './tester';

let gw: TestServer;
beforeAll(async () => {
	withoutProxyEnv();
	gw = await startServer();
});
afterAll(() => gw.close());

const models = () =>
	gw.reset((_req, res) => json(res, 200, { object: 'list', data: [{ id: 'alpha-image-2.5' }] }));

describe('refused before any request', () => {
	beforeEach(models);

	it.each([
		[
			'a query string',
			(o: string) => `${o}/v1?key=${KEY}`,
			/^Base URL: must not contain a query string .*Enter only the gateway's root address \(for example https:\/\/gateway\.example\.com\)\.$/,
		],
		[
			'a fragment',
			(o: string) => `${o}/#models`,
			/^Base URL: must not contain a fragment .*Enter only the gateway's root address/,
		],
		[
			'user:password@',
			(o: string) => o.replace('http://', 'http://me:pw@'),
			/^Base URL: must not contain user info .*put the key in the API Key field\. Enter only/,
		],
		[
			'no scheme',
			(o: string) => o.replace('http://', ''),
			/^Base URL: must start with http:\/\/ or https:\/\//,
		],
	])('a Base URL with %s says so and what to enter', async (_what, url, message) => {
		const verdict = await testCredential({ apiKey: KEY, baseUrl: url(gw.origin) });
		expect(verdict.status).toBe('Error');
		expect(verdict.message).toMatch(message);
		expect(verdict.message).not.toContain(KEY);
		expect(gw.seen).toEqual([]);
	});

	it('a Video Base URL with a query string names the video field', async () => {
		const verdict = await testCredential({
			apiKey: KEY,
			baseUrl: gw.origin,
			videoBaseUrl: `${gw.origin}/?region=eu`,
		});
		expect(verdict).toEqual({
			status: 'Error',
			message: expect.stringMatching(
				/^Video Base URL: must not contain a query string .*Enter only the gateway's root address/,
			),
		});
		expect(gw.seen).toEqual([]);
	});

	it('an empty key says where to get one', async () => {
		expect(await testCredential({ apiKey: '  ', baseUrl: gw.origin })).toEqual({
			status: 'Error',
			message: 'The API Key is empty. Paste the key created in the gateway console.',
		});
		expect(gw.seen).toEqual([]);
	});
});

describe('the gateway cannot be reached', () => {
	it('a closed port: connection refused, check host and port, proxy and firewall', async () => {
		const port = await closedPort();
		const verdict = await testCredential({ apiKey: KEY, baseUrl: `http://127.0.0.1:${port}/v1` });
		expect(verdict).toEqual({
			status: 'Error',
			message: `Cannot reach http://127.0.0.1:${port}: connection refused (nothing accepts connections on that port). Check the Base URL's host and port, and that n8n can reach it (proxy, firewall).`,
		});
	});

	it('a host name that does not resolve says so', async () => {
		const verdict = await testCredential({ apiKey: KEY, baseUrl: 'http://gateway.invalid' });
		expect(verdict.status).toBe('Error');
		expect(verdict.message).toMatch(
			/^Cannot reach http:\/\/gateway\.invalid: the host name gateway\.invalid does not resolve \((ENOTFOUND|EAI_AGAIN)\)\. Check the spelling of the Base URL's host, and the DNS n8n uses\.$/,
		);
	});

	it('a server that never answers: no answer within the test timeout', async () => {
		gw.reset(() => undefined);
		const verdict = await checkGatewayCredential({ apiKey: KEY, baseUrl: gw.origin }, 1000);
		expect(verdict).toEqual({
			status: 'Error',
			message: `No answer from ${gw.origin} within 1 s. Check the Base URL's host and port, and that n8n can reach it (proxy, firewall).`,
		});
		expect(gw.seen.map((s) => s.url)).toEqual(['/v1/models']);
	});

	it('a connection closed without an answer: check http vs https and the port', async () => {
		gw.reset((req) => {
			req.socket.destroy();
		});
		const verdict = await testCredential({ apiKey: KEY, baseUrl: gw.origin });
		expect(verdict.status).toBe('Error');
		expect(verdict.message).toMatch(
			new RegExp(
				`^${gw.origin.replace(/\./g, '\\.')} closed the connection without an HTTP answer \\((ECONNRESET|UND_ERR_SOCKET|UND_ERR_CLOSED)\\)\\. Check http vs https and the port`,
			),
		);
		// one attempt: the test does not retry
		expect(gw.seen).toHaveLength(1);
	});

	it('https:// to a plain-HTTP port: the TLS failure says to check http vs https', async () => {
		models();
		const verdict = await testCredential({
			apiKey: KEY,
			baseUrl: gw.origin.replace('http://', 'https://'),
		});
		expect(verdict.status).toBe('Error');
		expect(verdict.message).toMatch(
			/^The connection to https:\/\/127\.0\.0\.1:\d+ failed \(\w+\)\. Check http vs https in the Base URL; for a self-signed or private certificate, give n8n its CA \(NODE_EXTRA_CA_CERTS\)\.$/,
		);
		expect(gw.seen).toEqual([]);
	});
});

describe('the gateway answers with an error', () => {
	it('404 under a path prefix: the Base URL must be the root, try the origin', async () => {
		gw.reset((req, res) =>
			req.url === '/v1/models'
				? json(res, 200, { object: 'list', data: [] })
				: text(res, 404, 'Not Found'),
		);
		const verdict = await testCredential({ apiKey: KEY, baseUrl: `${gw.origin}/api/v1` });
		expect(verdict).toEqual({
			status: 'Error',
			message: `HTTP 404 at ${gw.origin}/api/v1/models: the Base URL must be the gateway's root, without /v1 or another path. Try ${gw.origin} (keep /api only if the gateway really is mounted there).`,
		});
		expect(gw.seen.map((s) => s.url)).toEqual(['/api/v1/models']);
		// the advice is right: the origin alone passes
		expect(await testCredential({ apiKey: KEY, baseUrl: gw.origin })).toEqual({
			status: 'OK',
			message: expect.stringMatching(/^Connection successful! /),
		});
	});

	it('404 at the root: that server is not the gateway, check host and port', async () => {
		gw.reset((_req, res) => text(res, 404, 'Not Found'));
		expect(await testCredential({ apiKey: KEY, baseUrl: gw.origin })).toEqual({
			status: 'Error',
			message: `HTTP 404 at ${gw.origin}/v1/models: the server at ${gw.origin} has no gateway API. The Base URL must be the gateway's root (for example https://gateway.example.com): check the host and port.`,
		});
	});

	it('a web page instead of JSON: not the gateway API', async () => {
		gw.reset((_req, res) => text(res, 200, '<!doctype html><title>Console</title>', 'text/html'));
		expect(await testCredential({ apiKey: KEY, baseUrl: gw.origin })).toEqual({
			status: 'Error',
			message: `${gw.origin}/v1/models answered, but not with JSON (a web page?): that address is not the gateway's API. The Base URL must be the gateway's root (for example https://gateway.example.com).`,
		});
	});

	it('401 and 403 keep their messages', async () => {
		gw.reset((_req, res) => json(res, 401, { error: { message: 'invalid token' } }));
		expect(await testCredential({ apiKey: KEY, baseUrl: gw.origin })).toEqual({
			status: 'Error',
			message: MESSAGE_401,
		});
		expect(MESSAGE_401).toBe(
			'The API key is missing, invalid or expired (HTTP 401). Check the key in the gateway console.',
		);
		gw.reset((_req, res) => json(res, 403, { error: { message: 'group denied' } }));
		expect(await testCredential({ apiKey: KEY, baseUrl: gw.origin })).toEqual({
			status: 'Error',
			message: MESSAGE_403,
		});
	});

	it('429: the address and key reached the gateway, try again in a moment (asked once)', async () => {
		gw.reset((_req, res) =>
			json(res, 429, { error: { message: 'slow down' } }, { 'retry-after': '1' }),
		);
		const verdict = await testCredential({ apiKey: KEY, baseUrl: gw.origin });
		expect(verdict).toEqual({
			status: 'Error',
			message:
				'The gateway is rate-limiting this key (HTTP 429): the address and the key reached it. Try the test again in a moment.',
		});
		expect(gw.seen).toHaveLength(1);
	});

	it("502 from a proxy: the gateway's message and what to do, asked once", async () => {
		gw.reset((_req, res) => json(res, 502, { error: { message: 'upstream connect error' } }));
		const verdict = await testCredential({ apiKey: KEY, baseUrl: gw.origin });
		expect(verdict).toEqual({
			status: 'Error',
			message: `HTTP 502 at ${gw.origin}/v1/models: upstream connect error. The gateway, or a proxy in front of it, has a problem: try again later, and check the Base URL if a proxy answers for it.`,
		});
		expect(gw.seen).toHaveLength(1);
	});

	it('the key never appears in a message, even when the gateway echoes it or it was pasted into the path', async () => {
		gw.reset((_req, res) => json(res, 500, { error: { message: `bad key ${KEY}` } }));
		const echoed = await testCredential({ apiKey: KEY, baseUrl: gw.origin });
		expect(echoed.status).toBe('Error');
		expect(echoed.message).toMatch(/^HTTP 500 at /);
		expect(echoed.message).not.toContain(KEY);
		gw.reset((_req, res) => text(res, 404, 'Not Found'));
		const pasted = await testCredential({ apiKey: KEY, baseUrl: `${gw.origin}/${KEY}` });
		expect(pasted.message).toMatch(/^HTTP 404 at /);
		expect(pasted.message).not.toContain(KEY);
	});
});
