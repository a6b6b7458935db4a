/**
 * The GenGateway Chat Model's calls, through the package's own pieces: the transport (GatewayTransport), the one
 * paid send (../runners/send.ts: spend scope, the one 429 rule), the one ledger (../runners/ledger.ts) and the one
 * money record and cap (../money/). One model turn is one paid POST, known by its place — the Chat Model, the root
 * node (AI Agent, chain) and its run, the ordinal of the call in that run — and never by its body: a re-run agent
 * (Retry On Fail) gets the answer a turn already had, and a turn whose outcome is unknown is never sent again,
 * whatever its messages evaluate to this time; one call's failure never blocks another. Max Expected Spend is checked
 * before every turn against what the execution has spent (every GenGateway node and turn) plus what the turn can
 * cost; each turn's cost goes into the execution's record as it happens. No redirect is followed, the key goes only
 * to the credential's origin, streams are bounded (idle, total time, size) and read by SSE events, the model ID is
 * sent exactly as given. Token usage is the gateway's own `usage` (streams ask for it with
 * `stream_options.include_usage`); an answer without it has no usage, never an estimate.
 */
import { createHash } from 'node:crypto';
import type { Exit } from '../../shared/exit';
import {
	capRefusal,
	costEntry,
	costJsonOf,
	money,
	pricesOf,
	type Prices,
} from '../../shared/money/cap';
import { capBound, quote, type TokenBound } from '../../shared/money/cost';
import { ImagePartError } from '../../shared/text/imageParts';
import { resolveCap, type MoneyOptions } from '../../shared/money/options';
import { callSpendKey, ExecutionSpend } from '../../shared/money/record';
import {
	bookOf,
	placeKey,
	takeGate,
	type LedgerEntry,
	type Place,
} from '../../shared/runners/ledger';
import { redactorFor } from '../../shared/transport/redact';
import { sendPaid, SpentError } from '../../shared/runners/send';
import { tokenCountOf } from '../../shared/money/cost';
import {
	adviceFor,
	extractGatewayError,
	GatewayHttpError,
	GatewayNetworkError,
	SafetyError,
} from '../../shared/errors';
import type { GatewayTransport } from '../../shared/transport';
import { BodyError } from '../../shared/transport/body';
import { exchangeText, type TextAnswer } from '../../shared/text/exchange';
import { StreamError } from '../../shared/text/sse';
import type {
	ChatModelConfig,
	GenerateResult,
	Message,
	MessageContent,
	StreamChunk,
	TokenUsage,
} from './sdk';
import {
	chatCallsFrom,
	chatTools,
	finishReasonOf,
	responsesCallsFrom,
	responsesReasoningFrom,
	responsesTools,
	toChatMessages,
	toolCallContent,
	toResponsesInput,
	usageFrom,
	type RawToolCall,
	type ReasoningField,
	type WireTool,
} from './wire';
import { ReasoningStore } from './reasoning';
import {
	chatResponseFormat,
	checkAgainstSchema,
	repairPrompt,
	responsesTextFormat,
	type JsonSchemaFormat,
} from '../../shared/text/jsonSchema';

export interface GatewayModelOptions {
	model: string;
	/** ask the gateway for an SSE stream */
	streaming: boolean;
	/** POST /v1/responses instead of /v1/chat/completions */
	useResponsesApi: boolean;
	temperature?: number;
	maxTokens?: number;
	topP?: number;
	/** `json_object`: JSON mode; `json_schema`: the answer must validate against `jsonSchema` (one repair request at most) */
	responseFormat?: 'text' | 'json_object' | 'json_schema';
	jsonSchema?: JsonSchemaFormat;
	/** leave the model's reasoning out of the message the agent keeps and of the run data (it is still sent back where the gateway requires it) */
	leaveOutReasoning?: boolean;
	/** how long the answer may take to start (non-streaming: the whole answer), also the window of the 429 resend */
	timeoutMs: number;
	/** longest gap in a stream */
	idleMs: number;
}

export { MIN_REFUSAL_WAIT_MS } from '../../shared/runners/send';

/** An image part given by address counts as this many prompt tokens in a turn's bound (its bytes say nothing of its pixels). */
export const IMAGE_TOKEN_BOUND = 16_384;

/**
 * Request fields beyond the spec's bodies that a gateway may refuse with a 400 (which created nothing) and that a turn
 * can do without: the turn is sent once more without the named one, and later turns of the execution leave it out.
 * Nothing else is ever sent again (tools, max_tokens, response_format, stop and images change what the answer is or
 * what it may cost).
 */
export const OPTIONAL_FIELDS = ['stream_options', 'temperature', 'top_p'] as const;
type OptionalField = (typeof OPTIONAL_FIELDS)[number];

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

/** What one model turn showed, for the sub-node's run data (n8n's tracing keeps only the text of a generation). */
export interface TurnSummary {
	text: string;
	tool_calls?: Array<{ id?: string; name: string; args: string }>;
	reasoning?: string;
	cost?: Record<string, unknown>;
	usage?: TokenUsage;
	/** a JSON Schema answer that needed the repair request: what was wrong with the first, and what that call cost */
	repaired?: { errors: string[]; cost?: Record<string, unknown> };
}

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

interface Turn {
	text: string;
	calls: RawToolCall[];
	finish: string | null;
	usage?: TokenUsage;
	id?: string;
	/** the gateway's usage as sent (for the turn's cost) */
	rawUsage?: unknown;
	/** the turn's cost, as the action nodes' items give it */
	cost?: Record<string, unknown>;
	/** the thinking model's reasoning, and the field it came in (chat) */
	reasoning?: string;
	reasoningField?: ReasoningField;
	/** the first answer of a JSON Schema turn that did not validate (the turn is then the repair request's) */
	repairOf?: { errors: string[]; cost?: Record<string, unknown>; usage?: TokenUsage };
}

/**
 * What the Chat Model's turns share within one supply (one root run, or one item of a chain): where they stand, the
 * execution's book and money record, the money options, and the try of the root node they belong to.
 *
 * A call is known by its place and its question. The question is the conversation the root hands the model, less its
 * system messages (roles, texts, images, tool calls and results), to one model on one account (the credential): a system prompt with `{{ $now }}` in it replays on a
 * re-run, a different user text or tool result is a new call. Within one try of the root node (n8n's Retry On Fail
 * runs the root again: a new try), the n-th call of a question takes the n-th answer that question got at that place;
 * a question asked more often than before is a new call. So two items that ask the same thing (n8n's chains ask for
 * their model with item 0 for every item) each get their own call, and a re-run gets back what each call had.
 */
export class TurnSupply {
	readonly spend: ExecutionSpend;
	private prices?: Promise<Prices>;
	/** counts of a question's calls in this try when the execution keeps no book */
	private readonly ownClaims = new Map<string, number>();

	constructor(
		readonly transport: GatewayTransport,
		readonly exit: Exit,
		readonly where: Omit<Place, 'item'>,
		/** the money options of each item the root may run (the strictest cap holds) */
		readonly money: MoneyOptions[],
		ctx: unknown,
		/** the root node's try (n8n's runNode: one per Retry On Fail attempt); the supply itself when n8n shows none */
		readonly attempt: object = {},
	) {
		this.spend = new ExecutionSpend(ctx as never);
	}

	/** optional fields a gateway refused with a 400 in this execution: later turns leave them out */
	get refused(): Set<string> {
		const book = this.book;
		return book ? (book.refusedFields ??= new Set()) : (this.ownRefused ??= new Set());
	}
	private ownRefused?: Set<string>;

	pricesOnce(): Promise<Prices> {
		return (this.prices ??= pricesOf(this.transport));
	}

	private get book() {
		return bookOf(this.transport.signal);
	}

	/** The place of this call of a question in this try, and what that place got in an earlier try. */
	claim(messages: Message[], model: string): { place: Place; earlier?: LedgerEntry<Turn> } {
		// the same conversation to another model or on another account is another question
		const question = questionOf(messages, `${this.transport.credentialIdentity}\n${model}`);
		const key = placeKey({ ...this.where, item: 0, question });
		const book = this.book;
		let counts = this.ownClaims;
		if (book) {
			let byTry = book.claims.get(this.attempt);
			if (!byTry) book.claims.set(this.attempt, (byTry = new Map()));
			counts = byTry;
		}
		const n = counts.get(key) ?? 0;
		counts.set(key, n + 1);
		const place: Place = { ...this.where, item: n, question };
		return { place, earlier: book?.calls.get(placeKey(place)) as LedgerEntry<Turn> | undefined };
	}

	remember(place: Place, entry: LedgerEntry<Turn>): void {
		this.book?.calls.set(placeKey(place), entry);
	}
}

/** A turn priced before it is sent: its quote, the prices, its reservation in the record, the gate it holds. */
interface PricedTurn {
	q?: ReturnType<typeof quote>;
	prices: Prices;
	/** the record's key holding the turn's bound while it is in flight */
	reserved?: string;
	/** lets the next capped turn without a bound go */
	release?: () => void;
}

/**
 * A call's question: its conversation without the system messages (which expressions such as `{{ $now }}` may change
 * on every try), as a digest. Reasoning a thinking model sent is left out (the agent may keep it or not).
 */
function questionOf(messages: Message[], to: string): string {
	const asked = messages
		.filter((m) => m.role !== 'system')
		.map((m) => [m.role, m.content.filter((c) => c.type !== 'reasoning')]);
	return createHash('sha256')
		.update(JSON.stringify([to, asked]))
		.digest('hex')
		.slice(0, 24);
}

/** Prompt tokens a request can use at most: its bytes (a token is at least one byte), and each image address at IMAGE_TOKEN_BOUND. */
function promptBound(body: Json): { tokens: number; images: number } {
	const text = JSON.stringify(body);
	const images = (text.match(/"(?:image_url|input_image)"/g) ?? []).length;
	return { tokens: Buffer.byteLength(text, 'utf8') + images * IMAGE_TOKEN_BOUND, images };
}

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

	/** The request body; the model ID exactly as given. */
	body(messages: Message[], config: ChatModelConfig = {}, stream = this.opts.streaming): Json {
		const o = this.opts;
		const temperature = config.temperature ?? o.temperature;
		const topP = config.topP ?? o.topP;
		const maxTokens = config.maxTokens ?? o.maxTokens;
		const refused = this.supply.refused;
		if (o.useResponsesApi) {
			const b: Json = { model: o.model, input: toResponsesInput(messages), stream };
			if (this.tools.length) b.tools = responsesTools(this.tools);
			if (temperature !== undefined && !refused.has('temperature')) b.temperature = temperature;
			if (topP !== undefined && !refused.has('top_p')) b.top_p = topP;
			if (maxTokens !== undefined) b.max_output_tokens = maxTokens;
			if (o.responseFormat === 'json_object') b.text = { format: { type: 'json_object' } };
			if (o.responseFormat === 'json_schema' && o.jsonSchema)
				b.text = responsesTextFormat(o.jsonSchema);
			return b;
		}
		const b: Json = { model: o.model, messages: toChatMessages(messages, this.reasoning), stream };
		if (stream && !refused.has('stream_options')) b.stream_options = { include_usage: true };
		if (this.tools.length) b.tools = chatTools(this.tools);
		if (temperature !== undefined && !refused.has('temperature')) b.temperature = temperature;
		if (topP !== undefined && !refused.has('top_p')) b.top_p = topP;
		if (maxTokens !== undefined) b.max_tokens = maxTokens;
		if (config.stopSequences?.length) b.stop = config.stopSequences;
		if (o.responseFormat === 'json_object') b.response_format = { type: 'json_object' };
		if (o.responseFormat === 'json_schema' && o.jsonSchema)
			b.response_format = chatResponseFormat(o.jsonSchema);
		return b;
	}

	async generate(messages: Message[], config?: ChatModelConfig): Promise<GenerateResult> {
		const turn = await this.answer(messages, config);
		return this.result(turn);
	}

	/** The turn, and with a JSON Schema its check: an answer that does not validate gets one repair request, never more. */
	private async answer(
		messages: Message[],
		config: ChatModelConfig | undefined,
		onDelta?: (t: string) => void,
	): Promise<Turn> {
		const schema = this.opts.responseFormat === 'json_schema' ? this.opts.jsonSchema : undefined;
		// with a schema the text is held back until it validated: nothing that fails it reaches the agent or the chat
		let delivered = false;
		const live = (t: string) => {
			delivered = true;
			onDelta?.(t);
		};
		const first = await this.turn(messages, config, schema ? undefined : live);
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
		const repair: Message[] = [
			...messages,
			{ role: 'assistant', content: [{ type: 'text', text: first.text }] },
			{ role: 'user', content: [{ type: 'text', text: repairPrompt(check.errors) }] },
		];
		const second = await this.turn(repair, config);
		const again = second.calls.length
			? { ok: false as const, errors: ['the repair answer called tools instead of answering'] }
			: checkAgainstSchema(second.text, schema.schema);
		if (!again.ok) {
			throw new GatewayModelError(
				this.transport.redact(
					`GenGateway: the model's answer does not match the JSON Schema "${schema.name}", also after one repair request: ${again.errors.join('; ')}`,
				),
				this.transport.redact(
					`Model ${this.opts.model}. The first answer failed with: ${check.errors.join('; ')}. Both calls were sent once each and may be billed; no further request is made. Make the schema simpler, describe the fields in the prompt, or use another model.`,
				),
			);
		}
		if (second.text) onDelta?.(second.text);
		return { ...second, repairOf: { errors: check.errors, cost: first.cost, usage: first.usage } };
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
		const result = this.result(turn!);
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

	private result(turn: Turn): GenerateResult {
		const content: MessageContent[] = [];
		const show = turn.reasoning !== undefined && !this.opts.leaveOutReasoning;
		if (show) content.push({ type: 'reasoning', text: turn.reasoning! });
		if (turn.text) content.push({ type: 'text', text: turn.text });
		const calls = toolCallContent(turn.calls, turn.id ?? String(this.turns));
		content.push(...calls);
		if (turn.reasoningField) {
			// kept for the execution by the tool calls it led to: the gateway wants it back with them
			const ids = calls.map((c) => (c as { toolCallId?: string }).toolCallId ?? '');
			if (ids.length) this.reasoning.keep(ids, turn.reasoning ?? '', turn.reasoningField);
			else this.reasoning.sawField(turn.reasoningField);
		}
		const usage =
			turn.repairOf?.usage && turn.usage ? addUsage(turn.usage, turn.repairOf.usage) : turn.usage;
		const redactor = redactorFor(this.transport.redactionSecrets);
		const summary: TurnSummary = {
			text: turn.text,
			...(calls.length
				? {
						tool_calls: calls.map((c) => ({
							id: (c as { toolCallId?: string }).toolCallId,
							name:
								(c as { toolName?: string; name?: string }).toolName ??
								(c as { name?: string }).name ??
								'',
							args:
								(c as { input?: string; args?: string }).input ??
								(c as { args?: string }).args ??
								'',
						})),
					}
				: {}),
			...(show ? { reasoning: turn.reasoning } : {}),
			...(turn.cost ? { cost: turn.cost } : {}),
			...(usage ? { usage } : {}),
			...(turn.repairOf
				? {
						repaired: {
							errors: turn.repairOf.errors,
							...(turn.repairOf.cost ? { cost: turn.repairOf.cost } : {}),
						},
					}
				: {}),
		};
		this.summaries.push(redactor.value(summary));
		if (this.summaries.length > 64) this.summaries.shift();
		// everything the model hands the agent leaves redacted (a key split across stream deltas is whole here)
		return redactor.value({
			id: turn.id,
			finishReason: finishReasonOf(turn.finish, calls.length > 0),
			usage,
			message: { role: 'assistant', id: turn.id, content },
			...(turn.cost
				? {
						providerMetadata: {
							gengateway_cost: turn.cost,
							...(turn.repairOf ? { gengateway_repair: summary.repaired } : {}),
						},
					}
				: {}),
		} as GenerateResult);
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
		if (earlier && 'sent' in earlier) {
			// a re-run (Retry On Fail on the root node): the answer this question already got here, never a second payment
			if (earlier.sent.text) onDelta?.(earlier.sent.text);
			return earlier.sent;
		}
		if (earlier) {
			throw new GatewayModelError(
				'GenGateway: not sent again: this model call (the same conversation, asked by the same run of the node that asked) reached the gateway earlier in this execution and its outcome is unknown',
				this.transport.redact(
					`Earlier: ${earlier.lost instanceof Error ? earlier.lost.message : String(earlier.lost)}. It may have been billed, so it is not sent a second time (n8n's Retry On Fail ran the node again). Check the gateway's usage records, then run the workflow again.`,
				),
			);
		}
		let body: Json;
		try {
			body = this.body(messages, config);
		} catch (err) {
			if (err instanceof ImagePartError)
				throw new GatewayModelError(
					this.transport.redact(`GenGateway: ${err.message}`),
					`Nothing was sent (model ${this.opts.model}). Send smaller images, fewer of them, or images by http(s) address.`,
				);
			throw err;
		}
		const priced = await this.priceTurn(body, config, place);
		let entry: LedgerEntry<Turn>;
		try {
			let gaveUp = '';
			const send = (b: Json) =>
				sendPaid(() => this.send(b, onDelta), {
					refusalWindowMs: this.opts.timeoutMs,
					sleep: (ms) => this.transport.sleep(ms),
					onGiveUp: (_err, why) => (gaveUp = why),
				});
			const sent = await send(body).catch(async (err: unknown) => {
				if (err instanceof SpentError) throw err;
				// a 400 that names an optional field created nothing: the turn goes once more without it, and later turns leave it out
				const field = refusedOptionalField(err, body);
				if (!field) throw this.explain(err, gaveUp);
				s.refused.add(field);
				const { [field]: _dropped, ...without } = body;
				return send(without).catch((again: unknown) => {
					if (again instanceof SpentError) throw again;
					throw this.explain(
						again,
						`It was sent once without ${field} after the gateway refused that field (${(err as GatewayHttpError).gatewayMessage}).`,
					);
				});
			});
			entry = { sent: sent };
		} catch (err) {
			if (!(err instanceof SpentError)) {
				// nothing was created: the turn's reservation goes, and the next capped turn may go
				if (priced.reserved) s.spend.record([], priced.prices.display, [priced.reserved]);
				priced.release?.();
				throw err;
			}
			entry = { lost: this.explain(err.cause) };
		}
		s.remember(place, entry);
		try {
			const turn = this.account(place, priced, entry);
			if ('lost' in entry) throw entry.lost;
			return turn!;
		} finally {
			priced.release?.();
		}
	}

	/** Max Expected Spend before the turn: what the execution spent plus what the turn can cost (exact per call; per token within its bound). */
	private async priceTurn(
		body: Json,
		config: ChatModelConfig | undefined,
		place: Place,
	): Promise<PricedTurn> {
		const s = this.supply;
		const needCap = s.money.some((m) => m.cap !== undefined || m.spend !== undefined);
		const prices = await s.pricesOnce();
		const maxTokens = config?.maxTokens ?? this.opts.maxTokens;
		const p = promptBound(body);
		const tokenBound: TokenBound | undefined =
			maxTokens !== undefined && maxTokens > 0
				? {
						prompt: p.tokens,
						completion: maxTokens,
						how: `${p.tokens} prompt tokens (the request's ${p.tokens - p.images * IMAGE_TOKEN_BOUND} bytes${p.images ? ` and ${p.images} image(s) at ${IMAGE_TOKEN_BOUND} tokens` : ''}) and ${maxTokens} completion tokens (Maximum Number of Tokens)`,
					}
				: undefined;
		const q = prices.pricing
			? quote(
					{ model: this.opts.model, calls: 1, tokenBound },
					prices.pricing,
					prices.display,
					s.money[0]?.group ?? {},
					prices.error,
				)
			: undefined;
		if (!needCap) return { q, prices };
		const resolved = strictestCap(s.money, prices.display);
		if (resolved.unreadable || !q) {
			throw new GatewayModelError(
				`GenGateway: Max Expected Spend refused this model turn before sending it: ${resolved.unreadable ? "the site's display settings" : 'the price list'} could not be read${prices.error ? ` (${prices.error})` : ''}`,
				'Nothing was sent. Try again, or write the cap in ¤ quota units.',
			);
		}
		// a turn with no bound (per token, no Maximum Number of Tokens) waits for the execution's other such capped turns:
		// the cap is checked once they are counted, so several items' turns at once can pass it by one turn, never more
		const unbounded = q.basis === 'per_token' && !tokenBound;
		const release = unbounded ? await takeGate(s.spend.executionBook) : undefined;
		const refused = capRefusal(
			s.spend,
			{ cap: resolved.cap, allowUnpriced: false, hasAllowOption: false },
			[q],
			prices.display,
			'this model turn',
		);
		// without a bound a per-token turn is refused only once the spend reached the cap
		const passes =
			!refused ||
			(unbounded &&
				resolved.cap !== undefined &&
				s.spend.spent().quota < resolved.cap &&
				!s.spend.spent().full);
		if (passes) {
			// the turn's bound is counted as spent while it is in flight (its cost replaces it): turns of several items at
			// once each see the others
			const bound = capBound(q);
			const reserved = bound === undefined ? undefined : callSpendKey(placeKey(place));
			if (reserved)
				s.spend.record(
					[
						[
							reserved,
							{
								quota: bound!,
								exact: false,
								unpriced: false,
								label: `${this.opts.model} turn in flight`,
							},
						],
					],
					prices.display,
				);
			return { q, prices, reserved, release };
		}
		release?.();
		if (unbounded) {
			// the price is not what refused it (a turn without a bound has none): the spend reached the cap
			const so = s.spend.spent();
			const spent = `${money(so.quota, prices.display)}${so.bounded ? ' at most' : ''}`;
			throw new GatewayModelError(
				`GenGateway: Max Expected Spend ${money(resolved.cap!, prices.display)} refused this model turn before any paid request: ${so.full ? 'what this execution has spent cannot be known (its custom data is full)' : `this execution's GenGateway calls have spent ${spent}, which reached the cap`}`,
				`Nothing was sent to the gateway. Without Maximum Number of Tokens a turn has no bound: it goes only while the spend is under the cap, so the cap can be passed by at most one turn. Raise Max Expected Spend, or set Maximum Number of Tokens to have each turn priced before it is sent.`,
			);
		}
		throw new GatewayModelError(`GenGateway: ${refused!.message}`, refused!.description);
	}

	/** The turn's cost and its entry in the execution's money record (an unknown outcome counts its bound). */
	private account(place: Place, priced: PricedTurn, entry: LedgerEntry<Turn>): Turn | undefined {
		const s = this.supply;
		if (!priced.q) return 'sent' in entry ? entry.sent : undefined;
		const usage = 'sent' in entry ? tokenCountOf(entry.sent.rawUsage) : undefined;
		const { figure, entry: spendEntry } = costEntry(priced.q, usage, `${this.opts.model} turn`);
		s.spend.record([[callSpendKey(placeKey(place)), spendEntry]], priced.prices.display);
		if (!('sent' in entry)) return undefined;
		entry.sent.cost = costJsonOf(figure, priced.prices.display);
		return entry.sent;
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
		if ('uncertain' in x) throw this.uncertain(x);
		if ('failed' in x) throw x.failed;
		const turn = turnOf(x.answer);
		// a whole answer to a streamed request is handed on at once
		if (body.stream === true && !x.answer.streamed && turn.text) onDelta?.(turn.text);
		return turn;
	}

	/** A POST whose outcome is unknown (5xx, timeout, cut, redirect): never resent, the run fails with the reason. */
	private uncertain(out: {
		uncertain: string;
		status?: number;
		body?: unknown;
	}): GatewayModelError {
		const status = out.status;
		const gatewayMessage =
			status !== undefined && status >= 400
				? extractGatewayError(out.body, status).message
				: out.uncertain;
		const message =
			status !== undefined && status >= 400 ? `${gatewayMessage} (HTTP ${status})` : gatewayMessage;
		const advice = status !== undefined ? adviceFor(status) : '';
		return new GatewayModelError(
			this.transport.redact(`GenGateway: ${message}`),
			this.transport.redact(
				`POST ${this.path}, model ${this.opts.model}. ${advice} The request may have reached the gateway and been billed, so it was not sent again.`
					.replace(/\s+/g, ' ')
					.trim(),
			),
			status,
		);
	}

	private explain(err: unknown, extra = ''): Error {
		if (err instanceof GatewayModelError) return err;
		const redact = (s: string) => this.transport.redact(s);
		if (err instanceof GatewayHttpError) {
			const advice = adviceFor(err.status, err.code);
			return new GatewayModelError(
				redact(`GenGateway: ${err.gatewayMessage} (HTTP ${err.status})`),
				redact(`${err.method} ${err.path}, model ${this.opts.model}. ${advice} ${extra}`.trim()),
				err.status,
			);
		}
		if (err instanceof StreamError) {
			return new GatewayModelError(
				redact(`GenGateway: ${err.message}`),
				redact(
					`POST ${this.path}, model ${this.opts.model}. The gateway answered, but the answer cannot be used (${err.kind}). It may be billed, so it was not sent again.`,
				),
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
					`POST ${this.path}, model ${this.opts.model}. Check the credential's Base URL and that n8n can reach it. ${sent}`,
				),
			);
		}
		if (err instanceof SafetyError || err instanceof BodyError)
			return new GatewayModelError(
				redact(`GenGateway: ${err.message}`),
				redact(`POST ${this.path}, model ${this.opts.model}.`),
			);
		const message = err instanceof Error ? err.message : String(err);
		return new GatewayModelError(
			redact(`GenGateway: ${message}`),
			redact(`POST ${this.path}, model ${this.opts.model}.`),
		);
	}
}

/** The strictest cap of the items' money options, in whole ¤ (unreadable when one cannot be read). */
function strictestCap(
	items: MoneyOptions[],
	display: Parameters<typeof resolveCap>[1],
): { cap?: number; unreadable?: boolean } {
	const all = items.map((m) => resolveCap(m, display));
	if (all.some((r) => r.unreadable)) return { unreadable: true };
	const caps = all.map((r) => r.cap).filter((c): c is number => c !== undefined);
	return caps.length ? { cap: Math.min(...caps) } : {};
}

/** A text answer as a model turn: its text, tool calls, finish, usage and reasoning. */
function turnOf(a: TextAnswer): Turn {
	if (a.responses) {
		const r = a.responses;
		return {
			text: r.text,
			calls: responsesCallsFrom(a.full),
			finish: r.incompleteReason ?? r.status ?? null,
			usage: usageFrom(r.usage),
			id: r.id,
			rawUsage: r.usage,
			reasoning: responsesReasoningFrom(a.full),
		};
	}
	const r = a.chat!;
	const calls: RawToolCall[] = a.streamed
		? r.toolCalls.map((c, i) => ({
				id: c.id,
				name: c.function.name,
				arguments: a.objectArgs?.[i] ?? c.function.arguments,
			}))
		: chatCallsFrom(r.toolCalls, a.full);
	return {
		text: r.content,
		calls,
		finish: r.finishReason,
		usage: usageFrom(r.usage),
		id: r.id,
		rawUsage: r.usage,
		...reasoningOf(r),
	};
}

/** A chat answer's reasoning and its field, when the model sent one. */
function reasoningOf(r: {
	reasoning: string;
	reasoningField?: ReasoningField;
}): Pick<Turn, 'reasoning' | 'reasoningField'> {
	return r.reasoningField ? { reasoning: r.reasoning, reasoningField: r.reasoningField } : {};
}

/** Two calls' usage together (a JSON Schema answer and its repair request). */
function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
	const out: TokenUsage = {
		promptTokens: a.promptTokens + b.promptTokens,
		completionTokens: a.completionTokens + b.completionTokens,
		totalTokens: a.totalTokens + b.totalTokens,
	};
	const cached = (a.inputTokenDetails?.cacheRead ?? 0) + (b.inputTokenDetails?.cacheRead ?? 0);
	const reasoning = (a.outputTokenDetails?.reasoning ?? 0) + (b.outputTokenDetails?.reasoning ?? 0);
	if (cached) out.inputTokenDetails = { cacheRead: cached };
	if (reasoning) out.outputTokenDetails = { reasoning };
	return out;
}
