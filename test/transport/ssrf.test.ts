/**
 * n8n's SSRF settings (N8N_SSRF_*) obeyed by result downloads, over real HTTP on loopback: with the protection on, an
 * address on a blocked range (an IP literal, a name that resolves to one, a name that resolves to one only when the
 * connection is made) is refused before any connection; the credential's own origin stays usable; the allow lists
 * let an address through; with the protection off nothing changes. Each result host counts the TCP connections it
 * accepts, so "refused before connecting" is what the host saw, not what the client says.
 */
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buffer as readBuffer } from 'node:stream/consumers';
import type { LookupAddress } from 'node:dns';
import { SafetyError } from '../../nodes/shared/errors';
import {
	SSRF_DEFAULT_BLOCKED_IP_RANGES,
	SsrfBlockedError,
	SsrfGuard,
	readSsrfSettings,
} from '../../nodes/shared/transport/ssrf';
import {
	KEY,
	rejectionOf,
	startServer,
	transportFor,
	withoutProxyEnv,
	type TestServer,
} from './support';

const PNG_1x1 = Buffer.from(
	'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
	'base64',
);
const png = (_req: unknown, res: import('node:http').ServerResponse) => {
	res.writeHead(200, { 'content-type': 'image/png', 'content-length': PNG_1x1.length });
	res.end(PNG_1x1);
};

const SSRF_VARS = [
	'N8N_SSRF_PROTECTION_ENABLED',
	'N8N_SSRF_BLOCKED_IP_RANGES',
	'N8N_SSRF_ALLOWED_IP_RANGES',
	'N8N_SSRF_ALLOWED_HOSTNAMES',
	'N8N_SSRF_BLOCKED_HOSTNAMES',
];
const clearSsrfEnv = () => {
	for (const v of SSRF_VARS) {
		delete process.env[v];
		delete process.env[`${v}_FILE`];
	}
};
const setEnv = (vars: Record<string, string>) => {
	clearSsrfEnv();
	Object.assign(process.env, vars);
};

let gw: TestServer; // the credential's origin (Base URL), on loopback
let result: TestServer; // a result host on loopback: n8n's default ranges block 127.0.0.0/8

beforeAll(async () => {
	withoutProxyEnv();
	[gw, result] = await Promise.all([startServer(png), startServer(png)]);
});
afterAll(async () => {
	clearSsrfEnv();
	await Promise.all([gw.close(), result.close()]);
});
beforeEach(() => {
	clearSsrfEnv();
	gw.reset(png);
	result.reset(png);
});

const download = (url: string, t = transportFor(gw.origin)) =>
	t.download(url, { withKey: false, timeout: 'imageDownload', maxDurationMs: 10_000 });

async function downloaded(url: string, t = transportFor(gw.origin)): Promise<Buffer> {
	const res = await download(url, t);
	return readBuffer(res.body);
}

const untouched = (s: TestServer) => {
	expect(s.connections).toBe(0);
	expect(s.seen).toEqual([]);
};

describe("n8n's settings, read as n8n 2.41.1 reads them", () => {
	it('off by default, with n8n’s default blocked ranges and empty lists', () => {
		expect(readSsrfSettings({})).toEqual({
			enabled: false,
			blockedIpRanges: [...SSRF_DEFAULT_BLOCKED_IP_RANGES],
			allowedIpRanges: [],
			allowedHostnames: [],
			blockedHostnames: [],
		});
		expect(SSRF_DEFAULT_BLOCKED_IP_RANGES).toContain('127.0.0.0/8');
		expect(SSRF_DEFAULT_BLOCKED_IP_RANGES).toContain('::1/128');
		expect(SSRF_DEFAULT_BLOCKED_IP_RANGES).toContain('169.254.0.0/16');
	});

	it('on with true or 1 in any case; anything else keeps the default (off)', () => {
		for (const v of ['true', 'TRUE', '1'])
			expect(readSsrfSettings({ N8N_SSRF_PROTECTION_ENABLED: v }).enabled).toBe(true);
		for (const v of ['false', '0', 'yes', ''])
			expect(readSsrfSettings({ N8N_SSRF_PROTECTION_ENABLED: v }).enabled).toBe(false);
	});

	it('`default` in the blocked ranges stands for n8n’s list, combined with others; quotes and spaces are dropped', () => {
		const s = readSsrfSettings({ N8N_SSRF_BLOCKED_IP_RANGES: '"default, 100.64.0.0/10,,"' });
		expect(s.blockedIpRanges).toEqual([...SSRF_DEFAULT_BLOCKED_IP_RANGES, '100.64.0.0/10']);
		expect(readSsrfSettings({ N8N_SSRF_BLOCKED_IP_RANGES: '10.0.0.0/8' }).blockedIpRanges).toEqual([
			'10.0.0.0/8',
		]);
	});

	it('lists are comma separated; a variable may come from the file its _FILE names', () => {
		const dir = mkdtempSync(join(tmpdir(), 'gg-ssrf-'));
		try {
			writeFileSync(join(dir, 'enabled'), 'true\n');
			const s = readSsrfSettings({
				N8N_SSRF_PROTECTION_ENABLED_FILE: join(dir, 'enabled'),
				N8N_SSRF_ALLOWED_HOSTNAMES: 'cdn.example.com,*.files.example.com',
				N8N_SSRF_ALLOWED_IP_RANGES: '10.1.0.0/16',
			});
			expect(s.enabled).toBe(true);
			expect(s.allowedHostnames).toEqual(['cdn.example.com', '*.files.example.com']);
			expect(s.allowedIpRanges).toEqual(['10.1.0.0/16']);
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	});
});

describe('protection on (N8N_SSRF_PROTECTION_ENABLED=true, n8n’s default ranges)', () => {
	beforeEach(() => setEnv({ N8N_SSRF_PROTECTION_ENABLED: 'true' }));

	it('refuses a result address on a blocked range (an IP literal) before connecting, naming the address, the setting and what to do', async () => {
		const err = await rejectionOf(download(result.url('/r/abc.png')));
		expect(err).toBeInstanceOf(SsrfBlockedError);
		expect(err).toBeInstanceOf(SafetyError);
		expect(err.message).toContain(result.url('/r/abc.png'));
		expect(err.message).toContain('N8N_SSRF_PROTECTION_ENABLED');
		expect(err.message).toContain('127.0.0.1');
		expect(err.message).toContain('N8N_SSRF_ALLOWED_IP_RANGES');
		expect(err.message).toContain('"127.0.0.1/32"');
		expect(err.message).toContain('No connection was made');
		untouched(result);
	});

	it('refuses a host name that resolves to a blocked address (localhost) before connecting', async () => {
		const err = await rejectionOf(download(`http://localhost:${result.port}/r/abc.png`));
		expect(err).toBeInstanceOf(SsrfBlockedError);
		expect(err.message).toContain(`http://localhost:${result.port}/r/abc.png`);
		expect(err.message).toContain('localhost resolves to');
		expect(err.message).toContain('"localhost" to N8N_SSRF_ALLOWED_HOSTNAMES');
		untouched(result);
	});

	it('refuses a name that resolves to a public address when checked and to a blocked one when connecting (DNS rebinding): no connection', async () => {
		const asked: string[] = [];
		const rebinding = async (host: string): Promise<LookupAddress[]> => {
			asked.push(host);
			return asked.length === 1
				? [{ address: '93.184.216.34', family: 4 }]
				: [{ address: '127.0.0.1', family: 4 }];
		};
		const t = transportFor(gw.origin, {
			ssrf: new SsrfGuard(readSsrfSettings(process.env), rebinding),
			retry: { maxAttempts: 1 },
		});
		const err = await rejectionOf(download(`http://rebind.test:${result.port}/r/abc.png`, t));
		expect(err).toBeInstanceOf(SsrfBlockedError);
		expect(err.message).toContain(`http://rebind.test:${result.port}/r/abc.png`);
		expect(err.message).toContain('rebind.test resolves to 127.0.0.1');
		// checked before connecting (public) and resolved again by the connection itself (blocked)
		expect(asked).toEqual(['rebind.test', 'rebind.test']);
		untouched(result);
	});

	it('the connection goes where the checked lookup says (an allowed range reached through an injected name)', async () => {
		setEnv({ N8N_SSRF_PROTECTION_ENABLED: 'true', N8N_SSRF_ALLOWED_IP_RANGES: '127.0.0.1/32' });
		const loopback = async (): Promise<LookupAddress[]> => [{ address: '127.0.0.1', family: 4 }];
		const t = transportFor(gw.origin, {
			ssrf: new SsrfGuard(readSsrfSettings(process.env), loopback),
		});
		expect(await downloaded(`http://files.test:${result.port}/r/abc.png`, t)).toEqual(PNG_1x1);
		expect(result.seen[0].headers.host).toBe(`files.test:${result.port}`);
	});

	it('refuses a redirect from the credential’s origin to a blocked address, without connecting to it', async () => {
		gw.reset((_req, res) => {
			res.writeHead(302, { location: result.url('/r/abc.png'), 'content-length': 0 });
			res.end();
		});
		const err = await rejectionOf(download(gw.url('/files/abc.png')));
		expect(err).toBeInstanceOf(SsrfBlockedError);
		expect(err.message).toContain(result.url('/r/abc.png'));
		expect(gw.seen).toHaveLength(1);
		untouched(result);
	});

	it('never names the key: an address that carries it is redacted in the refusal', async () => {
		const err = await rejectionOf(download(result.url(`/r/${KEY}/abc.png`)));
		expect(err).toBeInstanceOf(SsrfBlockedError);
		expect(err.message).not.toContain(KEY);
		expect(err.message).toContain(`${result.origin}/r/`);
		untouched(result);
	});

	it('the credential’s own origin stays usable: its API and a result hosted on it', async () => {
		const t = transportFor(gw.origin);
		expect(await downloaded(gw.url('/files/abc.png'), t)).toEqual(PNG_1x1);
		gw.reset((_req, res) => {
			res.writeHead(200, { 'content-type': 'application/json' });
			res.end('{"data":[]}');
		});
		expect((await t.getJson('/v1/models')).body).toEqual({ data: [] });
	});

	it('the credential’s Video Base URL is its origin too', async () => {
		const t = transportFor(gw.origin, { videoBase: result.origin });
		expect(await downloaded(result.url('/r/abc.png'), t)).toEqual(PNG_1x1);
	});

	it('a blocked host name is refused by its name, before any DNS look-up', async () => {
		setEnv({
			N8N_SSRF_PROTECTION_ENABLED: 'true',
			N8N_SSRF_BLOCKED_HOSTNAMES: '*.internal.test',
		});
		const asked: string[] = [];
		const t = transportFor(gw.origin, {
			ssrf: new SsrfGuard(readSsrfSettings(process.env), async (h) => {
				asked.push(h);
				return [{ address: '93.184.216.34', family: 4 }];
			}),
		});
		const err = await rejectionOf(download('http://cdn.internal.test/r/abc.png', t));
		expect(err).toBeInstanceOf(SsrfBlockedError);
		expect(err.message).toContain('"cdn.internal.test" is on N8N_SSRF_BLOCKED_HOSTNAMES');
		expect(asked).toEqual([]);
	});
});

describe('the allow lists let an address through', () => {
	it('N8N_SSRF_ALLOWED_IP_RANGES (CIDR) takes precedence over the blocked ranges', async () => {
		setEnv({ N8N_SSRF_PROTECTION_ENABLED: 'true', N8N_SSRF_ALLOWED_IP_RANGES: '127.0.0.1/32' });
		expect(await downloaded(result.url('/r/abc.png'))).toEqual(PNG_1x1);
		expect(result.seen).toHaveLength(1);
	});

	it('an allowed range must be CIDR, as n8n reads it: a bare IP allows nothing', async () => {
		setEnv({ N8N_SSRF_PROTECTION_ENABLED: 'true', N8N_SSRF_ALLOWED_IP_RANGES: '127.0.0.1' });
		expect(await rejectionOf(download(result.url('/r/abc.png')))).toBeInstanceOf(SsrfBlockedError);
		untouched(result);
	});

	it('N8N_SSRF_ALLOWED_HOSTNAMES lets a name through whatever it resolves to', async () => {
		setEnv({ N8N_SSRF_PROTECTION_ENABLED: 'true', N8N_SSRF_ALLOWED_HOSTNAMES: 'LOCALHOST' });
		expect(await downloaded(`http://localhost:${result.port}/r/abc.png`)).toEqual(PNG_1x1);
		expect(result.seen).toHaveLength(1);
	});

	it('a blocked range of your own replaces n8n’s default list', async () => {
		setEnv({ N8N_SSRF_PROTECTION_ENABLED: 'true', N8N_SSRF_BLOCKED_IP_RANGES: '10.0.0.0/8' });
		expect(await downloaded(result.url('/r/abc.png'))).toEqual(PNG_1x1);
	});
});

describe('protection off (the default): nothing changes', () => {
	it.each([
		['not set', {}],
		['false', { N8N_SSRF_PROTECTION_ENABLED: 'false' }],
	])('%s: a loopback result address is downloaded as before', async (_what, vars) => {
		setEnv(vars);
		expect(await downloaded(result.url('/r/abc.png'))).toEqual(PNG_1x1);
		expect(await downloaded(`http://localhost:${result.port}/r/abc.png`)).toEqual(PNG_1x1);
		expect(result.seen).toHaveLength(2);
	});
});
