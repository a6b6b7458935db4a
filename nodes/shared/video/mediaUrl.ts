/** Media addresses for videos: HTTPS, open without login, no secrets, not private or loopback hosts. */
function privateIp(host: string): boolean {
	const h = host.replace(/^\[|\]$/g, '');
	const v = /^\d{1,3}(\.\d{1,3}){3}$/.test(h) ? 4 : h.includes(':') ? 6 : 0;
	if (v === 4) {
		const [a, b] = h.split('.').map(Number);
		return a === 10 || a === 127 || a === 0 || (a === 169 && b === 254) || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127);
	}
	if (v === 6) return h === '::1' || h === '::' || /^f[cd]/i.test(h) || /^fe80/i.test(h) || /^::ffff:/i.test(h);
	return false;
}

/** Why a media address is refused, or undefined when it may be sent. */
export function mediaUrlProblem(raw: unknown): string | undefined {
	if (typeof raw !== 'string' || !raw.trim()) return 'must be an https:// address';
	let u: URL;
	try {
		u = new URL(raw.trim());
	} catch {
		return 'is not a valid URL';
	}
	if (u.protocol !== 'https:') return 'must use https:// (no http, no local paths)';
	if (u.username || u.password) return 'must not contain user:password@';
	const host = u.hostname.toLowerCase();
	if (host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.local') || host.endsWith('.internal') || privateIp(host)) return `host ${host} is private or loopback: the gateway cannot read it`;
	if (/[?&](api[_-]?key|key|token|access[_-]?token|auth|authorization|secret)=/i.test(u.search) || /\bsk-[A-Za-z0-9_-]{8,}/.test(raw)) return 'must not carry an API key or token';
	if (raw.includes('...')) return 'looks truncated (contains ...)';
	return undefined;
}
