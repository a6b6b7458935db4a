/**
 * `pumpStream` drives a stream parser (sse.ts) from an HTTP body, with an idle timeout and the execution cancel
 * signal. Its phases: start (a cancelled execution reads nothing), data (each chunk re-arms the idle alarm and feeds
 * the parser, which may finish the answer), end (the parser judges a body that ended), error and close (what broke
 * the body, as a StreamError); `finish` settles once and lets go of the body, the alarm and the listeners.
 */
import type { Readable } from 'node:stream';
import { BodyError } from '../transport/body';
import { alarm, type Alarm } from '../transport/clock';
import { StreamError, incompleteError, type StreamParser } from './sse';

interface PumpOptions {
	idleMs: number;
	signal?: AbortSignal;
}

/**
 * Reads `body` into `parser` until its completion marker or the end of the body. Rejects with a
 * StreamError on an error event, a cut stream, `idleMs` without a byte, or the cancel signal.
 */
export function pumpStream(body: Readable, parser: StreamParser, opts: PumpOptions): Promise<void> {
	return new Promise((resolve, reject) => {
		new Pump(body, parser, opts, (err) => (err ? reject(err) : resolve())).start();
	});
}

const seconds = (ms: number) => (ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`);

const idleError = (parser: StreamParser, idleMs: number) =>
	incompleteError(parser, `no data arrived for ${seconds(idleMs)} (stream idle timeout)`, 'idle');

const cancelledError = (parser: StreamParser) =>
	new StreamError(
		'the execution was cancelled while the answer was streaming',
		'cancelled',
		parser.receivedText,
	);

/** What broke a body, as the answer's error: its idle timeout, the cancel signal, a transport limit, or the network. */
function bodyFailure(
	err: Error & { code?: string },
	parser: StreamParser,
	opts: PumpOptions,
): StreamError {
	if (opts.signal?.aborted) return cancelledError(parser);
	if (err.code === 'UND_ERR_BODY_TIMEOUT' || (err instanceof BodyError && err.failure === 'IDLE'))
		return idleError(parser, opts.idleMs);
	if (err instanceof BodyError) {
		if (err.failure === 'CANCELLED') return cancelledError(parser);
		if (err.failure === 'DEADLINE')
			return incompleteError(parser, `the stream was stopped at its time limit (${err.message})`);
		if (err.failure === 'TOO_LARGE')
			return incompleteError(parser, `the stream was stopped at its size limit (${err.message})`);
	}
	return incompleteError(parser, `the stream broke off (${err.message})`);
}

/** One body read into one parser; settled once. */
class Pump {
	private settled = false;
	private idle: Alarm | undefined;

	constructor(
		private readonly body: Readable,
		private readonly parser: StreamParser,
		private readonly opts: PumpOptions,
		private readonly done: (err?: Error) => void,
	) {}

	start(): void {
		const { body, opts } = this;
		if (opts.signal?.aborted) return this.onAbort();
		opts.signal?.addEventListener('abort', this.onAbort, { once: true });
		this.armIdle();
		body.on('data', this.onData);
		body.once('end', this.onEnd);
		body.on('error', this.onError);
		body.once('close', this.onClose);
	}

	private finish(err?: Error): void {
		if (this.settled) return;
		this.settled = true;
		this.idle?.stop();
		this.opts.signal?.removeEventListener('abort', this.onAbort);
		this.body.off('data', this.onData);
		// after the completion marker the rest of the body is not needed; on an error the connection is dropped
		if (err || !this.body.readableEnded) this.body.destroy();
		this.done(err);
	}

	private armIdle(): void {
		if (this.idle) this.idle.reset();
		else
			this.idle = alarm(this.opts.idleMs, () =>
				this.finish(idleError(this.parser, this.opts.idleMs)),
			);
	}

	/** Runs a parser step; what it throws settles the pump. */
	private step(feed: () => void): boolean {
		try {
			feed();
			return true;
		} catch (err) {
			this.finish(err as Error);
			return false;
		}
	}

	private readonly onAbort = () => this.finish(cancelledError(this.parser));

	private readonly onData = (chunk: Buffer | string) => {
		if (this.settled) return;
		this.armIdle();
		if (this.step(() => this.parser.feed(chunk)) && this.parser.finished) this.finish();
	};

	private readonly onEnd = () => {
		if (this.settled) return;
		if (this.step(() => this.parser.end())) this.finish();
	};

	private readonly onError = (err: Error & { code?: string }) => {
		if (!this.settled) this.finish(bodyFailure(err, this.parser, this.opts));
	};

	private readonly onClose = () => {
		if (!this.settled) this.finish(incompleteError(this.parser, 'the connection closed'));
	};
}
