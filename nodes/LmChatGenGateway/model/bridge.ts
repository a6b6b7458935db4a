/**
 * Where the AI node SDK's LangChain adapter (@n8n/ai-utilities 0.34.1, in n8n 2.41.1) loses what the AI Agent and the
 * gateway need, and how the package gets it through, on each adapter instance (the one supplyModel returned and every
 * one bindTools makes from it), feature-detected — a host whose adapter looks different is left alone:
 *
 * - Images. The Agent's *Automatically Passthrough Binary Images* sends LangChain `image_url` blocks; the adapter's
 *   conversion (fromLcContent) maps only LangChain's standard blocks and drops every other one, `image_url` included,
 *   before the model sees the messages. The adapter's own LangChain entry points (`_generate`,
 *   `_streamResponseChunks`) get the messages first: there each `image_url` block becomes the standard image block it
 *   stands for (`{type: 'image', mimeType, data}` for a Data URL, `{type: 'image', url}` for an address), which the
 *   conversion keeps as a `file` content; ./wire.ts sends it as an `image_url` (chat) or `input_image` (responses) part.
 * - Reasoning. The Agent keeps a DeepSeek-style model's reasoning in `additional_kwargs.reasoning_content` of the tool
 *   call messages it rebuilds; the conversion drops `additional_kwargs`. Such reasoning becomes a standard reasoning
 *   block here (the conversion keeps those), and an answer's reasoning is put into `additional_kwargs.reasoning_content`
 *   so the Agent keeps it with its tool calls. (The model also keeps it itself, ./reasoning.ts.)
 * - Run data. n8n's tracing writes a model call's run data from the generation's `text` and `generationInfo` only: a
 *   tool-call turn would show `text: ""` (in the Logs panel: nothing). Each call's tool calls, reasoning and cost
 *   (./model.ts TurnSummary) are put into `generationInfo` as the call ends, before the tracing reads it, and a
 *   tool-call turn's text there reads as its calls (logTextOf).
 * - Token usage (./usageTracing.ts): the gateway's counts on a streamed call, never n8n's estimate.
 */
import { contentParts } from '../../shared/text/images';
import { readGatewayUsage } from './usageTracing';
import type { TurnSummary } from './result';

type Json = Record<string, unknown>;

interface LcMessageLike {
	content: unknown;
	id?: string;
	name?: string;
	additional_kwargs?: Json;
	response_metadata?: Json;
	tool_calls?: unknown[];
	invalid_tool_calls?: unknown[];
	usage_metadata?: unknown;
	_getType?(): string;
	getType?(): string;
	type?: string;
}

/** What the bridge needs of the model the adapter wraps: its turns' summaries (oldest first). */
export interface SummarySource {
	summaries: TurnSummary[];
	leaveOutReasoning: boolean;
}

const BRIDGED = Symbol.for('n8n-nodes-gen-gateway.bridged');

function typeOf(m: LcMessageLike): string | undefined {
	try {
		return (
			(typeof m._getType === 'function'
				? m._getType()
				: typeof m.getType === 'function'
					? m.getType()
					: m.type) ?? undefined
		);
	} catch {
		return m.type;
	}
}

/** A LangChain `image_url` block as the standard image block it stands for; anything else unchanged. */
export function standardImageBlock(block: unknown): unknown {
	const b = block as { type?: unknown; image_url?: unknown };
	if (!b || typeof b !== 'object' || b.type !== 'image_url') return block;
	const ref = b.image_url as { url?: unknown; detail?: unknown } | string | undefined;
	const url = typeof ref === 'string' ? ref : typeof ref?.url === 'string' ? ref.url : undefined;
	if (!url) return block;
	const detail =
		typeof ref === 'object' && typeof ref?.detail === 'string' ? ref.detail : undefined;
	const metadata = detail ? { metadata: { detail } } : {};
	const m = /^data:([^;,]+);base64,/i.exec(url.slice(0, 200));
	if (m) return { type: 'image', mimeType: m[1], data: url.slice(m[0].length), ...metadata };
	return { type: 'image', url, ...metadata };
}

/** A copy of a LangChain message (same class) with other fields; the message itself when its class cannot be used. */
function copyOf(m: LcMessageLike, fields: Json): LcMessageLike {
	const Ctor = (m as unknown as { constructor?: new (f: Json) => LcMessageLike }).constructor;
	if (typeof Ctor !== 'function') return m;
	const base: Json = {
		content: m.content,
		id: m.id,
		name: m.name,
		additional_kwargs: m.additional_kwargs,
		response_metadata: m.response_metadata,
	};
	if (typeOf(m) === 'ai')
		Object.assign(base, {
			tool_calls: m.tool_calls,
			invalid_tool_calls: m.invalid_tool_calls,
			usage_metadata: m.usage_metadata,
		});
	try {
		return new Ctor({ ...base, ...fields });
	} catch {
		return m;
	}
}

/** A message as the SDK's conversion can carry it: image_url blocks made standard, kept reasoning made a reasoning block. */
export function carryable(m: LcMessageLike): LcMessageLike {
	if (!m || typeof m !== 'object') return m;
	const type = typeOf(m);
	if (
		type === 'human' &&
		Array.isArray(m.content) &&
		m.content.some((b) => (b as { type?: unknown })?.type === 'image_url')
	) {
		return copyOf(m, { content: m.content.map(standardImageBlock) });
	}
	const kept = m.additional_kwargs?.reasoning_content;
	if (type === 'ai' && typeof kept === 'string') {
		const content = contentParts(m.content, 'text');
		if (content.some((b) => (b as { type?: unknown })?.type === 'reasoning')) return m;
		return copyOf(m, { content: [{ type: 'reasoning', reasoning: kept }, ...content] });
	}
	return m;
}

/** The reasoning blocks' text of a LangChain message. */
function reasoningText(m: LcMessageLike | undefined): string | undefined {
	if (!m || !Array.isArray(m.content)) return undefined;
	const parts = m.content.filter(
		(b) =>
			(b as { type?: unknown })?.type === 'reasoning' &&
			typeof (b as { reasoning?: unknown }).reasoning === 'string',
	);
	return parts.length
		? parts.map((b) => (b as { reasoning: string }).reasoning).join('')
		: undefined;
}

/**
 * The text a turn shows in n8n's Logs panel. n8n 2.41.1's tracing (N8nLlmTracing.handleLLMEnd, @n8n/ai-utilities) keeps
 * only each generation's `text` and `generationInfo` as the run's `response.generations`, and the Logs panel shows a
 * language model's run as those texts (editor-ui's AI content parser for `ai_languageModel`: `generations` mapped to
 * `text`). n8n's own chat models (the OpenAI Chat Model in the same agent) go through the same tracing, so their answer
 * turns read as the answer and a tool-call turn as an empty text. A tool-call turn of this model reads as its calls:
 * `Calling Calculator({"input":"12 * 7"})`, one line each; the calls themselves stay in `generationInfo.tool_calls`,
 * and a turn with text keeps its text.
 */
export function logTextOf(text: string | undefined, s: TurnSummary): string | undefined {
	if (text || !s.tool_calls?.length) return text;
	return s.tool_calls.map((c) => `Calling ${c.name}(${c.args})`).join('\n');
}

/** What a turn shows in the run data, beside the tracing's own `text` (never the answer itself). */
export function runDataOf(s: TurnSummary): Json {
	const out: Json = {};
	if (s.tool_calls?.length) out.tool_calls = s.tool_calls;
	if (s.reasoning !== undefined) out.reasoning = s.reasoning;
	if (s.usage?.outputTokenDetails?.reasoning)
		out.reasoning_tokens = s.usage.outputTokenDetails.reasoning;
	if (s.cost) out.cost = s.cost;
	if (s.repaired) out.json_schema_repair = s.repaired;
	return out;
}

type Generate = (
	messages: LcMessageLike[],
	...rest: unknown[]
) => Promise<{ generations?: Array<{ message?: LcMessageLike }> }>;
type StreamChunks = (messages: LcMessageLike[], ...rest: unknown[]) => AsyncGenerator<unknown>;
type LlmEnd = (
	output: { generations?: Array<Array<{ generationInfo?: Json }>> },
	...rest: unknown[]
) => Promise<unknown>;

/** The adapter's `_generate`: messages made carryable, and a tool-call turn's reasoning kept where the Agent reads it. */
function bridgeGenerate(a: Json, source: SummarySource | undefined): void {
	const generate = a._generate as Generate | undefined;
	if (typeof generate !== 'function') return;
	a._generate = async function (this: unknown, messages: LcMessageLike[], ...rest: unknown[]) {
		const result = await generate.call(
			this,
			Array.isArray(messages) ? messages.map(carryable) : messages,
			...rest,
		);
		// the Agent keeps a tool-call turn's reasoning from here (additional_kwargs), as it does for DeepSeek's own models
		for (const g of result?.generations ?? []) {
			const text = reasoningText(g.message);
			if (text && g.message && !source?.leaveOutReasoning)
				g.message.additional_kwargs = {
					...(g.message.additional_kwargs ?? {}),
					reasoning_content: text,
				};
		}
		return result;
	};
}

/** The adapter's `_streamResponseChunks`: the messages made carryable, the chunks passed on as they come. */
function bridgeStream(a: Json): void {
	const streamChunks = a._streamResponseChunks as StreamChunks | undefined;
	if (typeof streamChunks !== 'function') return;
	a._streamResponseChunks = async function* (
		this: unknown,
		messages: LcMessageLike[],
		...rest: unknown[]
	) {
		yield* streamChunks.call(
			this,
			Array.isArray(messages) ? messages.map(carryable) : messages,
			...rest,
		);
	};
}

/** n8n's tracing callback: each turn's run data gets its summary (cost, calls), and its Logs panel text (logTextOf). */
function bridgeTracing(a: Json, source: SummarySource): void {
	for (const cb of Array.isArray(a.callbacks) ? (a.callbacks as Json[]) : []) {
		const end = cb?.handleLLMEnd as LlmEnd | undefined;
		if (typeof end !== 'function' || !('executionFunctions' in cb)) continue;
		cb.handleLLMEnd = function (this: unknown, output: Parameters<LlmEnd>[0], ...rest: unknown[]) {
			const summary = source.summaries.shift();
			const gen = output?.generations?.[0]?.[0] as
				{ text?: string; generationInfo?: Json } | undefined;
			if (!summary || !gen) return end.call(this, output, ...rest);
			gen.generationInfo = { ...(gen.generationInfo ?? {}), ...runDataOf(summary) };
			// the tracing's own copy reads the turn's text for the Logs panel; the agent's generation is left as it is
			const text = logTextOf(gen.text, summary);
			if (text === gen.text) return end.call(this, output, ...rest);
			const generations = [[{ ...gen, text }, ...output!.generations![0].slice(1)]];
			return end.call(this, { ...output, generations }, ...rest);
		};
	}
}

/**
 * Bridges one adapter instance (and, through bindTools, every adapter made from it). `sourceOf` finds the model's
 * summaries from the adapter's wrapped model (the SDK keeps it as `chatModel`).
 */
export function bridgeAdapter<T>(
	adapter: T,
	sourceOf: (wrapped: unknown) => SummarySource | undefined,
): T {
	const a = adapter as unknown as Json & { [BRIDGED]?: true };
	if (!a || typeof a !== 'object' || a[BRIDGED]) return adapter;
	a[BRIDGED] = true;
	const bind = a.bindTools as ((...args: unknown[]) => unknown) | undefined;
	readGatewayUsage(a);
	const source = sourceOf(a.chatModel);
	bridgeGenerate(a, source);
	bridgeStream(a);
	if (source) bridgeTracing(a, source);
	if (typeof bind === 'function')
		a.bindTools = (...args: unknown[]) => bridgeAdapter(bind.apply(adapter, args), sourceOf);
	return adapter;
}
