/** Oversize JSON answers: valid JSON grown to any size by a string of filler, produced lazily and sent chunked. */
import type { Body } from '../media/body';

/** A JSON text grown to `bytes` by a string field of `x`s: still valid JSON, sent chunked, produced lazily. */
export function oversizeJson(prefix: string, suffix: string, bytes: number): Body {
	const filler = Buffer.alloc(64 * 1024, 0x78);
	const head = Buffer.from(prefix, 'utf8');
	const tail = Buffer.from(suffix, 'utf8');
	return {
		*chunks() {
			yield head;
			for (let left = bytes - head.length - tail.length; left > 0; left -= filler.length)
				yield filler.subarray(0, Math.min(filler.length, left));
			yield tail;
		},
	};
}

/** Splits a JSON object's text so that a `padding` string can be streamed in before its closing brace. */
export function paddingAround(text: string): [string, string] {
	if (!text.startsWith('{')) return [`{"value":${text},"padding":"`, '"}'];
	const body = text.slice(0, -1);
	return [`${body}${body === '{' ? '' : ','}"padding":"`, '"}'];
}

/** Stands for the b64_json that `oversizeB64` grows (a JSON string value, quoted). */
export const OVERSIZE_B64_MARK = '\u0000oversize-b64\u0000';

/**
 * The JSON text `text` with its first `b64_json` placeholder (`OVERSIZE_B64_MARK`) grown so that the whole answer
 * is `bytes` long: the Base64 of a PNG header (`head`), then Base64 filler, produced lazily and sent chunked. Any
 * further placeholder (the same data repeated, e.g. `result.data`) holds the header alone.
 */
export function oversizeB64(text: string, head: string, bytes: number): Body {
	const mark = JSON.stringify(OVERSIZE_B64_MARK);
	const at = text.indexOf(mark);
	const prefix = `${text.slice(0, at)}"${head}`;
	const suffix = `"${text
		.slice(at + mark.length)
		.split(mark)
		.join(JSON.stringify(head))}`;
	return oversizeJson(prefix, suffix, bytes);
}
