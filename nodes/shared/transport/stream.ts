/**
 * A paid POST whose answer is read as a stream (SSE): sent once through the same `send` and spend marks as every paid
 * request (submit.ts), judged by the same outcome rules; a 2xx event stream is handed on bounded and redacted chunk by chunk, any other 2xx
 * answer read whole as a plain request's answer is read.
 */
import { Readable } from 'node:stream';
import { GuardedBody, readCapped, type GuardOptions } from './body';
import { charsetOf } from './charset';
import {
	header,
	type GatewayClient,
	type OriginKind,
	type ReadJson,
	type StreamResponse,
} from './client';
import { dispatchPaid, judgeRefusal, type Uncertain } from './submit';
import type { TimeoutKind } from './timeouts';

/**
 * A 2xx answer to a streamed request. `whole`: it is not labelled an event stream, and was read whole as the plain
 * path reads a JSON answer (`body` is then its text).
 */
export type StreamAnswer = StreamResponse & { whole?: ReadJson };

const EVENT_STREAM = /^\s*text\/event-stream/i;

export interface PostStreamOptions {
	origin?: OriginKind;
	timeout?: TimeoutKind;
	headers?: Record<string, string>;
	idleTimeoutMs?: number;
	maxDurationMs?: number;
	maxBytes?: number;
}

/**
 * Same outcome rules as submit. `idleTimeoutMs` (default `timeouts.streamIdle`) is the longest gap between two body
 * chunks, `maxDurationMs` (default `timeouts.streamTotal`) the longest the whole answer may take, `maxBytes` (default
 * `limits.streamBytes`) its size. The body handed out is redacted UTF-8 text (decoded in the charset the answer
 * declares, a byte order mark deciding): a key split across chunks is caught too. An answer not labelled
 * `text/event-stream` is read whole, within the same bounds, by the one reader of JSON answers (`whole`).
 */
export async function postStream(
	client: GatewayClient,
	target: string,
	json: unknown,
	opts: PostStreamOptions = {},
): Promise<StreamAnswer | Uncertain> {
	const url = client.resolve(target, opts.origin);
	const timeoutMs = client.timeouts[opts.timeout ?? 'text'];
	const idleMs =
		opts.idleTimeoutMs && opts.idleTimeoutMs > 0 ? opts.idleTimeoutMs : client.timeouts.streamIdle;
	const deadline =
		Date.now() +
		(opts.maxDurationMs && opts.maxDurationMs > 0
			? opts.maxDurationMs
			: client.timeouts.streamTotal);
	const headers = {
		accept: 'text/event-stream, application/json',
		'content-type': 'application/json',
		...client.authHeaders(),
		...(opts.headers ?? {}),
	};
	const res = await dispatchPaid(client, url, headers, JSON.stringify(json), {
		headersMs: Math.min(timeoutMs, Math.max(1, deadline - Date.now())),
		idleMs,
		whole: false,
		timeoutMs,
		throwCancelled: true,
		uncertainSuffix: '',
	});
	if ('kind' in res) return res;
	if (res.statusCode >= 200 && res.statusCode < 300) {
		const answerHeaders = client.redactHeaders(res.headers);
		const declared = header(answerHeaders, 'content-type') ?? '';
		const guard = {
			what: `POST ${client.path(url)}`,
			deadline,
			idleMs,
			maxBytes: opts.maxBytes ?? client.limits.streamBytes,
			signal: client.signal,
		};
		const answer = { status: res.statusCode, headers: answerHeaders, url: client.redact(url) };
		const guarded = new GuardedBody(res.body, guard);
		if (!EVENT_STREAM.test(declared)) return readWhole(client, guarded, declared, guard, answer);
		// labelled an event stream: what its first byte says decides. An event stream starts with a field, a comment
		// or a blank line, never with `{` or `[`: such a body is a whole JSON answer under the stream's label (a
		// gateway that ignored `stream: true` and labels every answer to it so), read by the plain path's rules
		const head = await headOf(guarded);
		if (head.json) return readWhole(client, Readable.from(replay(head)), declared, guard, answer);
		const charset = charsetOf(declared);
		// the body handed out is UTF-8, whatever charset the gateway declared (and decoded in)
		const body = Readable.from(replay(head, client.redactor.chunks({ charset }).asBytes()));
		return { ...answer, contentType: utf8Label(declared, charset), body };
	}
	const parsed = await client
		.readJson(res, 'POST', url)
		.catch(() => ({ json: undefined, text: '', parsed: false }));
	return judgeRefusal(client, res.statusCode, parsed.json, parsed.text, url, res.headers, {
		noTaskId: false,
	});
}

/**
 * An answer not labelled an event stream (a gateway that ignored `stream: true`, or a proxy that relabelled the
 * stream), read whole within the stream's bounds and by the one reader of whole bodies (`parseBody`: its declared
 * charset, a byte order mark, a UTF-8 body under a wrong label). A body that breaks off is an uncertain outcome: the
 * gateway answered 2xx, so it ran. A cancellation is thrown.
 */
async function readWhole(
	client: GatewayClient,
	body: Readable,
	declared: string,
	guard: GuardOptions,
	answer: { status: number; headers: StreamResponse['headers']; url: string },
): Promise<StreamAnswer | Uncertain> {
	let bytes: Buffer;
	try {
		bytes = (await readCapped(body, guard.maxBytes!, guard.what)).bytes;
	} catch (err) {
		client.throwIfCancelled();
		return {
			kind: 'uncertain',
			reason: `HTTP ${answer.status} answer (${declared || 'no content type'}) broke off while reading: ${(err as Error).message}`,
			status: answer.status,
			url: answer.url,
		};
	}
	const whole = client.parseBody(bytes, declared);
	const contentType = utf8Label(declared, charsetOf(declared));
	return { ...answer, contentType, body: Readable.from([whole.text]), whole };
}

/**
 * A body's first chunks, read up to its first significant byte (past a byte order mark, whitespace and the NULs of
 * UTF-16); what ended the reading, if anything did.
 */
interface Head {
	chunks: Buffer[];
	/** the first significant byte is `{` or `[`: a JSON text */
	json: boolean;
	rest: AsyncIterator<Buffer>;
	ended?: boolean;
	error?: unknown;
}

/** Bytes before the first significant one: a byte order mark's (UTF-8, UTF-16 either way), whitespace, UTF-16's NULs. */
const INSIGNIFICANT = new Set([0x00, 0x09, 0x0a, 0x0d, 0x20, 0xef, 0xbb, 0xbf, 0xfe, 0xff]);

async function headOf(body: Readable): Promise<Head> {
	const rest = body[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
	const chunks: Buffer[] = [];
	try {
		for (;;) {
			const next = await rest.next();
			if (next.done) return { chunks, json: false, rest, ended: true };
			chunks.push(next.value);
			const first = next.value.find((b) => !INSIGNIFICANT.has(b));
			if (first !== undefined) return { chunks, json: first === 0x7b || first === 0x5b, rest };
		}
	} catch (error) {
		return { chunks, json: false, rest, error };
	}
}

/** The head again, then the rest of the body, through `map` when one is given; leaving early closes the body. */
async function* replay(head: Head, map?: GuardOptions['map']): AsyncGenerator<Buffer> {
	const out = (b: Buffer | undefined) => (map ? map.write(b!) : b);
	try {
		for (const c of head.chunks) {
			const b = out(c);
			if (b?.length) yield b;
		}
		if (head.error !== undefined) throw head.error;
		if (!head.ended)
			for (;;) {
				const next = await head.rest.next();
				if (next.done) break;
				const b = out(next.value);
				if (b?.length) yield b;
			}
		const last = map?.end();
		if (last?.length) yield last;
	} finally {
		await head.rest.return?.();
	}
}

/** The label of a body handed out as UTF-8 text, whatever charset the gateway declared (and it was decoded in). */
function utf8Label(declared: string, charset: string | undefined): string {
	return charset && charset !== 'utf-8'
		? declared.replace(/(;\s*charset\s*=\s*)("?)[^";\s]+\2/i, '$1utf-8')
		: declared;
}
