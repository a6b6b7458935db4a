/** Which reference addresses the gateway reads (image edits, video materials): public HTTP/HTTPS only. */

/** The gateway reads public references itself; hosts under .example/.test stand for "public and readable". */
export function publicUrlRefusal(u: string): string | undefined {
	let url: URL;
	try {
		url = new URL(u);
	} catch {
		return 'reference is not a valid URL';
	}
	if (url.protocol !== 'https:' && url.protocol !== 'http:')
		return 'reference must be an HTTP/HTTPS address';
	const h = url.hostname;
	if (
		h === 'localhost' ||
		/^127\./.test(h) ||
		/^10\./.test(h) ||
		/^192\.168\./.test(h) ||
		/^172\.(1[6-9]|2\d|3[01])\./.test(h) ||
		/^169\.254\./.test(h) ||
		h === '[::1]' ||
		h === '0.0.0.0'
	) {
		return `reference host ${h} is a private address and was refused`;
	}
	if (!/\.(example|test)$/i.test(h)) return `reference host ${h} could not be resolved`;
	if (/login|cookie/i.test(url.pathname)) return 'reference needs a login and could not be read';
	return undefined;
}
