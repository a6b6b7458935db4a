/**
 * Normalises the credential's base URLs so that `/v1/...` is composed exactly once.
 * `https://host`, `https://host/`, `https://host/v1` and `https://host/v1/` all give root `https://host`.
 * A path prefix in front of `/v1` (a gateway mounted under `/gw`) is kept.
 */
export interface GatewayRoot {
	origin: string;
	/** origin + optional path prefix, no trailing slash, never ending in /v1 */
	root: string;
}

export class BaseUrlError extends Error {
	constructor(
		public readonly field: string,
		message: string,
	) {
		super(`${field}: ${message}`);
		this.name = 'BaseUrlError';
	}
}

export function normaliseBaseUrl(raw: unknown, field = 'Base URL'): GatewayRoot {
	if (typeof raw !== 'string' || raw.trim() === '') {
		throw new BaseUrlError(field, 'is required (for example https://gateway.example.com)');
	}
	const trimmed = raw.trim();
	// "gateway.example.com", "localhost:8080" and "/v1" have no scheme; `new URL` would either reject them
	// or read "localhost:" as the scheme. The value itself is not echoed: it may be a key pasted in the wrong field.
	if (!/^[a-z][a-z0-9+.-]*:/i.test(trimmed) || /^[^:/]+:\d+(\/|$)/.test(trimmed)) {
		throw new BaseUrlError(
			field,
			'must start with http:// or https:// (for example https://gateway.example.com)',
		);
	}
	if (!URL.canParse(trimmed)) {
		throw new BaseUrlError(
			field,
			'is not an absolute URL (for example https://gateway.example.com)',
		);
	}
	const url = new URL(trimmed);
	if (url.protocol !== 'https:' && url.protocol !== 'http:') {
		throw new BaseUrlError(field, `must use http or https, not ${url.protocol.replace(':', '')}`);
	}
	if (url.username || url.password) {
		throw new BaseUrlError(
			field,
			'must not contain user info (user:password@); put the key in the API Key field',
		);
	}
	if (url.search || trimmed.includes('?')) {
		throw new BaseUrlError(field, 'must not contain a query string (?...); keys never go in URLs');
	}
	if (url.hash || trimmed.includes('#')) {
		throw new BaseUrlError(field, 'must not contain a fragment (#...)');
	}
	let path = url.pathname.replace(/\/+$/, '');
	while (/\/v1(beta)?$/i.test(path)) path = path.replace(/\/v1(beta)?$/i, '').replace(/\/+$/, '');
	return { origin: url.origin, root: url.origin + path };
}

/** Joins a root with an absolute API path such as `/v1/models`. */
export function composeUrl(root: GatewayRoot, apiPath: string): string {
	if (!apiPath.startsWith('/')) throw new Error(`API path must start with "/": ${apiPath}`);
	return root.root + apiPath;
}
