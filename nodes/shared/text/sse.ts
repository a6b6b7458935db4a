/** Reads a text/event-stream body by SSE event boundaries (eventsource-parser), never by network chunks. */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { Readable } from 'node:stream';

export class StreamError extends Error {
	constructor(message: string) {
		super(message);
		this.name = 'StreamError';
	}
}

/**
 * Feeds every event to `onEvent`; returning `'stop'` ends reading. Comment lines (keep-alives)
 * are ignored by the parser. Rejects on a socket error or when no byte arrives for `idleMs`.
 */
export function readSse(body: Readable, onEvent: (e: EventSourceMessage) => void | 'stop', idleMs: number, signal?: AbortSignal): Promise<{ stopped: boolean }> {
	return new Promise((resolve, reject) => {
		const decoder = new TextDecoder('utf-8');
		let stopped = false;
		let settled = false;
		let idle: NodeJS.Timeout | undefined;
		const finish = (err?: Error) => {
			if (settled) return;
			settled = true;
			if (idle) clearTimeout(idle);
			signal?.removeEventListener('abort', onAbort);
			body.removeAllListeners('data');
			if (err) {
				body.destroy();
				reject(err);
			} else {
				if (stopped) body.destroy();
				resolve({ stopped });
			}
		};
		const armIdle = () => {
			if (idle) clearTimeout(idle);
			idle = setTimeout(() => finish(new StreamError(`stream idle for ${Math.round(idleMs / 1000)} s: no data arrived, the answer is incomplete`)), idleMs);
		};
		const onAbort = () => finish(new StreamError('execution cancelled while streaming'));
		signal?.addEventListener('abort', onAbort, { once: true });
		const parser = createParser({
			onEvent: (e) => {
				if (stopped || settled) return;
				try {
					if (onEvent(e) === 'stop') {
						stopped = true;
						finish();
					}
				} catch (err) {
					finish(err as Error);
				}
			},
		});
		armIdle();
		body.on('data', (chunk: Buffer) => {
			armIdle();
			parser.feed(decoder.decode(chunk, { stream: true }));
		});
		body.on('end', () => {
			parser.feed(decoder.decode());
			finish();
		});
		body.on('error', (err) => finish(new StreamError(`stream broke off: ${err.message}`)));
		body.on('close', () => finish());
	});
}
