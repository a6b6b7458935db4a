/**
 * The GenGateway Chat Model's calls: what only an SDK model has (messages in and out, tools, a stream of chunks, the
 * supply), on the package's own pieces. A model turn is one paid POST through the one text call
 * (../../shared/text/exchange.ts, shared with the Chat and Responses nodes), the one paid send (spend scope, the one
 * 429 rule: ../../shared/runners/send.ts), the one ledger (./supply.ts: a call known by its place and its question)
 * and the one money record and cap (./money.ts on ../../shared/money/). A JSON Schema repair is a turn of its own: its
 * own send, place and cost. No redirect is followed, the key goes only to the credential's origin, streams are
 * bounded and read by SSE events, the model ID is sent exactly as given; token usage is the gateway's own `usage`.
 */
import type { LedgerEntry } from '../../shared/runners/ledger';
import { sendPaid, SpentError } from '../../shared/runners/send';
import { exchangeText } from '../../shared/text/exchange';
import { ImagePartError } from '../../shared/text/imageParts';
import {
	checkAgainstParser,
	checkAgainstSchema,
	parserMismatch,
	PARSER_TOOL,
	repairFailure,
	repairPrompt,
} from '../../shared/text/jsonSchema';
import type { GatewayTransport } from '../../shared/transport';
import { redactorFor } from '../../shared/transport/redact';
import {
	explainError,
	GatewayModelError,
	refusedOptionalField,
	withoutRefused,
	uncertainError,
	type CallContext,
} from './errors';
import { accountTurn, priceTurn } from './money';
import { ReasoningStore } from './reasoning';
import { requestBody, type GatewayModelOptions } from './request';
import { resultOf, type ResultContext, type TurnSummary } from './result';
import type { ChatModelConfig, GenerateResult, Message, MessageContent, StreamChunk } from './sdk';
import { TurnSupply } from './supply';
import { turnOf, type Turn } from './turn';
import type { WireTool } from './wire';

export { GatewayModelError, TurnSupply, type GatewayModelOptions, type TurnSummary };

type Json = Record<string, unknown>;

export class GatewayChatCore {
	private turns = 0;
	private readonly supply: TurnSupply;
	/** the reasoning of this execution's tool-call turns, by tool call ID */
	readonly reasoning: ReasoningStore;
	/** what the last turns showed, oldest first, for the run data (taken by the SDK adapter's tracing as each call ends) */
	readonly summaries: TurnSummary[] = [];
	constructor(
		private readonly transport: GatewayTransport,
		readonly opts: GatewayModelOptions,
		private readonly tools: WireTool[] = [],
		supply?: TurnSupply,
		reasoning?: ReasoningStore,
	) {
		this.supply =
			supply ??
			new TurnSupply(
				transport,
				undefined as never,
				{ node: 'chat-model', run: 0 },
				[{ allowUnpriced: false, group: {} }],
				undefined,
			);
		this.reasoning =
			reasoning ?? new ReasoningStore(transport.signal, opts.model, transport.credentialIdentity);
	}

	withTools(tools: WireTool[]): GatewayChatCore {
		return new GatewayChatCore(this.transport, this.opts, tools, this.supply, this.reasoning);
	}

	get path(): string {
		return this.opts.useResponsesApi ? '/v1/responses' : '/v1/chat/completions';
	}

	/** Whether a text holds the credential's key in any form the redactor knows: an image address that does is never sent. */
	private readonly containsSecret = (text: string): boolean => this.transport.redact(text) !== text;

	private get call(): CallContext {
		return { transport: this.transport, path: this.path, model: this.opts.model };
	}

	private get resultContext(): ResultContext {
		return {
			leaveOutReasoning: this.opts.leaveOutReasoning,
			reasoning: this.reasoning,
			transport: this.transport,
			summaries: this.summaries,
			ordinal: this.turns,
		};
	}

	/** The request body; the model ID exactly as given (./request.ts). */
	body(messages: Message[], config: ChatModelConfig = {}, stream = this.opts.streaming): Json {
		return requestBody(this.opts, this.tools, this.supply.refused, messages, config, stream, {
			containsSecret: this.containsSecret,
			reasoning: this.reasoning,
		});
	}

	async generate(messages: Message[], config?: ChatModelConfig): Promise<GenerateResult> {
		const turn = await this.answer(messages, config);
		return resultOf(this.resultContext, turn);
	}

	/** The turn, and with a JSON Schema its check: an answer that does not validate gets one repair request, never more. */
	private async answer(
		messages: Message[],
		config: ChatModelConfig | undefined,
		onDelta?: (t: string) => void,
	): Promise<Turn> {
		const schema = this.opts.responseFormat === 'json_schema' ? this.opts.jsonSchema : undefined;
		// without a schema of its own, the agent's Structured Output Parser (its tool) says what a final answer must fit
		const parser = schema ? undefined : this.tools.find((t) => t.name === PARSER_TOOL);
		// with a schema the text is held back until it validated: nothing that fails it reaches the agent or the chat
		let delivered = false;
		const live = (t: string) => {
			delivered = true;
			onDelta?.(t);
		};
		const first = await this.turn(messages, config, schema || parser ? undefined : live);
		// a text answer is the agent's final one: one the parser cannot read fails here, saying what to do
		if (parser && !first.calls.length) this.checkParserFit(first.text, parser.parameters);
		if (!schema || first.calls.length) {
			// a plain answer (streaming off) is handed on whole
			if (!delivered && first.text) onDelta?.(first.text);
			return first;
		}
		const check = checkAgainstSchema(first.text, schema.schema);
		if (check.ok) {
			if (first.text) onDelta?.(first.text);
			return first;
		}
		const second = await this.repair(messages, config, first, check.errors, schema);
		if (second.text) onDelta?.(second.text);
		return { ...second, repairOf: { errors: check.errors, cost: first.cost, usage: first.usage } };
	}

	/** An answer the agent's Structured Output Parser cannot read is refused, saying where its schema goes. */
	private checkParserFit(text: string, parameters: Parameters<typeof checkAgainstParser>[1]): void {
		const fit = checkAgainstParser(text, parameters);
		if (fit.ok) return;
		const words = parserMismatch(fit.errors);
		const redact = (t: string) => this.transport.redact(t);
		throw new GatewayModelError(
			redact(`GenGateway: ${words.message}`),
			redact(`Model ${this.opts.model}. ${words.description}`),
			undefined,
			"Paste the Structured Output Parser's schema into the Chat Model's Options → Response Format → JSON Schema.",
		);
	}

	/** The one repair request (its own paid turn, at its own place): its answer validates, or the turn fails saying why. */
	private async repair(
		messages: Message[],
		config: ChatModelConfig | undefined,
		first: Turn,
		errors: string[],
		schema: NonNullable<GatewayModelOptions['jsonSchema']>,
	): Promise<Turn> {
		const repair: Message[] = [
			...messages,
			{ role: 'assistant', content: [{ type: 'text', text: first.text }] },
			{ role: 'user', content: [{ type: 'text', text: repairPrompt(errors) }] },
		];
		const second = await this.turn(repair, config);
		const again = second.calls.length
			? { ok: false as const, errors: ['the repair answer called tools instead of answering'] }
			: checkAgainstSchema(second.text, schema.schema);
		if (again.ok) return second;
		const words = repairFailure(schema.name, errors, again.errors);
		const redact = (t: string) => this.transport.redact(t);
		throw new GatewayModelError(
			redact(`GenGateway: the model's answer ${words.message}`),
			redact(`Model ${this.opts.model}. ${words.description}`),
			undefined,
			'Make the schema simpler, describe its fields in the prompt, or use another model; both calls may be billed.',
		);
	}

	/** Text as it arrives (streaming on), then the turn's tool calls whole, one chunk each, then `finish` with the usage. */
	async *stream(messages: Message[], config?: ChatModelConfig): AsyncIterable<StreamChunk> {
		const queue: string[] = [];
		// text deltas go to the agent (and n8n's chat) redacted as a stream: a key split across deltas is held back until whole
		const redacted = redactorFor(this.transport.redactionSecrets).textStream();
		let wake: (() => void) | undefined;
		let done = false;
		let turn: Turn | undefined;
		let failure: unknown;
		const running = this.answer(messages, config, (delta) => {
			const out = redacted.write(delta);
			if (out) queue.push(out);
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
		const rest = redacted.end();
		if (rest) yield { type: 'text-delta', delta: rest };
		const result = resultOf(this.resultContext, turn!);
		for (const c of result.message.content) {
			if (c.type === 'reasoning') yield { type: 'content', content: c };
			else if (c.type === 'tool-call') {
				const call = c as Extract<MessageContent, { type: 'tool-call' }>;
				yield {
					type: 'tool-call-delta',
					id: call.toolCallId,
					name: call.toolName,
					argumentsDelta: call.input,
				};
			} else if (c.type === 'invalid-tool-call') yield { type: 'content', content: c };
		}
		yield { type: 'finish', finishReason: result.finishReason ?? 'stop', usage: result.usage };
	}

	/** One model turn: one paid POST at its place (a 429, which created nothing, may go again within the timeout). */
	private async turn(
		messages: Message[],
		config: ChatModelConfig | undefined,
		onDelta?: (t: string) => void,
	): Promise<Turn> {
		this.turns++;
		const s = this.supply;
		const { place, earlier } = s.claim(messages, this.opts.model);
		const callsNamed = `${place.question?.slice(0, 12)}_${place.item}`;
		if (earlier) return { ...this.earlierAnswer(earlier, onDelta), callsNamed };
		const body = this.bodyOrRefuse(messages, config);
		const priced = await priceTurn(
			s,
			this.opts.model,
			config?.maxTokens ?? this.opts.maxTokens,
			body,
			place,
		);
		let entry: LedgerEntry<Turn>;
		try {
			entry = { sent: await this.sendOnce(body, onDelta) };
		} catch (err) {
			if (!(err instanceof SpentError)) {
				// nothing was created: the turn's reservation goes, and the next capped turn may go
				if (priced.reserved) s.spend.record([], priced.prices.display, [priced.reserved]);
				priced.release?.();
				throw err;
			}
			entry = { lost: explainError(this.call, err.cause) };
		}
		s.remember(place, entry);
		try {
			const turn = accountTurn(s, this.opts.model, place, priced, entry);
			if ('lost' in entry) throw entry.lost;
			return { ...turn!, callsNamed };
		} finally {
			priced.release?.();
		}
	}

	/**
	 * A re-run (Retry On Fail on the root node) of a question this place already asked: the answer it got, never a
	 * second payment; one whose outcome is unknown is refused with the reason.
	 */
	private earlierAnswer(earlier: LedgerEntry<Turn>, onDelta?: (t: string) => void): Turn {
		if ('sent' in earlier) {
			if (earlier.sent.text) onDelta?.(earlier.sent.text);
			return earlier.sent;
		}
		throw new GatewayModelError(
			'GenGateway: not sent again: this model call (the same conversation, asked by ' +
				'the same run of the node that asked) reached the gateway earlier in this ' +
				'execution and its outcome is unknown',
			this.transport.redact(
				`Earlier: ${earlier.lost instanceof Error ? earlier.lost.message : String(earlier.lost)}. ` +
					`It may have been billed, so it is not sent a second time (n8n's Retry On Fail ` +
					`ran the node again). Check the gateway's usage records, then run the workflow again.`,
			),
			undefined,
			"Check the gateway's usage records, then run the workflow again.",
		);
	}

	/** The turn's request body; an image part the one image rule refuses stops the turn before anything is sent. */
	private bodyOrRefuse(messages: Message[], config: ChatModelConfig | undefined): Json {
		try {
			return this.body(messages, config);
		} catch (err) {
			if (err instanceof ImagePartError)
				throw new GatewayModelError(
					this.transport.redact(`GenGateway: ${err.message}`),
					`Nothing was sent (model ${this.opts.model}). Send PNG, JPEG, WebP or GIF ` +
						`images of at most 20 MiB each (48 MiB together), or public http(s) addresses ` +
						`without user:password@ or a key.`,
					undefined,
					'Send PNG, JPEG, WebP or GIF images of at most 20 MiB each, or public http(s) addresses; nothing was sent.',
				);
			throw err;
		}
	}

	/**
	 * The turn's POST through the one paid send (the one 429 rule): a 400 that names an optional field created nothing,
	 * so the turn goes once more without it, and later turns leave it out. SpentError passes on untouched.
	 */
	private async sendOnce(body: Json, onDelta?: (t: string) => void): Promise<Turn> {
		const s = this.supply;
		let gaveUp = '';
		const send = (b: Json) =>
			sendPaid(() => this.send(withoutRefused(b, s.refused), onDelta), {
				refusalWindowMs: this.opts.timeoutMs,
				sleep: (ms) => this.transport.sleep(ms),
				onGiveUp: (_err, why) => (gaveUp = why),
			});
		return send(body).catch(async (err: unknown) => {
			if (err instanceof SpentError) throw err;
			const field = refusedOptionalField(err, body);
			if (!field) throw explainError(this.call, err, gaveUp);
			s.refused.add(field);
			const { [field]: _dropped, ...without } = body;
			return send(without).catch((again: unknown) => {
				if (again instanceof SpentError) throw again;
				throw explainError(
					this.call,
					again,
					`It was sent once without ${field} after the gateway refused that field (${(err as { gatewayMessage?: string }).gatewayMessage}).`,
				);
			});
		});
	}

	/** The one text call (../../shared/text/exchange.ts), its answer as a turn; an unusable answer is thrown. */
	private async send(body: Json, onDelta?: (t: string) => void): Promise<Turn> {
		const x = await exchangeText(
			this.transport,
			this.opts.useResponsesApi ? 'responses' : 'chat',
			body,
			{
				idleMs: this.opts.idleMs,
				onDelta,
			},
		);
		if ('uncertain' in x) throw uncertainError(this.call, x);
		if ('failed' in x) throw x.failed;
		const turn = turnOf(x.answer);
		// a whole answer to a streamed request is handed on at once
		if (body.stream === true && !x.answer.streamed && turn.text) onDelta?.(turn.text);
		return turn;
	}
}
