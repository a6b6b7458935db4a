/**
 * n8n's SSRF protection, obeyed for the addresses the package fetches itself: result downloads (image and video URLs
 * the gateway hands back, and the addresses a user gives Download Result). The settings are n8n's own
 * (`@n8n/config`'s SsrfProtectionConfig in n8n 2.41.1), read here and nowhere else, the same way n8n reads them
 * (a `_FILE` variant, `true`/`1`, `default` in the blocked ranges), and the rule is n8n's `SsrfProtectionService`:
 * - an IP literal: allowed when in N8N_SSRF_ALLOWED_IP_RANGES, refused when in N8N_SSRF_BLOCKED_IP_RANGES;
 * - a host name: allowed when it matches N8N_SSRF_ALLOWED_HOSTNAMES (`*.x` for the names under x), refused when it
 *   matches N8N_SSRF_BLOCKED_HOSTNAMES, else every address it resolves to is held to the IP rule.
 * Ranges are kept in Node's own `net.BlockList` and read with zod's CIDR check, as n8n does (no other library).
 * The rule is applied twice: before connecting (`check`: the URL's host, every address DNS gives for it) and on the
 * addresses the connection itself resolves (`lookup`, the connector's DNS lookup), so a name that resolves to a public
 * address first and a blocked one at connect time (DNS rebinding) is refused too, and no socket is opened.
 * The credential's own origins are not held to it (resultGet.ts): the package's calls to the gateway go there anyway.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { readFileSync } from 'node:fs';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { env as processEnv } from 'node:process';
import { z } from 'zod';
import { SafetyError } from '../errors';

/** n8n 2.41.1's default blocked ranges (`SSRF_DEFAULT_BLOCKED_IP_RANGES`), what `default` stands for. */
export const SSRF_DEFAULT_BLOCKED_IP_RANGES: readonly string[] = Object.freeze([
	'10.0.0.0/8',
	'172.16.0.0/12',
	'192.168.0.0/16',
	'127.0.0.0/8',
	'::1/128',
	'169.254.0.0/16',
	'fe80::/10',
	'fc00::/7',
	'fd00::/8',
	'0.0.0.0/8',
	'192.0.0.0/24',
	'192.0.2.0/24',
	'198.18.0.0/15',
	'198.51.100.0/24',
	'203.0.113.0/24',
]);

const SSRF_ENV = {
	enabled: 'N8N_SSRF_PROTECTION_ENABLED',
	blockedIpRanges: 'N8N_SSRF_BLOCKED_IP_RANGES',
	allowedIpRanges: 'N8N_SSRF_ALLOWED_IP_RANGES',
	allowedHostnames: 'N8N_SSRF_ALLOWED_HOSTNAMES',
	blockedHostnames: 'N8N_SSRF_BLOCKED_HOSTNAMES',
} as const;

export interface SsrfSettings {
	enabled: boolean;
	blockedIpRanges: string[];
	allowedIpRanges: string[];
	allowedHostnames: string[];
	blockedHostnames: string[];
}

type Env = Record<string, string | undefined>;

/** One variable as n8n's config reads it: the variable itself, else the file `<NAME>_FILE` names (trimmed). */
function readVar(env: Env, name: string): string | undefined {
	if (name in env) return env[name];
	const file = env[`${name}_FILE`];
	if (!file) return undefined;
	try {
		return readFileSync(file, 'utf8').trim();
	} catch {
		return undefined;
	}
}

/** `a, b,,c` → the non-empty parts, as n8n's CommaSeparatedStringArray (entries are trimmed where they are used). */
const commaList = (value: string | undefined): string[] =>
	value === undefined ? [] : value.split(',').filter((s) => s.length > 0);

/**
 * n8n's SSRF settings from the environment: the one place they are read. Values n8n would refuse (a switch that is
 * not true/false/1/0) fall back to n8n's default, as n8n does; n8n itself logs a warning for them at start.
 */
export function readSsrfSettings(env: Env = processEnv): SsrfSettings {
	const enabledRaw = readVar(env, SSRF_ENV.enabled);
	const switchValue = enabledRaw?.toLowerCase();
	const blockedRaw = readVar(env, SSRF_ENV.blockedIpRanges);
	return {
		enabled: switchValue === 'true' || switchValue === '1',
		blockedIpRanges:
			blockedRaw === undefined
				? [...SSRF_DEFAULT_BLOCKED_IP_RANGES]
				: [
						...new Set(
							blockedRaw
								.trim()
								.replace(/^(['"])(.*)\1$/, '$2')
								.split(',')
								.map((v) => v.trim())
								.filter((v) => v.length > 0)
								.flatMap((v) =>
									v.toLowerCase() === 'default' ? SSRF_DEFAULT_BLOCKED_IP_RANGES : [v],
								),
						),
					],
		allowedIpRanges: commaList(readVar(env, SSRF_ENV.allowedIpRanges)),
		allowedHostnames: commaList(readVar(env, SSRF_ENV.allowedHostnames)),
		blockedHostnames: commaList(readVar(env, SSRF_ENV.blockedHostnames)),
	};
}

const cidr = z.string().cidr();

/** CIDR ranges into a BlockList; an entry that is not CIDR (`10.0.0.1` without `/32`) is skipped, as n8n skips it. */
function rangeList(ranges: string[]): BlockList {
	const list = new BlockList();
	for (const raw of ranges) {
		const entry = raw.trim();
		if (!entry || !cidr.safeParse(entry).success) continue;
		const [network, prefix] = entry.split('/');
		const family = isIP(network);
		if (!family) continue;
		try {
			list.addSubnet(network, Number.parseInt(prefix, 10), family === 4 ? 'ipv4' : 'ipv6');
		} catch {
			// n8n skips it too (and warns at its start)
		}
	}
	return list;
}

const normalName = (h: string) => {
	const t = h.trim().toLowerCase();
	return t.endsWith('.') ? t.slice(0, -1) : t;
};

/** n8n's HostnameMatcher: exact names, and `*.example.com` for every name under example.com (not itself). */
function nameMatcher(patterns: string[]): (host: string) => boolean {
	const parsed = patterns.map(normalName).filter(Boolean);
	return (host) => {
		const h = normalName(host);
		return parsed.some((p) =>
			p.startsWith('*.') ? h.endsWith(p.slice(1)) && h.length > p.length - 1 : h === p,
		);
	};
}

const bare = (host: string) =>
	host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;

/** A result address n8n's SSRF protection refuses; thrown before any connection to it is opened. */
export class SsrfBlockedError extends SafetyError {
	constructor(
		/** the address, without query or credentials, already redacted by the caller */
		readonly address: string,
		readonly host: string,
		/** the blocked IP it is or resolved to; undefined when its name is on the blocked names */
		readonly ip: string | undefined,
	) {
		const literal = isIP(host) !== 0;
		super(
			ip !== undefined
				? `n8n's SSRF protection (N8N_SSRF_PROTECTION_ENABLED is on) refused the result address ${address}: ` +
						`${literal ? 'it is' : `${host} resolves to`} ${ip}, in the blocked ranges (N8N_SSRF_BLOCKED_IP_RANGES; ` +
						`by default n8n's private, loopback and link-local ranges). No connection was made. ` +
						`If this host is meant to be reached, ask your n8n administrator to add ` +
						`${literal ? '' : `"${host}" to N8N_SSRF_ALLOWED_HOSTNAMES or `}its range to ` +
						`N8N_SSRF_ALLOWED_IP_RANGES (CIDR, e.g. "${ip}/${isIP(ip) === 6 ? 128 : 32}").`
				: `n8n's SSRF protection (N8N_SSRF_PROTECTION_ENABLED is on) refused the result address ${address}: ` +
						`its host name "${host}" is on N8N_SSRF_BLOCKED_HOSTNAMES. No connection was made. ` +
						`If this host is meant to be reached, ask your n8n administrator to remove it there or add it to ` +
						`N8N_SSRF_ALLOWED_HOSTNAMES.`,
		);
		this.name = 'SsrfBlockedError';
	}
}

/** How host names are resolved: all addresses (node:dns lookup, the resolver the connector uses); tests inject one. */
export type Resolver = (host: string) => Promise<LookupAddress[]>;

const systemResolver: Resolver = (host) =>
	new Promise((resolve, reject) =>
		dnsLookup(host, { all: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))),
	);

/** What the rule says of a host and the addresses it resolves to. */
type Verdict = { ok: true } | { ok: false; ip?: string };

/** n8n's SSRF rule over one set of settings. */
export class SsrfGuard {
	private readonly blocked: BlockList;
	private readonly allowed: BlockList;
	private readonly allowedName: (host: string) => boolean;
	private readonly blockedName: (host: string) => boolean;

	constructor(
		readonly settings: SsrfSettings,
		private readonly resolver: Resolver = systemResolver,
	) {
		this.blocked = rangeList(settings.blockedIpRanges);
		this.allowed = rangeList(settings.allowedIpRanges);
		this.allowedName = nameMatcher(settings.allowedHostnames);
		this.blockedName = nameMatcher(settings.blockedHostnames);
	}

	get enabled(): boolean {
		return this.settings.enabled;
	}

	/** n8n's validateIp: the allowed ranges first, then the blocked ones. */
	private ipBlocked(ip: string): boolean {
		const family = isIP(ip) === 6 ? 'ipv6' : 'ipv4';
		if (this.allowed.check(ip, family)) return false;
		return this.blocked.check(ip, family);
	}

	/** The verdict on a host before resolving it: decided (an IP literal, an allowed or blocked name) or to resolve. */
	private byName(host: string): Verdict | 'resolve' {
		const h = bare(host);
		if (isIP(h)) return this.ipBlocked(h) ? { ok: false, ip: h } : { ok: true };
		if (this.allowedName(h)) return { ok: true };
		if (this.blockedName(h)) return { ok: false };
		return 'resolve';
	}

	private byAddresses(addresses: LookupAddress[]): Verdict {
		const hit = addresses.find((a) => this.ipBlocked(a.address));
		return hit ? { ok: false, ip: hit.address } : { ok: true };
	}

	/**
	 * Before connecting: refuses (SsrfBlockedError, naming the host; the download names the whole address with
	 * `withAddress`) an address whose host is blocked or resolves to any blocked address. A failed DNS lookup is
	 * thrown as it is (a network failure of the download, like any other).
	 */
	async check(url: string): Promise<void> {
		const host = bare(new URL(url).hostname);
		let verdict = this.byName(host);
		if (verdict === 'resolve') verdict = this.byAddresses(await this.resolver(host));
		if (!verdict.ok) throw new SsrfBlockedError(host, host, verdict.ip);
	}

	/**
	 * The connector's DNS lookup (undici's `connect.lookup`, Node's net.connect `lookup`): resolves as the system does
	 * and fails the connection, before any socket is opened, when the rule refuses the name or any address it gave.
	 * Its SsrfBlockedError names the host only; the download names the whole address (`withAddress`).
	 */
	readonly lookup: LookupFunction = (hostname, options, callback) => {
		const fail = (err: Error) => callback(err, options.all ? [] : '', undefined);
		const answer = (a: LookupAddress[]) =>
			options.all ? callback(null, a) : callback(null, a[0].address, a[0].family);
		const named = this.byName(hostname);
		if (named !== 'resolve' && !named.ok)
			return fail(new SsrfBlockedError(hostname, bare(hostname), named.ip));
		this.resolver(bare(hostname)).then((addresses) => {
			// an allowed name (or IP) is not held to the IP rule
			const verdict = named === 'resolve' ? this.byAddresses(addresses) : named;
			if (!verdict.ok) return fail(new SsrfBlockedError(hostname, bare(hostname), verdict.ip));
			answer(addresses);
		}, fail);
	};
}

/** The same refusal naming the whole address (the rule knows only the host), with `redact` applied to the host. */
export function withAddress(
	err: SsrfBlockedError,
	address: string,
	redact: (text: string) => string,
): SsrfBlockedError {
	return new SsrfBlockedError(address, redact(err.host), err.ip);
}

let cached: { key: string; guard: SsrfGuard } | undefined;

/**
 * The guard for the environment as it is now (n8n reads its settings once at start; reading them per download keeps
 * the package right under a test or a worker that set them later, and costs a comparison when nothing changed).
 */
export function ssrfGuardFromEnv(env: Env = processEnv): SsrfGuard {
	const settings = readSsrfSettings(env);
	const key = JSON.stringify(settings);
	if (cached?.key !== key) cached = { key, guard: new SsrfGuard(settings) };
	return cached.guard;
}
