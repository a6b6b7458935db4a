/** Writing a body at a pace: a connection's bandwidth, one byte at a time (trickle), cut after some bytes, or endless. */
import type { ServerResponse } from 'node:http';
import type { Body } from './body';

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

/** Resolves when the response can take more (or is closed), leaving no listener behind. */
export function drained(res: ServerResponse): Promise<void> {
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
export async function sendBody(
	res: ServerResponse,
	status: number,
	headers: Record<string, string | number>,
	body: Body,
	pace: Pace = {},
): Promise<void> {
	const h: Record<string, string | number> = { ...headers };
	if (body.length !== undefined) h['content-length'] = body.length;
	res.writeHead(status, h);
	const rate =
		pace.bytesPerSec !== undefined && Number.isFinite(pace.bytesPerSec) && pace.bytesPerSec > 0
			? pace.bytesPerSec
			: undefined;
	// pieces small enough for a smooth rate (about 50 writes a second)
	const slice =
		pace.trickleMs !== undefined ? 1 : rate ? Math.max(1, Math.floor(rate / 50)) : Infinity;
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
