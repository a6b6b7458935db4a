/**
 * What the agent gets when a model turn fails: the gateway's message first, the HTTP status, then what to do; redacted.
 */
import {
	adviceFor,
	extractGatewayError,
	GatewayHttpError,
	GatewayNetworkError,
	SafetyError,
} from '../../shared/errors';
import type { GatewayTransport } from '../../shared/transport';
import { BodyError } from '../../shared/transport/body';
import { StreamError } from '../../shared/text/sse';

/** The call an error is about: its transport (for redaction), path and model. */
export interface CallContext {
	transport: GatewayTransport;
	path: string;
	model: string;
}

/** An error for the agent: the gateway's message first, the HTTP status, then what to do. Redacted. */
export class GatewayModelError extends Error {
	constructor(
		message: string,
		readonly description: string,
		readonly httpCode?: number,
		/** what the person in the chat can do about it, one sentence (forTheChat puts it beside the reason) */
		readonly todo?: string,
	) {
		super(message);
		this.name = 'GatewayModelError';
	}
}

/** Marks an error forTheChat already worded. */
const SPOKEN = Symbol('spoken');

/**
 * The words n8n's chat shows. n8n 2.41.1's AI Agent (V3 executeBatch) and Basic LLM Chain throw the model's error as
 * the root's own (a NodeOperationError is handed on as it is, a NodeApiError keeps its message and description). A
 * chat that streams (Chat Trigger *Response Mode: Streaming*, the default of new ones) gets n8n-core's error chunk for
 * the failed root, whose content is the error's *description* (workflow-execute handleNodeExecutionError); the error's
 * *message* is what the editor shows of the run (the node's error, its toast, the Logs panel). So the message is one
 * line, the reason and what to do, and the description starts with that same line before the details. A chat answered
 * "when the last node finishes" gets n8n's fixed "Error in workflow" (webhooks/webhook-helpers), whatever the error.
 */
export function forTheChat(err: unknown): unknown {
	if (!(err instanceof GatewayModelError) || (err as { [SPOKEN]?: true })[SPOKEN]) return err;
	const reason = err.message.trim().replace(/[.:;\s]+$/, '');
	const line = err.todo ? `${reason}. ${err.todo.trim()}` : `${reason}.`;
	const out = new GatewayModelError(
		line,
		err.description ? `${line}\n\n${err.description}` : line,
		err.httpCode,
		err.todo,
	);
	(out as { [SPOKEN]?: true })[SPOKEN] = true;
	return out;
}

/** A POST whose outcome is unknown (5xx, timeout, cut, redirect): never resent, the run fails with the reason. */
export function uncertainError(
	c: CallContext,
	out: {
		uncertain: string;
		status?: number;
		body?: unknown;
	},
): GatewayModelError {
	const status = out.status;
	const gatewayMessage =
		status !== undefined && status >= 400
			? extractGatewayError(out.body, status).message
			: out.uncertain;
	const message =
		status !== undefined && status >= 400 ? `${gatewayMessage} (HTTP ${status})` : gatewayMessage;
	const advice = status !== undefined ? adviceFor(status) : '';
	return new GatewayModelError(
		c.transport.redact(`GenGateway: ${message}`),
		c.transport.redact(
			`POST ${c.path}, model ${c.model}. ${advice} The request may have reached the gateway and been billed, so it was not sent again.`
				.replace(/\s+/g, ' ')
				.trim(),
		),
		status,
		"It was not sent again: check the gateway's usage records before you run the workflow again.",
	);
}

export function explainError(c: CallContext, err: unknown, extra = ''): Error {
	if (err instanceof GatewayModelError) return err;
	const redact = (s: string) => c.transport.redact(s);
	if (err instanceof GatewayHttpError) {
		const advice = adviceFor(err.status, err.code);
		return new GatewayModelError(
			redact(`GenGateway: ${err.gatewayMessage} (HTTP ${err.status})`),
			redact(`${err.method} ${err.path}, model ${c.model}. ${advice} ${extra}`.trim()),
			err.status,
			redact(advice || `Read the gateway's message (HTTP ${err.status}).`),
		);
	}
	if (err instanceof StreamError) {
		return new GatewayModelError(
			redact(`GenGateway: ${err.message}`),
			redact(
				`POST ${c.path}, model ${c.model}. The gateway answered, but the answer cannot be used (${err.kind}). It may be billed, so it was not sent again.`,
			),
			undefined,
			"It may be billed, so it was not sent again: check the usage records; if the gateway's streams break, turn off Streaming in the Chat Model's options.",
		);
	}
	if (err instanceof GatewayNetworkError) {
		if (err.cancelled) return err;
		const sent = err.maybeDelivered
			? 'It may have reached the gateway and been billed, so it was not sent again.'
			: 'It never reached the gateway.';
		return new GatewayModelError(
			redact(`GenGateway: ${err.message}`),
			redact(
				`POST ${c.path}, model ${c.model}. Check the credential's Base URL and that n8n can reach it. ${sent}`,
			),
			undefined,
			`Check the credential's Base URL and that n8n can reach it. ${sent}`,
		);
	}
	if (err instanceof SafetyError || err instanceof BodyError)
		return new GatewayModelError(
			redact(`GenGateway: ${err.message}`),
			redact(`POST ${c.path}, model ${c.model}.`),
		);
	const message = err instanceof Error ? err.message : String(err);
	return new GatewayModelError(
		redact(`GenGateway: ${message}`),
		redact(`POST ${c.path}, model ${c.model}.`),
	);
}

/**
 * Request fields beyond the spec's bodies that a gateway may refuse with a 400 (which created nothing) and that a turn
 * can do without: the turn is sent once more without the named one, and later turns of the execution leave it out.
 * Nothing else is ever sent again (tools, max_tokens, response_format, stop and images change what the answer is or
 * what it may cost).
 */
export const OPTIONAL_FIELDS = ['stream_options', 'temperature', 'top_p'] as const;
type OptionalField = (typeof OPTIONAL_FIELDS)[number];

/**
 * The body as it goes now: without the optional fields the execution has learned the gateway refuses (a turn whose
 * body was built before another turn's refusal arrived, or sent again after a 429, leaves them out too).
 */
export function withoutRefused(
	body: Record<string, unknown>,
	refused: ReadonlySet<string>,
): Record<string, unknown> {
	if (!OPTIONAL_FIELDS.some((f) => f in body && refused.has(f))) return body;
	const out = { ...body };
	for (const f of OPTIONAL_FIELDS) if (refused.has(f)) delete out[f];
	return out;
}

/** The optional field a 400's message names (e.g. "Unrecognized request argument supplied: stream_options"), when the body has it. */
export function refusedOptionalField(
	err: unknown,
	body: Record<string, unknown>,
): OptionalField | undefined {
	if (!(err instanceof GatewayHttpError) || err.status !== 400) return undefined;
	const text = `${err.gatewayMessage} ${err.code ?? ''}`;
	return OPTIONAL_FIELDS.find(
		(f) => f in body && new RegExp(`(^|[^A-Za-z0-9_])${f}([^A-Za-z0-9_]|$)`).test(text),
	);
}
