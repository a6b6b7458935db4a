/**
 * The one module that talks HTTP: every node goes through GatewayTransport. It is assembled from the transport's
 * parts, one file per job:
 * - client.ts   origins and key pinning, the one `send` (no redirects, proxies from the environment, pooled
 *               connections, per-kind timeouts), redaction of the key where every answer enters
 * - get.ts      idempotent GETs and their one retry loop (back-off, Retry-After, deadline before and after each sleep)
 * - submit.ts   paid POSTs: sent once, outcome accepted / uncertain / rejected, the spend scope marked (spend.ts)
 * - stream.ts   paid POSTs read as a stream (SSE), through the same send and outcome rules
 * - download.ts result downloads (keyless redirects checked hop by hop, bounded bodies)
 * - ssrf.ts     n8n's SSRF settings (N8N_SSRF_*) read and applied to result downloads off the credential's origins
 * - dispatcher.ts the pooled, proxy-aware connections, and those held to the SSRF rule
 * - shown.ts    what a message may show of an address or an unreadable answer
 * - clock.ts    every wait of the package, and the time scale only tests set
 * Every answer is bounded in time and size, and every text it hands out (JSON bodies, error messages, headers,
 * text streams) has the key and the other credential secrets redacted already.
 */
import type { FormData as UndiciFormData } from 'undici';
import { GatewayClient, type JsonResponse, type StreamResponse } from './client';
import { download, type DownloadOptions } from './resultGet';
import { getJson, type GetJsonOptions } from './get';
import { postStream, type PostStreamOptions, type StreamAnswer } from './stream';
import { submit, type SubmitOptions, type SubmitOutcome, type Uncertain } from './submit';

export { DEFAULT_LIMITS } from './client';
export { getDispatcher, setDispatcher } from './dispatcher';
export type {
	JsonResponse,
	OriginKind,
	StreamResponse,
	Timeouts,
	TransportConfig,
	TransportLimits,
} from './client';
export type { DownloadOptions } from './resultGet';
export type { SubmitOutcome } from './submit';

export class GatewayTransport extends GatewayClient {
	/** See get.ts: an authenticated (or, with `auth: false`, public) GET of JSON, retried on 429, 5xx and network failures. */
	getJson<T = unknown>(target: string, opts: GetJsonOptions = {}): Promise<JsonResponse<T>> {
		return getJson<T>(this, target, opts);
	}

	/** See submit.ts: a paid POST, sent once. */
	submit(
		target: string,
		body: { json?: unknown; form?: UndiciFormData | FormData },
		opts: SubmitOptions = {},
	): Promise<SubmitOutcome> {
		return submit(this, target, body, opts);
	}

	/** See stream.ts: a paid POST whose answer is read as a stream. */
	postStream(
		target: string,
		json: unknown,
		opts: PostStreamOptions = {},
	): Promise<StreamAnswer | Uncertain> {
		return postStream(this, target, json, opts);
	}

	/** See download.ts: opens a result download. */
	download(target: string, opts: DownloadOptions): Promise<StreamResponse> {
		return download(this, target, opts);
	}
}
