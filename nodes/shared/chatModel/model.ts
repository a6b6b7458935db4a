/**
 * The GenGateway Chat Model's calls, through the package's own transport (GatewayTransport): every guarantee of
 * the package holds for it by construction. One model turn is one paid POST; it is never resent, except after a
 * 429 (a refused request created nothing), which goes again once after its Retry-After (or 1 s without one) when
 * that fits in the request timeout. No redirect is followed, the key goes only to the credential's origin and is
 * redacted from every error, streams are bounded (idle, total time, size) and read by SSE events, the model ID is
 * sent exactly as given. Token usage is the gateway's own `usage` (streams ask for it with
 * `stream_options.include_usage`); an answer without it has no usage, never an estimate.
 */
import type { EventSourceMessage } from 'eventsource-parser';
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { adviceFor, extractGatewayError, GatewayHttpError, GatewayNetworkError, SafetyError } from '../errors';
import type { GatewayTransport, SubmitOutcome } from '../transport/http';
import { BodyError } from '../transport/body';
import { ChatStreamAccumulator, ChatStreamParser, chatFromJson } from '../text/chatStream';
import { ResponsesStreamParser, responsesFromJson } from '../text/responsesStream';
import { StreamError, pumpStream } from '../text/sse';
import type { ChatModelConfig, GenerateResult, Message, MessageContent, StreamChunk, TokenUsage } from './sdk';
import { chatCallsFrom, chatTools, finishReasonOf, responsesCallsFrom, responsesTools, toChatMessages, toolCallContent, toResponsesInput, usageFrom, type RawToolCall, type WireTool } from './wire';

export interface GatewayModelOptions {
	model: string;
	/** ask the gateway for an SSE stream */
	streaming: boolean;
	/** POST /v1/responses instead of /v1/chat/completions */
	useResponsesApi: boolean;
	temperature?: number;
	maxTokens?: number;
	topP?: number;
	/** `json_object`: JSON mode */
	responseFormat?: 'text' | 'json_object';
	/** how long the answer may take to start (non-streaming: the whole answer), also the window of the 429 resend */
	timeoutMs: number;
	/** longest gap in a stream */
	idleMs: number;
}

/** a 429 without Retry-After is sent again no sooner than this (docs/behaviour.md) */
export const MIN_REFUSAL_WAIT_MS = 1000;

/** An error for the agent: the gateway's message first, the HTTP status, then what to do. Redacted. */
export class GatewayModelError extends Error {
	constructor(
		message: string,
		readonly description: string,
		readonly httpCode?: number,
	) {
		super(message);
		this.name = 'GatewayModelError';
	}
}

/**
 * Calls whose outcome is unknown (they reached the gateway and may be billed), per execution (keyed by n8n's
 * execution cancel signal, as the action nodes' Retry On Fail ledger is). n8n's Retry On Fail on the agent runs
 * the agent again, which asks the model the very same thing: that identical call is then not sent a second time.
 */
const spentByExecution = new WeakMap<AbortSignal, Map<string, string>>();

export function spentCallsOf(signal: AbortSignal | undefined): Map<string, string> {
	if (!signal) return new Map();
	let m = spentByExecution.get(signal);
	if (!m) spentByExecution.set(signal, (m = new Map()));
	return m;
}

interface Turn {
	text: string;
	calls: RawToolCall[];
	finish: string | null;
	usage?: TokenUsage;
	id?: string;
}

type Json = Record<string, unknown>;

/** Records tool-call `arguments` a stream sent as objects (the shared parser joins only strings), by call index. */
class ObjectArgsAccumulator extends ChatStreamAccumulator {
	readonly objectArgs = new Map<number, Json>();
	readonly indices = new Set<number>();
	override onEvent(e: EventSourceMessage, atEnd: boolean): string {
		const delta = super.onEvent(e, atEnd);
		if (e.data.includes('"tool_calls"')) {
			try {
				const json = JSON.parse(e.data) as Json;
				const choice = ((json.choices as Json[] | undefined) ?? [])[0] ?? {};
				const calls = ((choice.delta as Json | undefined)?.tool_calls as Json[] | undefined) ?? [];
				calls.forEach((c, pos) => {
					const index = typeof c?.index === 'number' ? c.index : pos;
					this.indices.add(index);
					const args = (c?.function as Json | undefined)?.arguments;
					if (args && typeof args === 'object' && !Array.isArray(args)) this.objectArgs.set(index, { ...(this.objectArgs.get(index) ?? {}), ...(args as Json) });
				});
			} catch {
				// the parser above already judged the event
			}
		}
		return delta;
	}
	/** the call index of the i-th tool call of the result (the result lists them in index order) */
	indexAt(i: number): number | undefined {
		return [...this.indices].sort((a, b) => a - b)[i];
	}
}

export class GatewayChatCore {
	private turns = 0;
	constructor(
		private readonly transport: GatewayTransport,
		readonly opts: GatewayModelOptions,
		private readonly tools: WireTool[] = [],
		private readonly spent: Map<string, string> = spentCallsOf(transport.signal),
	) {}

	withTools(tools: WireTool[]): GatewayChatCore {
		return new GatewayChatCore(this.transport, this.opts, tools, this.spent);
	}

	get path(): string {
		return this.opts.useResponsesApi ? '/v1/responses' : '/v1/chat/completions';
	}

	/** The request body; the model ID exactly as given. */
	body(messages: Message[], config: ChatModelConfig = {}, stream = this.opts.streaming): Json {
		const o = this.opts;
		const temperature = config.temperature ?? o.temperature;
		const topP = config.topP ?? o.topP;
		const maxTokens = config.maxTokens ?? o.maxTokens;
		if (o.useResponsesApi) {
			const b: Json = { model: o.model, input: toResponsesInput(messages), stream };
			if (this.tools.length) b.tools = responsesTools(this.tools);
			if (temperature !== undefined) b.temperature = temperature;
			if (topP !== undefined) b.top_p = topP;
			if (maxTokens !== undefined) b.max_output_tokens = maxTokens;
			if (o.responseFormat === 'json_object') b.text = { format: { type: 'json_object' } };
			return b;
		}
		const b: Json = { model: o.model, messages: toChatMessages(messages), stream };
		if (stream) b.stream_options = { include_usage: true };
		if (this.tools.length) b.tools = chatTools(this.tools);
		if (temperature !== undefined) b.temperature = temperature;
		if (topP !== undefined) b.top_p = topP;
		if (maxTokens !== undefined) b.max_tokens = maxTokens;
		if (config.stopSequences?.length) b.stop = config.stopSequences;
		if (o.responseFormat === 'json_object') b.response_format = { type: 'json_object' };
		return b;
	}

	async generate(messages: Message[], config?: ChatModelConfig): Promise<GenerateResult> {
		const turn = await this.turn(messages, config);
		return this.result(turn);
	}

	/** Text as it arrives (streaming on), then the turn's tool calls whole, one chunk each, then `finish` with the usage. */
	async *stream(messages: Message[], config?: ChatModelConfig): AsyncIterable<StreamChunk> {
		const queue: string[] = [];
		let wake: (() => void) | undefined;
		let done = false;
		let turn: Turn | undefined;
		let failure: unknown;
		const running = this.turn(messages, config, (delta) => {
			queue.push(delta);
			wake?.();
		}).then(
			(t) => (turn = t),
			(err) => (failure = err),
		);
		void running.finally(() => {
			done = true;
			wake?.();
		});
		while (true) {
			if (queue.length) {
				yield { type: 'text-delta', delta: queue.shift()! };
				continue;
			}
			if (done) break;
			await new Promise<void>((r) => (wake = r));
			wake = undefined;
		}
		if (failure) throw failure;
		const result = this.result(turn!);
		if (!this.opts.streaming && turn!.text) yield { type: 'text-delta', delta: turn!.text };
		for (const c of result.message.content) {
			if (c.type === 'tool-call') {
				const call = c as Extract<MessageContent, { type: 'tool-call' }>;
				yield { type: 'tool-call-delta', id: call.toolCallId, name: call.toolName, argumentsDelta: call.input };
			} else if (c.type === 'invalid-tool-call') yield { type: 'content', content: c };
		}
		yield { type: 'finish', finishReason: result.finishReason ?? 'stop', usage: result.usage };
	}

	private result(turn: Turn): GenerateResult {
		const content: MessageContent[] = [];
		if (turn.text) content.push({ type: 'text', text: turn.text });
		const calls = toolCallContent(turn.calls, turn.id ?? String(this.turns));
		content.push(...calls);
		return {
			id: turn.id,
			finishReason: finishReasonOf(turn.finish, calls.length > 0),
			usage: turn.usage,
			message: { role: 'assistant', id: turn.id, content },
		};
	}

	/** One model turn: one paid POST (plus one resend after a 429). */
	private async turn(messages: Message[], config: ChatModelConfig | undefined, onDelta?: (t: string) => void): Promise<Turn> {
		this.turns++;
		const body = this.body(messages, config);
		const fingerprint = createHash('sha256').update(`${this.path}\u0000${JSON.stringify(body)}`).digest('hex');
		const earlier = this.spent.get(fingerprint);
		if (earlier !== undefined) {
			throw new GatewayModelError(
				'GenGateway: not sent again: this same model call reached the gateway earlier in this execution and failed with an unknown outcome',
				this.transport.redact(`Earlier: ${earlier}. It may have been billed, so it is not sent a second time (n8n's Retry On Fail runs the agent again with the same messages). Check the gateway's usage records, then run the workflow again.`),
			);
		}
		const first = Date.now();
		for (let attempt = 1; ; attempt++) {
			try {
				return this.opts.streaming ? await this.sendStream(body, onDelta) : await this.sendPlain(body);
			} catch (err) {
				if (!(err instanceof GatewayHttpError) || err.status !== 429 || attempt > 1) {
					const explained = this.explain(err);
					if (mayBeBilled(err)) this.spent.set(fingerprint, explained.message);
					throw explained;
				}
				const wait = err.retryAfterMs ?? MIN_REFUSAL_WAIT_MS;
				if (Date.now() + wait > first + this.opts.timeoutMs) throw this.explain(err, `It was not sent again: its Retry-After (${Math.ceil(wait / 1000)} s) is longer than the request timeout.`);
				await this.transport.sleep(wait);
			}
		}
	}

	private async sendPlain(body: Json): Promise<Turn> {
		const out = await this.transport.submit(this.path, { json: body }, { timeout: 'text' });
		if (out.kind === 'uncertain') throw this.uncertain(out);
		return this.fromJson(out.body);
	}

	private fromJson(json: Json): Turn {
		if (this.opts.useResponsesApi) {
			const r = responsesFromJson(json);
			return { text: r.text, calls: responsesCallsFrom(json), finish: r.incompleteReason ?? r.status ?? null, usage: usageFrom(r.usage), id: r.id };
		}
		const r = chatFromJson(json);
		return { text: r.content, calls: chatCallsFrom(r.toolCalls, json), finish: r.finishReason, usage: usageFrom(r.usage), id: r.id };
	}

	private async sendStream(body: Json, onDelta?: (t: string) => void): Promise<Turn> {
		const res = await this.transport.postStream(this.path, body, { timeout: 'text', idleTimeoutMs: this.opts.idleMs });
		if ('kind' in res) throw this.uncertain(res);
		if (!/^\s*text\/event-stream/i.test(res.contentType)) {
			// the gateway ignored `stream: true` and answered with one JSON body (bounded by the transport)
			const text = await readText(res.body);
			let json: unknown;
			try {
				// the text is redacted; what parsing decodes (JSON escapes) is redacted again
				json = this.transport.redactor.parsed(text, JSON.parse(text));
			} catch {
				throw new StreamError(`asked for a stream; HTTP ${res.status} answered ${res.contentType || 'no content type'} that is neither an event stream nor JSON`, 'unreadable');
			}
			const turn = this.fromJson(json as Json);
			if (turn.text) onDelta?.(turn.text);
			return turn;
		}
		if (this.opts.useResponsesApi) {
			const parser = new ResponsesStreamParser(onDelta);
			await pumpStream(res.body, parser, { idleMs: this.opts.idleMs, signal: this.transport.signal });
			const r = parser.result;
			return { text: r.text, calls: responsesCallsFrom(r.response), finish: r.incompleteReason ?? r.status ?? null, usage: usageFrom(r.usage), id: r.id };
		}
		const acc = new ObjectArgsAccumulator();
		const parser = new ChatStreamParser(onDelta, acc);
		await pumpStream(res.body, parser, { idleMs: this.opts.idleMs, signal: this.transport.signal });
		const r = parser.result;
		const calls: RawToolCall[] = r.toolCalls.map((c, i) => {
			const idx = acc.objectArgs.size ? acc.indexAt(i) : undefined;
			const obj = idx !== undefined && !c.function.arguments ? acc.objectArgs.get(idx) : undefined;
			return { id: c.id, name: c.function.name, arguments: obj ?? c.function.arguments };
		});
		return { text: r.content, calls, finish: r.finishReason, usage: usageFrom(r.usage), id: r.id };
	}

	/** A POST whose outcome is unknown (5xx, timeout, cut, redirect): never resent, the run fails with the reason. */
	private uncertain(out: Extract<SubmitOutcome, { kind: 'uncertain' }>): GatewayModelError {
		const status = out.status;
		const gatewayMessage = status !== undefined && status >= 400 ? extractGatewayError(out.body, status).message : out.reason;
		const message = status !== undefined && status >= 400 ? `${gatewayMessage} (HTTP ${status})` : gatewayMessage;
		const advice = status !== undefined ? adviceFor(status) : '';
		return new GatewayModelError(
			this.transport.redact(`GenGateway: ${message}`),
			this.transport.redact(`POST ${this.path}, model ${this.opts.model}. ${advice} The request may have reached the gateway and been billed, so it was not sent again.`.replace(/\s+/g, ' ').trim()),
			status,
		);
	}

	private explain(err: unknown, extra = ''): Error {
		if (err instanceof GatewayModelError) return err;
		const redact = (s: string) => this.transport.redact(s);
		if (err instanceof GatewayHttpError) {
			const advice = adviceFor(err.status, err.code);
			return new GatewayModelError(redact(`GenGateway: ${err.gatewayMessage} (HTTP ${err.status})`), redact(`${err.method} ${err.path}, model ${this.opts.model}. ${advice} ${extra}`.trim()), err.status);
		}
		if (err instanceof StreamError) {
			return new GatewayModelError(redact(`GenGateway: ${err.message}`), redact(`POST ${this.path}, model ${this.opts.model}. The gateway answered, but the answer cannot be used (${err.kind}). It may be billed, so it was not sent again.`));
		}
		if (err instanceof GatewayNetworkError) {
			if (err.cancelled) return err;
			const sent = err.maybeDelivered ? 'It may have reached the gateway and been billed, so it was not sent again.' : 'It never reached the gateway.';
			return new GatewayModelError(redact(`GenGateway: ${err.message}`), redact(`POST ${this.path}, model ${this.opts.model}. Check the credential's Base URL and that n8n can reach it. ${sent}`));
		}
		if (err instanceof SafetyError || err instanceof BodyError) return new GatewayModelError(redact(`GenGateway: ${err.message}`), redact(`POST ${this.path}, model ${this.opts.model}.`));
		const message = err instanceof Error ? err.message : String(err);
		return new GatewayModelError(redact(`GenGateway: ${message}`), redact(`POST ${this.path}, model ${this.opts.model}.`));
	}
}

/** The call reached the gateway and may have been billed (not a definite rejection, not a call that never left). */
function mayBeBilled(err: unknown): boolean {
	if (err instanceof GatewayHttpError || err instanceof SafetyError) return false;
	if (err instanceof GatewayNetworkError) return err.maybeDelivered && !err.cancelled;
	return true;
}

/** A whole (bounded) body as UTF-8. */
async function readText(body: Readable): Promise<string> {
	const chunks: Buffer[] = [];
	for await (const c of body) chunks.push(typeof c === 'string' ? Buffer.from(c) : (c as Buffer));
	return Buffer.concat(chunks).toString('utf8');
}
