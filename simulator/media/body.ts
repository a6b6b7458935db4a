/** A body whose bytes are produced lazily, chunk by chunk; without a `length` it is sent chunked (and may never end). */
export interface Body {
	length?: number;
	chunks(): Iterable<Buffer>;
}

const CHUNK = 64 * 1024;

/** Bytes as a body, in 64 KiB chunks. */
export function bufferBody(parts: Buffer[]): Body {
	return {
		length: parts.reduce((n, p) => n + p.length, 0),
		*chunks() {
			for (const p of parts)
				for (let i = 0; i < p.length; i += CHUNK) yield p.subarray(i, i + CHUNK);
		},
	};
}
