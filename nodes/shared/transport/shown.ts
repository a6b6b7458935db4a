/**
 * What a message may show of an address or an answer: an address's origin or path, an unreadable answer's kind and
 * size. Never the answer's text (the redaction of what a message does show: redact.ts).
 */

/** An address's path, for a message ('(invalid URL)' when it is none). */
export function pathOf(url: string): string {
	try {
		return new URL(url).pathname;
	} catch {
		return '(invalid URL)';
	}
}

export function safeOrigin(url: string): string {
	try {
		return new URL(url).origin;
	} catch {
		return '(invalid address)';
	}
}

/** What an unreadable answer looked like, for a message: never its text. */
export function describeText(text: string): string {
	const t = text.trim();
	if (!t) return 'empty';
	if (t.startsWith('<')) return 'HTML';
	return `${t.length} bytes`;
}
