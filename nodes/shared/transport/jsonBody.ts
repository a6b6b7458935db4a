/**
 * The one reader of a whole JSON body, whatever path it came by (a plain answer, a whole answer to a streamed
 * request, an error answer): decoded in the charset its Content-Type declares (./charset.ts: a byte order mark
 * decides; UTF-8 by default), redacted before it is parsed and its parsed value redacted again (a JSON escape can make
 * a form appear only once parsed), so nothing built from either can hold the key.
 */
import { decodeBody } from './charset';
import type { Redactor } from './redact';

/** UTF-8 that refuses any byte sequence that is not (the body is then left as its label read it). */
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/** A JSON answer read whole: its text decoded in its charset and redacted, its value parsed from that text and redacted again. */
export interface ReadJson {
	json: unknown;
	text: string;
	parsed: boolean;
}

const looksLikeJson = (s: string) => /^\s*[[{]/.test(s);

/** A body that does not parse in its declared charset is tried once more as UTF-8 (redacted the same way). */
export function parseJsonBody(
	redactor: Redactor,
	bytes: Buffer,
	contentType: string | undefined,
): ReadJson {
	const text = redactor.text(decodeText(redactor, bytes, contentType));
	if (text.trim() === '') return { json: undefined, text, parsed: false };
	let json: unknown;
	try {
		json = JSON.parse(text);
	} catch {
		// a JSON body labelled with another charset than it was written in (UTF-8 labelled UTF-16): a paid answer's
		// task ID must not be lost to a wrong label, so UTF-8 is tried once more (redacted the same way)
		const utf8 = decodeBody(bytes, undefined).text;
		if (utf8 === text || !looksLikeJson(utf8)) return { json: undefined, text, parsed: false };
		const again = redactor.text(utf8);
		try {
			return { json: redactor.parsed(again, JSON.parse(again)), text: again, parsed: true };
		} catch {
			return { json: undefined, text, parsed: false };
		}
	}
	return { json: redactor.parsed(text, json), text, parsed: true };
}

/**
 * A text body in the charset its Content-Type declares. A body that declares anything but UTF-8 is also read byte
 * for byte: when the key shows there but not in the declared reading (a UTF-8 body labelled UTF-16, UTF-16 at an
 * odd offset), the declared reading would hide it from redaction, so the bytes are read as UTF-8 when they are
 * valid UTF-8 (the key, ASCII, shows the same in both) and as Latin-1 otherwise.
 */
function decodeText(redactor: Redactor, bytes: Buffer, contentType: string | undefined): string {
	const { text, encoding } = decodeBody(bytes, contentType);
	if (encoding === 'utf-8' || !redactor.active) return text;
	const raw = bytes.toString('latin1');
	if (redactor.contains(text) || !redactor.contains(raw)) return text;
	try {
		return STRICT_UTF8.decode(bytes);
	} catch {
		return raw;
	}
}
