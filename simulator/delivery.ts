/** Writing bodies the way slow, hostile or broken peers do: paced, trickled, cut mid-stream, or endless. */
import type { ServerResponse } from 'node:http';
import type { Body } from './media';

export interface Pace {
	/** bytes per second for this connection (default unlimited) */
	bytesPerSec?: number;
	/** one byte every this many milliseconds */
	trickleMs?: number;
	/** the connection is closed after this many body bytes */
	cutAfter?: number;
	/** pause between chunks (endless bodies) */
	chunkPauseMs?: number;
}

/** Resolves after `ms`, or as soon as the response is closed (so abandoned bodies stop at once). */
export function pause(res: ServerResponse, ms: number): Promise<void> {
	if (ms <= 0 || res.destroyed) return Promise.resolve();
	return new Promise((resolve) => {
		const done = () => {
			clearTimeout(timer);
			res.off('close', done);
			resolve();
		};
		const timer = setTimeout(done, ms);
		res.once('close', done);
	});
}

function drained(res: ServerResponse): Promise<void> {
	return new Promise((resolve) => {
		const done = () => {
			res.off('drain', done);
			res.off('close', done);
			resolve();
		};
		res.once('drain', done);
		res.once('close', done);
	});
}

function written(res: ServerResponse, piece: Buffer): Promise<void> {
	return new Promise((resolve) => {
		const onClose = () => resolve();
		res.once('close', onClose);
		res.write(piece, () => {
			res.off('close', onClose);
			resolve();
		});
	});
}

/** Sends `body` (Content-Length from its length, chunked without one) at the given pace. */
export async function sendBody(res: ServerResponse, status: number, headers: Record<string, string | number>, body: Body, pace: Pace = {}): Promise<void> {
	const h: Record<string, string | number> = { ...headers };
	if (body.length !== undefined) h['content-length'] = body.length;
	res.writeHead(status, h);
	const rate = pace.bytesPerSec !== undefined && Number.isFinite(pace.bytesPerSec) && pace.bytesPerSec > 0 ? pace.bytesPerSec : undefined;
	// pieces small enough for a smooth rate (about 50 writes a second)
	const slice = pace.trickleMs !== undefined ? 1 : rate ? Math.max(1, Math.floor(rate / 50)) : Infinity;
	const start = Date.now();
	let sent = 0;
	if (pace.cutAfter === 0) return cut(res);
	for (const chunk of body.chunks()) {
		let rest = chunk;
		while (rest.length) {
			if (res.destroyed) return;
			let n = Math.min(rest.length, slice);
			if (pace.cutAfter !== undefined) n = Math.min(n, pace.cutAfter - sent);
			const piece = rest.subarray(0, n);
			rest = rest.subarray(n);
			sent += n;
			if (pace.cutAfter !== undefined && sent >= pace.cutAfter) {
				await written(res, piece);
				return cut(res);
			}
			if (!res.write(piece)) await drained(res);
			if (pace.trickleMs !== undefined) await pause(res, pace.trickleMs);
			else if (rate) await pause(res, start + (sent * 1000) / rate - Date.now());
		}
		if (pace.chunkPauseMs) await pause(res, pace.chunkPauseMs);
		else if (body.length === undefined) await new Promise((r) => setImmediate(r));
	}
	if (!res.destroyed) res.end();
}

/** Closes the connection mid-body, after what was written has reached the socket. */
async function cut(res: ServerResponse): Promise<void> {
	res.flushHeaders();
	await pause(res, 20);
	res.destroy();
}

/** Modes a fault puts on the JSON answer of one request. */
export type JsonMode = { kind: 'trickle'; intervalMs: number } | { kind: 'oversize'; bytes: number } | { kind: 'echo-headers'; headers: Record<string, unknown> };

const jsonModes = new WeakMap<ServerResponse, JsonMode[]>();

export function addJsonMode(res: ServerResponse, mode: JsonMode): void {
	jsonModes.set(res, [...(jsonModes.get(res) ?? []), mode]);
}

export function jsonModesOf(res: ServerResponse): JsonMode[] {
	return jsonModes.get(res) ?? [];
}

/** A JSON text grown to `bytes` by a string field of `x`s: still valid JSON, sent chunked, produced lazily. */
export function oversizeJson(prefix: string, suffix: string, bytes: number): Body {
	const filler = Buffer.alloc(64 * 1024, 0x78);
	const head = Buffer.from(prefix, 'utf8');
	const tail = Buffer.from(suffix, 'utf8');
	return {
		*chunks() {
			yield head;
			for (let left = bytes - head.length - tail.length; left > 0; left -= filler.length) yield filler.subarray(0, Math.min(filler.length, left));
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
	const suffix = `"${text.slice(at + mark.length).split(mark).join(JSON.stringify(head))}`;
	return oversizeJson(prefix, suffix, bytes);
}
