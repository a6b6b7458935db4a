/**
 * A paid POST whose answer is read as a stream (SSE): sent once through the same `send` and spend marks as every paid
 * request (submit.ts), judged by the same outcome rules; a 2xx body is handed on bounded and redacted chunk by chunk.
 */
import { GuardedBody } from './body';
import { charsetOf } from './charset';
import { header, type GatewayClient, type OriginKind, type StreamResponse } from './client';
import { dispatchPaid, judgeRefusal, type Uncertain } from './submit';
import type { TimeoutKind } from './timeouts';

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
 * declares, a byte order mark deciding): a key split across chunks is caught too.
 */
export async function postStream(
	client: GatewayClient,
	target: string,
	json: unknown,
	opts: PostStreamOptions = {},
): Promise<StreamResponse | Uncertain> {
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
		const charset = charsetOf(declared);
		// the body handed out is UTF-8, whatever charset the gateway declared (and decoded in)
		const contentType =
			charset && charset !== 'utf-8'
				? declared.replace(/(;\s*charset\s*=\s*)("?)[^";\s]+\2/i, '$1utf-8')
				: declared;
		const body = new GuardedBody(res.body, {
			what: `POST ${client.path(url)}`,
			deadline,
			idleMs,
			maxBytes: opts.maxBytes ?? client.limits.streamBytes,
			signal: client.signal,
			map: client.redactor.chunks({ charset }).asBytes(),
		});
		return {
			status: res.statusCode,
			headers: answerHeaders,
			contentType,
			body,
			url: client.redact(url),
		};
	}
	const parsed = await client
		.readJson(res, 'POST', url)
		.catch(() => ({ json: undefined, text: '', parsed: false }));
	return judgeRefusal(client, res.statusCode, parsed.json, parsed.text, url, res.headers, {
		noTaskId: false,
	});
}
