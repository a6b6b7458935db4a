/**
 * The one media-address rule (spec rule 6) for every address the gateway fetches, whatever the node (Image Submit's
 * and Video Create's references, the image addresses of Chat, Responses and the Chat Model): valid HTTPS (or http
 * where the node allows it), open without login (no `user:password@`), no local paths, no internal addresses, no API
 * keys (the credential's own key in any form the redactor knows, key parameters, `sk-…`, `Bearer …`). One address
 * per line: a comma is part of an address (`addressList`). The addresses are never fetched here: the gateway reads
 * them itself, so the media limits of rules 9 and 10 (durations, codecs, pixels, sizes) are left to the gateway.
 */
import { isObj } from '../jsonObject';

export interface MediaUrlOptions {
	/** gamma-video only recommends HTTPS; plain http is let through there */
	allowHttp?: boolean;
	/** true when a text holds a secret of ours (the credential's API key) */
	containsSecret?: (text: string) => boolean;
}

/** Query/fragment parameter names that carry keys or tokens (compared without case, `-` read as `_`). */
const SECRET_PARAMS = new Set([
	'key',
	'apikey',
	'api_key',
	'x_api_key',
	'token',
	'access_token',
	'auth_token',
	'id_token',
	'refresh_token',
	'bearer',
	'auth',
	'authorization',
	'secret',
	'client_secret',
	'password',
	'passwd',
	'pwd',
	'sk',
]);

/** Secret-looking values anywhere in the address: `sk-…` API keys, `Bearer …`. */
// `{8}`, never `{8,}`: eight characters are enough to tell, and V8 throws on `{8,}` over a run of millions
const SECRET_VALUE = /(?:^|[^A-Za-z0-9])sk-[A-Za-z0-9_-]{8}|bearer(?:%20|\+|\s)/i;

/** Host names that never resolve to a public address. */
const PRIVATE_SUFFIXES = [
	'.localhost',
	'.local',
	'.internal',
	'.intranet',
	'.lan',
	'.home.arpa',
	'.corp',
	'.localdomain',
];

function ipv4Private(h: string): boolean {
	const p = h.split('.').map(Number);
	if (p.length !== 4 || p.some((n) => !Number.isInteger(n) || n < 0 || n > 255)) return false;
	const [a, b, c] = p;
	return (
		a === 0 || // this network
		a === 10 ||
		a === 127 || // loopback
		(a === 100 && b >= 64 && b <= 127) || // carrier-grade NAT
		(a === 169 && b === 254) || // link-local (cloud metadata)
		(a === 172 && b >= 16 && b <= 31) ||
		(a === 192 && b === 168) ||
		(a === 192 && b === 0 && c === 0) || // IETF protocol assignments
		(a === 198 && (b === 18 || b === 19)) || // benchmarking
		a >= 224 // multicast, reserved, broadcast
	);
}

/** IPv6 literal (without brackets) → private/loopback/link-local/unique-local, incl. IPv4-mapped forms. */
function ipv6Private(h: string): boolean {
	const s = h.toLowerCase().split('%')[0];
	if (s === '::' || s === '::1') return true;
	if (/^f[cd][0-9a-f]{0,2}:/.test(s)) return true; // fc00::/7 unique local
	if (/^fe[89ab][0-9a-f]?:/.test(s)) return true; // fe80::/10 link-local
	if (/^ff[0-9a-f]{0,2}:/.test(s)) return true; // multicast
	// IPv4-mapped / -compatible / NAT64: the WHATWG parser writes them as hex words (::ffff:7f00:1)
	const mapped =
		/^(?:::ffff:|::|64:ff9b::)(?:(\d+\.\d+\.\d+\.\d+)|([0-9a-f]{1,4}):([0-9a-f]{1,4}))$/.exec(s);
	if (mapped) {
		if (mapped[1]) return ipv4Private(mapped[1]);
		const hi = parseInt(mapped[2], 16);
		const lo = parseInt(mapped[3], 16);
		return ipv4Private(`${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`);
	}
	return false;
}

/** Why a host is not public, or undefined. */
export function privateHostProblem(hostname: string): string | undefined {
	const host = hostname.toLowerCase().replace(/\.$/, '');
	if (host.startsWith('[') || host.includes(':')) {
		return ipv6Private(host.replace(/^\[|\]$/g, ''))
			? `host ${host} is a private, loopback or link-local address: the gateway cannot read it`
			: undefined;
	}
	if (/^\d+(\.\d+){3}$/.test(host)) {
		return ipv4Private(host)
			? `host ${host} is a private, loopback or link-local address: the gateway cannot read it`
			: undefined;
	}
	if (host === 'localhost' || PRIVATE_SUFFIXES.some((s) => host.endsWith(s)))
		return `host ${host} is a local name: the gateway cannot read it`;
	if (!host.includes('.')) return `host ${host} is not a public host name`;
	return undefined;
}

function paramsOf(part: string): string[] {
	return part
		.replace(/^[?#]/, '')
		.split(/[&;]/)
		.map((kv) => {
			const name = kv.split('=')[0];
			try {
				return decodeURIComponent(name);
			} catch {
				return name;
			}
		})
		.map((n) => n.trim().toLowerCase().replace(/-/g, '_'));
}

/** Why a media address is refused, or undefined when it may be sent. */
export function mediaUrlProblem(raw: unknown, opts: MediaUrlOptions = {}): string | undefined {
	const scheme = opts.allowHttp ? 'an http(s):// address' : 'an https:// address';
	if (typeof raw !== 'string' || !raw.trim()) return `must be ${scheme}`;
	const text = raw.trim();
	if (/\s/.test(text)) return 'must not contain spaces (give one address per entry)';
	if (/,(?:https?|data|ftp|file):/i.test(text))
		return 'holds two addresses joined by a comma: give one address per line';
	let u: URL;
	try {
		u = new URL(text);
	} catch {
		return `is not a valid URL: must be ${scheme} (no local paths)`;
	}
	if (u.protocol !== 'https:' && !(opts.allowHttp && u.protocol === 'http:')) {
		return u.protocol === 'http:'
			? 'must use https://, not http://'
			: `must be ${scheme} (no ${u.protocol.replace(':', '')}: addresses, local paths or data URLs)`;
	}
	if (u.username || u.password) return 'must not contain credentials (user:password@)';
	const hostProblem = privateHostProblem(u.hostname);
	if (hostProblem) return hostProblem;
	if (opts.containsSecret?.(text) || opts.containsSecret?.(safeDecode(text)))
		return "must not carry an API key (it contains the credential's key)";
	const secretParam = [...paramsOf(u.search), ...paramsOf(u.hash)].find((n) =>
		SECRET_PARAMS.has(n),
	);
	if (secretParam) return `must not carry an API key or token (parameter "${secretParam}")`;
	if (SECRET_VALUE.test(text) || SECRET_VALUE.test(safeDecode(text)))
		return 'must not carry an API key or token (sk-… or Bearer … in the address)';
	if (text.includes('...') || text.includes('…')) return 'looks truncated (contains an ellipsis)';
	return undefined;
}

function safeDecode(s: string): string {
	try {
		return decodeURIComponent(s);
	} catch {
		return s;
	}
}

/**
 * The addresses of a field or an input expression, for every node: an array (of strings, or of objects with `url`),
 * a JSON array text, or text with one address per line. A comma is part of an address (CDN transforms such as
 * `w_100,h_100`, a Data URL's `;base64,`). Entries that are not text are kept as they are, so the rule reports them.
 */
export function addressList(v: unknown): unknown[] {
	if (v === undefined || v === null || v === '') return [];
	if (Array.isArray(v))
		return v.flatMap((x) =>
			typeof x === 'string'
				? addressList(x)
				: isObj(x) && typeof x.url === 'string'
					? [x.url.trim()]
					: [x],
		);
	if (isObj(v) && typeof v.url === 'string') return [v.url.trim()];
	if (typeof v !== 'string') return [v];
	const text = v.trim();
	if (text.startsWith('[')) {
		try {
			const parsed: unknown = JSON.parse(text);
			if (Array.isArray(parsed)) return addressList(parsed);
		} catch {
			// not JSON: read as a list of lines
		}
	}
	return text
		.split(/\r?\n/)
		.map((s) => s.trim())
		.filter(Boolean);
}
