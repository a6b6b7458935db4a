import {
	addressList,
	mediaUrlProblem,
	privateHostProblem,
} from '../../nodes/shared/rules/mediaUrl';

describe('media addresses (spec rule 6): refused with a reason, accepted when public HTTPS', () => {
	it.each([
		['empty', '', /must be an https:\/\//],
		['not text', 42, /must be an https:\/\//],
		['relative path', '/tmp/cat.png', /not a valid URL/],
		['local file', 'file:///tmp/cat.png', /no file: addresses/],
		['data URL', 'data:image/png;base64,AAAA', /no data: addresses/],
		['plain http', 'http://media.example/cat.png', /must use https:\/\/, not http/],
		['ftp', 'ftp://media.example/cat.png', /no ftp: addresses/],
		[
			'two addresses in one entry',
			'https://media.example/a.png https://media.example/b.png',
			/must not contain spaces/,
		],
		[
			'user and password',
			'https://user:pass@media.example/cat.png',
			/credentials \(user:password@\)/,
		],
		['user only', 'https://user@media.example/cat.png', /credentials/],
		['localhost', 'https://localhost/cat.png', /local name/],
		['localhost with trailing dot', 'https://LOCALHOST./cat.png', /local name/],
		['*.localhost', 'https://app.localhost/cat.png', /local name/],
		['*.internal (cloud metadata)', 'https://metadata.google.internal/x', /local name/],
		['*.local (mDNS)', 'https://nas.local/cat.png', /local name/],
		['single-label host', 'https://intranet/cat.png', /not a public host name/],
		['loopback', 'https://127.0.0.1/cat.png', /private, loopback or link-local/],
		['loopback, short form', 'https://127.1/cat.png', /private, loopback/],
		['loopback, integer form', 'https://2130706433/cat.png', /private, loopback/],
		['loopback, hex form', 'https://0x7f.0.0.1/cat.png', /private, loopback/],
		['10/8', 'https://10.1.2.3/cat.png', /private/],
		['172.16/12', 'https://172.20.0.1/cat.png', /private/],
		['192.168/16', 'https://192.168.1.4/cat.png', /private/],
		['link-local metadata', 'https://169.254.169.254/latest/meta-data', /link-local/],
		['carrier-grade NAT', 'https://100.64.0.1/cat.png', /private/],
		['0.0.0.0', 'https://0.0.0.0/cat.png', /private/],
		['IPv6 loopback', 'https://[::1]/cat.png', /private, loopback/],
		['IPv6 unique local', 'https://[fd12:3456::1]/cat.png', /private/],
		['IPv6 link-local', 'https://[fe80::1]/cat.png', /link-local/],
		['IPv4-mapped loopback', 'https://[::ffff:127.0.0.1]/cat.png', /private, loopback/],
		[
			'api_key parameter',
			'https://media.example/cat.png?api_key=abc',
			/API key or token \(parameter "api_key"\)/,
		],
		['key parameter', 'https://media.example/cat.png?w=1&key=abc', /parameter "key"/],
		['token parameter', 'https://media.example/cat.png?token=abc', /parameter "token"/],
		[
			'access-token, any case',
			'https://media.example/cat.png?Access-Token=abc',
			/parameter "access_token"/,
		],
		['x-api-key', 'https://media.example/cat.png?X-Api-Key=abc', /parameter "x_api_key"/],
		[
			'token in the fragment',
			'https://media.example/cat.png#access_token=abc',
			/parameter "access_token"/,
		],
		['sk- key in the path', 'https://media.example/sk-abcdef1234567890/cat.png', /sk-… or Bearer/],
		[
			'sk- key percent-encoded',
			'https://media.example/cat.png?x=%73k-abcdef1234567890',
			/sk-… or Bearer/,
		],
		['truncated', 'https://media.example/ca...png', /truncated/],
	])('%s is refused', (_name, url, reason) => {
		expect(mediaUrlProblem(url)).toMatch(reason);
	});

	it.each([
		['plain public HTTPS', 'https://media.example/cat.png'],
		['with port and query', 'https://cdn.media.example:8443/a/b/cat.png?w=640&h=360'],
		[
			'signed CDN link (signature, expiry)',
			'https://cdn.media.example/v.mp4?X-Amz-Signature=abc123&X-Amz-Expires=3600',
		],
		['comma inside the path (CDN transform)', 'https://img.media.example/w_640,h_360/cat.png'],
		['public IPv4', 'https://93.184.216.34/cat.png'],
		['public IPv6', 'https://[2606:4700::1111]/cat.png'],
		['word "sketch" is not an sk- key', 'https://media.example/sketch-of-a-cat.png'],
		['host that merely starts with 10', 'https://10.media.example/cat.png'],
		['parameter named keyframe', 'https://media.example/v.mp4?keyframe=3'],
	])('%s is accepted', (_name, url) => {
		expect(mediaUrlProblem(url)).toBeUndefined();
	});

	it('http is accepted only where allowed (gamma recommends HTTPS), and the other checks still apply', () => {
		expect(mediaUrlProblem('http://media.example/cat.png', { allowHttp: true })).toBeUndefined();
		expect(mediaUrlProblem('http://127.0.0.1/cat.png', { allowHttp: true })).toMatch(/private/);
		expect(mediaUrlProblem('ftp://media.example/cat.png', { allowHttp: true })).toMatch(
			/http\(s\)/,
		);
	});

	it("the credential's own key anywhere in an address is refused", () => {
		const key = 'my-secret-key-1234';
		const containsSecret = (t: string) => t.includes(key);
		expect(mediaUrlProblem(`https://media.example/${key}/cat.png`, { containsSecret })).toMatch(
			/credential's key/,
		);
		expect(
			mediaUrlProblem(`https://media.example/cat.png?x=${encodeURIComponent(key)}`, {
				containsSecret,
			}),
		).toMatch(/credential's key/);
		expect(mediaUrlProblem('https://media.example/cat.png', { containsSecret })).toBeUndefined();
	});

	it('host check alone', () => {
		expect(privateHostProblem('media.example')).toBeUndefined();
		expect(privateHostProblem('[::]')).toMatch(/private/);
		expect(privateHostProblem('224.0.0.1')).toMatch(/private/);
	});
});

describe('addressList: one address per line, for every node (a comma is part of an address)', () => {
	it('reads lines, arrays, objects with url and JSON array text', () => {
		expect(addressList('https://a.example/1.png\r\nhttps://a.example/2.png\n')).toEqual([
			'https://a.example/1.png',
			'https://a.example/2.png',
		]);
		expect(addressList(['https://a.example/1.png', { url: 'https://a.example/2.png' }])).toEqual([
			'https://a.example/1.png',
			'https://a.example/2.png',
		]);
		expect(addressList('["https://a.example/1.png","https://a.example/2.png"]')).toEqual([
			'https://a.example/1.png',
			'https://a.example/2.png',
		]);
		expect(addressList({ url: 'https://a.example/1.png' })).toEqual(['https://a.example/1.png']);
	});

	it('keeps commas inside an address (CDN transforms, a Data URL typed in), and leaves non-text entries for the rule', () => {
		expect(addressList('https://img.example/w_640,h_360/cat.png')).toEqual([
			'https://img.example/w_640,h_360/cat.png',
		]);
		expect(addressList('data:image/png;base64,iVBORw0KGgo=')).toEqual([
			'data:image/png;base64,iVBORw0KGgo=',
		]);
		expect(addressList([42, null])).toEqual([42, null]);
		expect(addressList('')).toEqual([]);
		expect(addressList(undefined)).toEqual([]);
		expect(addressList('  \n ')).toEqual([]);
	});

	it('two addresses joined by a comma stay one entry, and the rule refuses it saying one per line', () => {
		const [joined] = addressList('https://a.example/1.png,https://a.example/2.png');
		expect(mediaUrlProblem(joined)).toMatch(
			/two addresses joined by a comma: give one address per line/,
		);
		expect(mediaUrlProblem('https://a.example/1.png, https://a.example/2.png')).toMatch(/spaces/);
	});
});
