/**
 * Response bodies bounded in time and size. `readCapped` reads a whole (JSON) body with a byte cap counted while
 * reading; `GuardedBody` hands a body on as a stream that ends with a BodyError at an overall deadline, after an
 * idle gap, past a byte cap, or short of its Content-Length, whatever the per-read timers of the connection do.
 */
import { Readable } from 'node:stream';
import { GatewayNetworkError } from '../errors';
import { alarm, type Alarm } from './clock';

export type BodyFailure =
	/** the overall deadline of the download or stream passed */
	| 'DEADLINE'
	/** no byte arrived for the idle time */
	| 'IDLE'
	/** more bytes than allowed */
	| 'TOO_LARGE'
	/** the body ended before its Content-Length (or ran past it) */
	| 'TRUNCATED'
	/** the connection broke off mid-body */
	| 'CUT'
	| 'CANCELLED';

/** A body that could not be read to its end. `retryable`: a network failure a GET may be retried on. */
export class BodyError extends GatewayNetworkError {
	constructor(
		message: string,
		readonly failure: BodyFailure,
		readonly received: number,
		readonly expected?: number,
	) {
		super(message, failure, true, failure === 'CANCELLED');
		this.name = 'BodyError';
	}

	get retryable(): boolean {
		return this.failure === 'IDLE' || this.failure === 'TRUNCATED' || this.failure === 'CUT';
	}
}

const noop = () => undefined;

/** Drops a body nobody will read: closes the connection without leaving an unhandled 'error' event behind. */
export function discard(body: Readable | undefined): void {
	if (!body || body.destroyed) return;
	body.on('error', noop);
	body.destroy();
}

export const mib = (n: number) =>
	n >= 1048576
		? `${Math.round((n / 1048576) * 10) / 10} MiB`
		: n >= 1024
			? `${Math.round(n / 1024)} KiB`
			: `${n} bytes`;
export const secs = (ms: number) =>
	ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${Math.max(0, Math.round(ms))} ms`;

export interface GuardOptions {
	/** epoch ms after which the body ends with DEADLINE */
	deadline?: number;
	/** longest gap between two chunks */
	idleMs?: number;
	/** more bytes than this end the body with TOO_LARGE */
	maxBytes?: number;
	/** the body must have exactly this many bytes (Content-Length) */
	expectedBytes?: number;
	/** what is read, for messages: "GET /r/x.png" */
	what: string;
	/** the execution's cancel signal */
	signal?: AbortSignal;
	/** maps each chunk (e.g. redaction of text); `end` gives what is left at the end */
	map?: { write(chunk: Buffer): Buffer | undefined; end(): Buffer | undefined };
}

/**
 * The body as a stream with every bound enforced. Source errors become BodyErrors; destroying the guarded
 * stream destroys the source. It never emits 'error' without a listener (a noop one is attached: whoever reads
 * it still gets the error; a body nobody reads cannot crash the process).
 */
export class GuardedBody extends Readable {
	private received = 0;
	private deadlineTimer?: Alarm;
	private idleTimer?: Alarm;
	private finished = false;
	private readonly onAbort = () => this.fail('CANCELLED', 'the execution was cancelled');

	constructor(
		private readonly source: Readable,
		private readonly opts: GuardOptions,
	) {
		super();
		this.on('error', noop);
		source.on('data', (chunk: Buffer) => this.onData(chunk));
		source.on('end', () => this.onEnd());
		source.on('error', (err: Error & { code?: string }) => this.onSourceError(err));
		source.on('close', () => {
			if (!this.finished && !this.destroyed) this.fail('CUT', 'the connection closed');
		});
		if (opts.deadline !== undefined) {
			const left = opts.deadline - Date.now();
			if (left <= 0)
				queueMicrotask(() =>
					this.fail('DEADLINE', 'the time limit had passed before the body started'),
				);
			else
				this.deadlineTimer = alarm(left, () =>
					this.fail(
						'DEADLINE',
						`the time limit was reached (${secs(left)} for the rest of the body)`,
					),
				);
		}
		this.armIdle();
		if (opts.signal?.aborted) queueMicrotask(this.onAbort);
		else opts.signal?.addEventListener('abort', this.onAbort, { once: true });
	}

	get bytesRead(): number {
		return this.received;
	}

	override _read(): void {
		if (this.source.isPaused()) this.source.resume();
	}

	override _destroy(err: Error | null, cb: (error?: Error | null) => void): void {
		this.finished = true;
		this.clearTimers();
		discard(this.source);
		cb(err);
	}

	private clearTimers(): void {
		this.deadlineTimer?.stop();
		this.idleTimer?.stop();
		this.deadlineTimer = this.idleTimer = undefined;
		this.opts.signal?.removeEventListener('abort', this.onAbort);
	}

	private armIdle(): void {
		const idle = this.opts.idleMs;
		if (!idle || idle <= 0) return;
		if (this.idleTimer) this.idleTimer.reset();
		else this.idleTimer = alarm(idle, () => this.fail('IDLE', `no data arrived for ${secs(idle)}`));
	}

	private onData(chunk: Buffer): void {
		if (this.finished) return;
		this.received += chunk.length;
		const { maxBytes, expectedBytes } = this.opts;
		if (maxBytes !== undefined && this.received > maxBytes)
			return this.fail('TOO_LARGE', `the body is larger than the limit of ${mib(maxBytes)}`);
		if (expectedBytes !== undefined && this.received > expectedBytes)
			return this.fail(
				'TRUNCATED',
				`the body ran past its Content-Length of ${expectedBytes} bytes`,
			);
		this.armIdle();
		const out = this.opts.map ? this.opts.map.write(chunk) : chunk;
		if (out && out.length && !this.push(out)) this.source.pause();
	}

	private onEnd(): void {
		if (this.finished) return;
		const { expectedBytes } = this.opts;
		if (expectedBytes !== undefined && this.received !== expectedBytes) {
			return this.fail(
				'TRUNCATED',
				`the body ended after ${this.received} of ${expectedBytes} bytes (Content-Length)`,
			);
		}
		this.finished = true;
		this.clearTimers();
		const rest = this.opts.map?.end();
		if (rest && rest.length) this.push(rest);
		this.push(null);
	}

	private onSourceError(err: Error & { code?: string }): void {
		if (this.finished) return;
		if (this.opts.signal?.aborted) return this.fail('CANCELLED', 'the execution was cancelled');
		if (err.code === 'UND_ERR_BODY_TIMEOUT')
			return this.fail('IDLE', `no data arrived for ${secs(this.opts.idleMs ?? 0)}`);
		this.fail('CUT', `the connection broke off (${err.message}${err.code ? `, ${err.code}` : ''})`);
	}

	private fail(failure: BodyFailure, why: string): void {
		if (this.finished) return;
		this.finished = true;
		const err = new BodyError(
			`${this.opts.what}: ${why} after ${this.received} byte${this.received === 1 ? '' : 's'}`,
			failure,
			this.received,
			this.opts.expectedBytes,
		);
		this.destroy(err);
	}
}

/**
 * Reads a whole body, counting bytes as they arrive (chunked answers included). Past `maxBytes` it stops:
 * with `truncate` (an error answer, only its beginning matters) it returns what it has and drops the rest;
 * otherwise it throws a BodyError TOO_LARGE. Either way the connection is closed at once, nothing more is read.
 */
export async function readCapped(
	body: Readable,
	maxBytes: number,
	what: string,
	truncate = false,
): Promise<{ bytes: Buffer; truncated: boolean }> {
	const chunks: Buffer[] = [];
	let total = 0;
	try {
		for await (const c of body) {
			const chunk = c as Buffer;
			if (total + chunk.length > maxBytes) {
				if (!truncate)
					throw new BodyError(
						`${what}: the answer is larger than the limit of ${mib(maxBytes)}`,
						'TOO_LARGE',
						total + chunk.length,
					);
				chunks.push(chunk.subarray(0, maxBytes - total));
				total = maxBytes;
				discard(body);
				return { bytes: Buffer.concat(chunks, total), truncated: true };
			}
			chunks.push(chunk);
			total += chunk.length;
		}
	} catch (err) {
		discard(body);
		throw err;
	}
	return { bytes: Buffer.concat(chunks, total), truncated: false };
}
