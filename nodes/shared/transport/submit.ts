/**
 * Paid POSTs: sent once, never retried here, and read into an outcome the item pipeline can trust. The spend scope
 * (spend.ts) is marked the moment the request is handed to the network (`markDispatched`), and given the one error
 * that proves the gateway created nothing (`markRejected`): a definite rejection, or a request that provably never
 * left. Everything else after the request left is spent, its outcome accepted or uncertain.
 */
import { taskIdIn } from '../rules/taskId';
import { FormData as UndiciFormData, type Dispatcher } from 'undici';
import { extractGatewayError } from '../errors';
import { describeText } from './shown';
import {
	type GatewayClient,
	type Headers,
	type JsonResponse,
	type OriginKind,
	type ReadJson,
} from './client';
import { markDispatched, markRejected } from './spend';
import type { TimeoutKind } from './timeouts';

/** A POST's outcome. A definite rejection is thrown as GatewayHttpError instead. */
export type SubmitOutcome =
	| {
			kind: 'accepted';
			status: number;
			body: Record<string, unknown>;
			/** the task ID the answer carries (read here, once: `task_id`, `id`, `data.task_id`, `data.id`) */
			taskId?: string;
			headers: JsonResponse['headers'];
			url: string;
	  }
	| { kind: 'uncertain'; reason: string; status?: number; body?: unknown; url: string };

export type Uncertain = Extract<SubmitOutcome, { kind: 'uncertain' }>;

export interface SubmitOptions {
	origin?: OriginKind;
	timeout?: TimeoutKind;
	headers?: Record<string, string>;
	/** default limits.jsonBytes */
	maxBytes?: number;
}

/**
 * Nodes build multipart bodies with Node's global FormData (they may not import undici). Node 20 bundles an
 * older undici whose FormData this undici's `request` does not recognise ("action is not a function"), so a
 * form that is not ours is copied entry by entry (strings and File/Blob parts, with their file names).
 */
function toUndiciForm(form: UndiciFormData | FormData): UndiciFormData {
	if (form instanceof UndiciFormData) return form;
	const out = new UndiciFormData();
	for (const [name, value] of (form as FormData).entries()) {
		if (typeof value === 'string') out.append(name, value);
		else out.append(name, value as Blob, (value as File).name);
	}
	return out;
}

/**
 * Hands a paid request to the network once, marking the spend scope. A request that provably never left is thrown
 * (marked rejected); one that may have arrived comes back as uncertain; a cancellation after it left is thrown when
 * `throwCancelled` (a stream), else uncertain too.
 */
export async function dispatchPaid(
	client: GatewayClient,
	url: string,
	headers: Record<string, string>,
	payload: string | UndiciFormData,
	bounds: {
		headersMs: number;
		idleMs?: number;
		whole: boolean;
		timeoutMs: number;
		throwCancelled: boolean;
		uncertainSuffix: string;
	},
): Promise<Dispatcher.ResponseData | Uncertain> {
	client.throwIfCancelled();
	try {
		markDispatched();
		return await client.send('POST', url, headers, payload, {
			attempt: 1,
			headersMs: bounds.headersMs,
			idleMs: bounds.idleMs,
			whole: bounds.whole,
		});
	} catch (err) {
		const ne = client.networkError(err, 'POST', url, bounds.timeoutMs, true);
		if (!ne.maybeDelivered) throw markRejected(ne);
		if (bounds.throwCancelled && ne.cancelled) throw ne;
		return { kind: 'uncertain', reason: `${ne.message}${bounds.uncertainSuffix}`, url };
	}
}

/**
 * A non-2xx answer to a paid POST (other than a 5xx that carries a task ID, which submit accepts): 5xx and redirects
 * are uncertain (the gateway may have created something); a 5xx saying the request never reached a model and every
 * 4xx are definite rejections, thrown and marked so.
 */
export function judgeRefusal(
	client: GatewayClient,
	status: number,
	json: unknown,
	text: string,
	url: string,
	headers: Headers,
	o: { noTaskId: boolean },
): Uncertain {
	if (status >= 300 && status < 400) {
		return {
			kind: 'uncertain',
			reason: client.httpError(status, json, text, 'POST', url, headers).message,
			status,
			url,
		};
	}
	if (status >= 500 && !neverProcessed(json, status)) {
		const ex = extractGatewayError(json, status, text);
		return {
			kind: 'uncertain',
			reason: `HTTP ${status}${o.noTaskId ? ' without a task ID' : ''}: ${ex.message}`,
			status,
			body: json,
			url,
		};
	}
	throw markRejected(client.httpError(status, json, text, 'POST', url, headers));
}

/**
 * A paid POST. Never retried. Returns accepted (2xx JSON) or uncertain (timeout, reset,
 * cancellation, 5xx without a task ID, unreadable 2xx, a redirect); throws GatewayHttpError when
 * the gateway definitely rejected it, or GatewayNetworkError when it provably never left.
 */
export async function submit(
	client: GatewayClient,
	target: string,
	body: { json?: unknown; form?: UndiciFormData | FormData },
	opts: SubmitOptions = {},
): Promise<SubmitOutcome> {
	const url = client.resolve(target, opts.origin);
	const timeoutMs = client.timeouts[opts.timeout ?? 'submit'];
	const headers: Record<string, string> = {
		accept: 'application/json',
		...client.authHeaders(),
		...(opts.headers ?? {}),
	};
	let payload: string | UndiciFormData;
	if (body.form) payload = toUndiciForm(body.form);
	else {
		headers['content-type'] = 'application/json';
		payload = JSON.stringify(body.json ?? {});
	}
	const res = await dispatchPaid(client, url, headers, payload, {
		headersMs: timeoutMs,
		whole: true,
		timeoutMs,
		throwCancelled: false,
		uncertainSuffix: '; the gateway may have accepted it',
	});
	if ('kind' in res) return res;
	let parsed: ReadJson;
	try {
		parsed = await client.readJson(res, 'POST', url, opts.maxBytes);
	} catch (err) {
		const ne = client.networkError(err, 'POST', url, timeoutMs, true);
		return {
			kind: 'uncertain',
			reason: `${ne.message} while reading the answer (HTTP ${res.statusCode})`,
			status: res.statusCode,
			url,
		};
	}
	return judgeAnswer(client, res, parsed, url);
}

/** A read answer to a paid POST: accepted (a 2xx object, or a 5xx that names its task), uncertain, or refused. */
function judgeAnswer(
	client: GatewayClient,
	res: Dispatcher.ResponseData,
	parsed: ReadJson,
	url: string,
): SubmitOutcome {
	const status = res.statusCode;
	const obj =
		parsed.json && typeof parsed.json === 'object'
			? (parsed.json as Record<string, unknown>)
			: undefined;
	const answerHeaders = client.redactHeaders(res.headers);
	if (status >= 200 && status < 300) {
		if (obj)
			return {
				kind: 'accepted',
				status,
				body: obj,
				taskId: taskIdIn(obj),
				headers: answerHeaders,
				url,
			};
		return {
			kind: 'uncertain',
			reason: `HTTP ${status} with an unreadable body (${describeText(parsed.text)})`,
			status,
			body: parsed.text.slice(0, 200),
			url,
		};
	}
	const taskId = obj ? taskIdIn(obj) : undefined;
	if (status >= 500 && obj && taskId)
		return { kind: 'accepted', status, body: obj, taskId, headers: answerHeaders, url };
	return judgeRefusal(client, status, obj, parsed.text, url, res.headers, { noTaskId: true });
}

/** Error codes of a 5xx answer that say the request never reached a model (no channel for it in the key's group). */
const NEVER_PROCESSED_CODES = new Set(['model_not_found']);

function neverProcessed(body: unknown, status: number): boolean {
	if (status < 500 || !body || typeof body !== 'object') return false;
	const code = extractGatewayError(body, status).code;
	return code !== undefined && NEVER_PROCESSED_CODES.has(code);
}
