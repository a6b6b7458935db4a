/**
 * The connections of the one `send` (client.ts): a pooled, proxy-aware dispatcher per process, and per SSRF rule the
 * one that result downloads off the credential's origins go through.
 */
import { EnvHttpProxyAgent, type Dispatcher } from 'undici';
import type { SsrfGuard } from './ssrf';

let sharedDispatcher: Dispatcher | undefined;
const DISPATCHER_OPTIONS = {
	keepAliveTimeout: 10_000,
	keepAliveMaxTimeout: 60_000,
	proxyTunnel: false,
};
/**
 * One pooled, proxy-aware dispatcher per process; connections are pooled per origin.
 * `proxyTunnel: false`: plain-http targets go to an HTTP_PROXY as absolute-form requests, as curl and
 * browsers do; undici's default (CONNECT for every target) fails on forward proxies that only allow
 * CONNECT to port 443. https targets are still tunnelled with CONNECT.
 */
export function getDispatcher(): Dispatcher {
	sharedDispatcher ??= new EnvHttpProxyAgent(DISPATCHER_OPTIONS);
	return sharedDispatcher;
}

const guardedDispatchers = new WeakMap<SsrfGuard, Dispatcher>();
/**
 * The dispatcher of downloads held to n8n's SSRF rule: the same as getDispatcher's, whose connections resolve their
 * host through the rule (a blocked address found at connect time fails the connection before a socket is opened), as
 * n8n builds its own. Through a proxy the proxy resolves the name, and the check before connecting is what holds.
 */
export function guardedDispatcher(guard: SsrfGuard): Dispatcher {
	let d = guardedDispatchers.get(guard);
	if (!d)
		guardedDispatchers.set(
			guard,
			(d = new EnvHttpProxyAgent({ ...DISPATCHER_OPTIONS, connect: { lookup: guard.lookup } })),
		);
	return d;
}
export function setDispatcher(d: Dispatcher | undefined): void {
	sharedDispatcher = d;
}
