import { NodeApiError, NodeOperationError, type INode, type JsonObject } from 'n8n-workflow';
import { redactSecrets } from './transport/redact';

/** The gateway answered with an HTTP error (or a 3xx that was not followed). */
export class GatewayHttpError extends Error {
	constructor(
		public readonly status: number,
		public readonly gatewayMessage: string,
		public readonly code: string | undefined,
		public readonly method: string,
		public readonly path: string,
		public readonly retryAfterMs?: number,
	) {
		super(`${method} ${path} → HTTP ${status}: ${gatewayMessage}`);
		this.name = 'GatewayHttpError';
	}
}

/** No HTTP answer: connection refused/reset, timeout, cancellation. */
export class GatewayNetworkError extends Error {
	constructor(
		message: string,
		public readonly code: string | undefined,
		/** true when the request may have reached the gateway (reset, timeout after sending) */
		public readonly maybeDelivered: boolean,
		public readonly cancelled = false,
	) {
		super(message);
		this.name = 'GatewayNetworkError';
	}
}

/** A rule of ours refused to send the key or follow an address. Nothing was sent. */
export class SafetyError extends Error {
	constructor(message: string) {
		super(message);
		this.name = 'SafetyError';
	}
}

export interface RuleViolation {
	field: string;
	rule: string;
}

/** Input broke one or more request rules; nothing was sent. */
export class InputRuleError extends Error {
	constructor(public readonly violations: RuleViolation[]) {
		super(
			violations.length === 1
				? `${violations[0].field}: ${violations[0].rule}`
				: `${violations.length} problems: ` +
						violations.map((v) => `${v.field}: ${v.rule}`).join('; '),
		);
		this.name = 'InputRuleError';
	}
}

export interface ExtractedError {
	message: string;
	code?: string;
	type?: string;
}

/**
 * Reads both envelopes real gateways use: `{"error":{"message","type","code"}}` and
 * `{"code","message","data"}`; `error.message` first, then `message`. Codes may be numbers.
 */
export function extractGatewayError(body: unknown, status: number, rawText = ''): ExtractedError {
	const asCode = (c: unknown) =>
		typeof c === 'string' || typeof c === 'number' ? String(c) : undefined;
	if (body && typeof body === 'object') {
		const b = body as Record<string, unknown>;
		const err = b.error;
		if (err && typeof err === 'object') {
			const e = err as Record<string, unknown>;
			if (typeof e.message === 'string' && e.message) {
				return {
					message: e.message,
					code: asCode(e.code),
					type: typeof e.type === 'string' ? e.type : undefined,
				};
			}
		}
		if (typeof err === 'string' && err) return { message: err, code: asCode(b.code) };
		if (typeof b.message === 'string' && b.message)
			return { message: b.message, code: asCode(b.code) };
		if (typeof b.fail_reason === 'string' && b.fail_reason)
			return { message: b.fail_reason, code: asCode(b.code) };
	}
	const text = rawText.trim();
	if (text && !text.startsWith('<')) return { message: text.slice(0, 300) };
	return {
		message: defaultStatusText(status, text ? 'an HTML page instead of JSON' : 'empty body'),
	};
}

function defaultStatusText(status: number, what: string): string {
	if (status === 429) return `Too many requests (${what})`;
	if (status >= 500) return `Gateway or upstream error ${status} (${what})`;
	if (status >= 300 && status < 400) return `Redirect ${status}`;
	return `HTTP ${status} (${what})`;
}

/** The spec's handling advice per status. */
export function adviceFor(status: number, code?: string): string {
	if (code === 'insufficient_user_quota')
		return "Balance or token quota is insufficient: check the wallet and the key's quota in the console.";
	if (code === 'model_not_found')
		return "No channel serves this model in the key's group right now: check spelling, group permission and channel availability (GET /v1/models).";
	if (code === 'model_price_error')
		return 'The gateway has no price for this model: pick another model or ask the operator.';
	if (code === 'task_not_exist')
		return 'The task ID is unknown to this origin: query with the original key on the origin that created it.';
	if (status >= 300 && status < 400)
		return 'Authenticated calls never follow redirects. Check the Base URL (it must be the gateway origin itself).';
	switch (status) {
		case 400:
			return 'A field, size, MIME type or model parameter does not fit: read the message, fix the input, do not loop.';
		case 401:
			return 'The key is missing, invalid or expired: check the API Key in the credential (Bearer format, token state, validity period).';
		case 403:
			return "The key's group or token restriction does not allow this (or quota is exhausted): compare the key's group with GET /v1/models.";
		case 404:
			return 'Not found: wrong task ID, a different key, or the task was cleaned up (terminal records are kept about 2 hours).';
		case 413:
			return 'The request is too large: shrink the image or request (Base64 inflates size by a third).';
		case 429:
			return 'Rate, concurrency or queue limit: slow down and try again later. A POST whose outcome is unknown is never resent automatically.';
		default:
			if (status >= 500)
				return 'Gateway or upstream error: with a task ID keep querying it; without one check the usage records before submitting again.';
			return '';
	}
}

/** Every form of every secret (raw, percent-encoded, JSON-escaped, `Bearer <key>`) in `text` replaced by `***`. */
export function redact(text: string, secrets: Array<string | undefined>): string {
	return redactSecrets(text, secrets);
}

/**
 * Maps any error to the n8n error a user should see, with the item index and the spec's advice. `itemIndex`
 * undefined: the error is about the whole batch, not one item.
 */
export function toNodeError(
	node: INode,
	err: unknown,
	itemIndex: number | undefined,
	secrets: Array<string | undefined> = [],
): NodeApiError | NodeOperationError {
	if (err instanceof NodeApiError || err instanceof NodeOperationError) return err;
	if (err instanceof GatewayHttpError) {
		const message = redact(err.gatewayMessage, secrets);
		return new NodeApiError(
			node,
			{ message, status: err.status, code: err.code ?? null } as unknown as JsonObject,
			{
				message: `${message} [HTTP ${err.status}${err.code ? ` ${err.code}` : ''}]`,
				description: redact(
					`${adviceFor(err.status, err.code)} (${err.method} ${err.path})`,
					secrets,
				),
				httpCode: String(err.status),
				itemIndex,
			},
		);
	}
	if (err instanceof InputRuleError) {
		return new NodeOperationError(node, redact(err.message, secrets), {
			itemIndex,
			description: redact(
				'Nothing was sent to the gateway. ' +
					err.violations.map((v) => `• ${v.field}: ${v.rule}`).join('\n'),
				secrets,
			),
		});
	}
	const message = redact(err instanceof Error ? err.message : String(err), secrets);
	const description = (err as { description?: unknown })?.description;
	return new NodeOperationError(node, message, {
		itemIndex,
		...(typeof description === 'string' ? { description: redact(description, secrets) } : {}),
	});
}
