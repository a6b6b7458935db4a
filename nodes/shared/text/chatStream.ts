/**
 * The chat-completions stream parser (`POST /v1/chat/completions` with `stream: true`): `data:` events with
 * JSON increments, a usage chunk whose `choices` is empty, and the final marker `data: [DONE]`. Deltas are
 * joined per choice into the final message; a stream without `[DONE]` or with an error event is an error.
 * Also reads the non-streaming answer (`choices[].message.content`, `usage`).
 */
import type { EventSourceMessage } from 'eventsource-parser';
import {
	SseByteParser,
	StreamError,
	errorEventText,
	eventJson,
	upstreamError,
	type EventInterpreter,
	type SseLimits,
} from './sse';

export const CHAT_DONE = '[DONE]';

/**
 * No number from the gateway sizes an array or a loop: choices and tool calls are kept by their `index` in maps
 * (an index of 1e8 costs what an index of 1 costs), and more distinct ones than these end the answer as unreadable.
 */
export const MAX_CHOICES = 128;
export const MAX_TOOL_CALLS = 256;

export interface ChatToolCall {
	id?: string;
	type: string;
	function: { name: string; arguments: string };
}

export interface ChatChoice {
	index: number;
	role: string;
	content: string;
	/** reasoning text thinking models send beside the content (`reasoning_content`, or `reasoning` on some gateways) */
	reasoning: string;
	/** the field the reasoning came in, when it came */
	reasoningField?: 'reasoning_content' | 'reasoning';
	toolCalls: ChatToolCall[];
	finishReason: string | null;
}

export interface ChatResult {
	id?: string;
	model?: string;
	created?: number;
	systemFingerprint?: string;
	/** the text of choice 0 */
	content: string;
	/** the reasoning of choice 0 (empty when the model sent none) and its field */
	reasoning: string;
	reasoningField?: 'reasoning_content' | 'reasoning';
	finishReason: string | null;
	usage?: Record<string, unknown>;
	toolCalls: ChatToolCall[];
	choices: ChatChoice[];
	/** `[DONE]` was read */
	done: boolean;
	/** JSON chunks read */
	chunks: number;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

function newChoice(index: number): ChatChoice {
	return {
		index,
		role: 'assistant',
		content: '',
		reasoning: '',
		toolCalls: [],
		finishReason: null,
	};
}

/** An `index` the gateway sent: a whole number from 0 (not NaN, not negative, not a fraction, not past 2^53). */
function indexOf(v: unknown, fallback: number, what: string, receivedText: string): number {
	if (v === undefined || v === null) return fallback;
	if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return v;
	throw new StreamError(
		`the answer carried ${what} index ${JSON.stringify(v)?.slice(0, 40)}, which is not a valid index: the answer cannot be read`,
		'unreadable',
		receivedText,
	);
}

/** Tool calls of one choice by their index; `list()` in index order. */
class ToolCalls {
	private readonly byIndex = new Map<number, ChatToolCall>();
	constructor(private readonly receivedText: () => string) {}

	get size(): number {
		return this.byIndex.size;
	}

	/** Tool-call deltas: matched by `index`; `arguments` are concatenated, a name repeated whole is not doubled. */
	merge(deltas: Array<Record<string, unknown>>): void {
		for (const [pos, tc] of deltas.entries()) {
			if (!tc || typeof tc !== 'object') continue;
			const i = indexOf(tc.index, pos, 'a tool call', this.receivedText());
			let call = this.byIndex.get(i);
			if (!call) {
				if (this.byIndex.size >= MAX_TOOL_CALLS)
					throw new StreamError(
						`the answer carried more than ${MAX_TOOL_CALLS} tool calls: the answer cannot be read`,
						'unreadable',
						this.receivedText(),
					);
				this.byIndex.set(i, (call = { type: 'function', function: { name: '', arguments: '' } }));
			}
			if (typeof tc.id === 'string' && tc.id) call.id = tc.id;
			if (typeof tc.type === 'string' && tc.type) call.type = tc.type;
			const f = (tc.function ?? {}) as Record<string, unknown>;
			if (typeof f.name === 'string' && f.name && f.name !== call.function.name)
				call.function.name += f.name;
			if (typeof f.arguments === 'string') call.function.arguments += f.arguments;
		}
	}

	list(): ChatToolCall[] {
		return [...this.byIndex.entries()].sort(([a], [b]) => a - b).map(([, c]) => c);
	}
}

/** Interprets chat-completion SSE events (the event layer; `ChatStreamParser` adds bytes and SSE framing). */
export class ChatStreamAccumulator implements EventInterpreter {
	private readonly byIndex = new Map<number, ChatChoice>();
	private readonly calls = new Map<number, ToolCalls>();
	private meta: Pick<ChatResult, 'id' | 'model' | 'created' | 'systemFingerprint' | 'usage'> = {};
	private doneSeen = false;
	private chunkCount = 0;

	get finished(): boolean {
		return this.doneSeen;
	}

	get receivedText(): string {
		return this.byIndex.get(0)?.content ?? '';
	}

	get result(): ChatResult {
		for (const [index, calls] of this.calls) this.byIndex.get(index)!.toolCalls = calls.list();
		const choices = [...this.byIndex.values()].sort((a, b) => a.index - b.index);
		const first = this.byIndex.get(0) ?? newChoice(0);
		return {
			...this.meta,
			content: first.content,
			reasoning: first.reasoning,
			reasoningField: first.reasoningField,
			finishReason: first.finishReason,
			toolCalls: first.toolCalls,
			choices,
			done: this.doneSeen,
			chunks: this.chunkCount,
		};
	}

	onEvent(e: EventSourceMessage, atEnd: boolean): string {
		if (this.doneSeen) return '';
		const data = e.data.trim();
		if (data === CHAT_DONE) {
			this.doneSeen = true;
			return '';
		}
		const errorEvent = errorEventText(e, this.receivedText);
		if (errorEvent) throw errorEvent;
		// chat increments come as unnamed (or `message`) events; other named events (`event: ping`) are not part of the answer
		if (!data || (e.event && e.event !== 'message')) return '';
		const json = eventJson(e, atEnd, { receivedText: this.receivedText, marker: CHAT_DONE });
		if (json.error !== undefined && json.error !== null && json.error !== false)
			throw upstreamError(json, this.receivedText);
		this.chunkCount++;
		this.meta.id ??= str(json.id);
		this.meta.model ??= str(json.model);
		if (typeof json.created === 'number') this.meta.created ??= json.created;
		this.meta.systemFingerprint ??= str(json.system_fingerprint);
		if (json.usage && typeof json.usage === 'object')
			this.meta.usage = json.usage as Record<string, unknown>;
		let delta = '';
		const choices = Array.isArray(json.choices)
			? (json.choices as Array<Record<string, unknown>>)
			: [];
		for (const [pos, c] of choices.entries()) {
			if (!c || typeof c !== 'object') continue;
			const index = indexOf(c.index, pos, 'a choice', this.receivedText);
			let choice = this.byIndex.get(index);
			if (!choice) {
				if (this.byIndex.size >= MAX_CHOICES)
					throw new StreamError(
						`the answer carried more than ${MAX_CHOICES} choices: the answer cannot be read`,
						'unreadable',
						this.receivedText,
					);
				this.byIndex.set(index, (choice = newChoice(index)));
			}
			const d = (c.delta ?? c.message ?? {}) as Record<string, unknown>;
			if (typeof d.role === 'string' && d.role) choice.role = d.role;
			if (typeof d.content === 'string') {
				choice.content += d.content;
				if (index === 0) delta += d.content;
			}
			readReasoning(choice, d);
			if (Array.isArray(d.tool_calls)) {
				let calls = this.calls.get(index);
				if (!calls) this.calls.set(index, (calls = new ToolCalls(() => this.receivedText)));
				calls.merge(d.tool_calls as Array<Record<string, unknown>>);
			}
			if (typeof c.finish_reason === 'string' && c.finish_reason)
				choice.finishReason = c.finish_reason;
		}
		return delta;
	}

	/** The joined stream in the shape of a non-streaming answer (for "full response" output). */
	toCompletion(): Record<string, unknown> {
		const r = this.result;
		const out: Record<string, unknown> = {
			id: r.id,
			object: 'chat.completion',
			created: r.created,
			model: r.model,
		};
		if (r.systemFingerprint) out.system_fingerprint = r.systemFingerprint;
		out.choices = r.choices.map((c) => {
			const message: Record<string, unknown> = { role: c.role, content: c.content };
			if (c.reasoningField) message[c.reasoningField] = c.reasoning;
			if (c.toolCalls.length) message.tool_calls = c.toolCalls;
			return { index: c.index, message, finish_reason: c.finishReason };
		});
		out.usage = r.usage ?? null;
		return out;
	}
}

/** Bytes in, deltas out: the chat stream parser. `onDelta` gets choice 0's text as each event arrives. */
export class ChatStreamParser extends SseByteParser {
	readonly accumulator: ChatStreamAccumulator;

	constructor(
		onDelta?: (text: string) => void,
		accumulator = new ChatStreamAccumulator(),
		limits: Partial<SseLimits> = {},
	) {
		super(accumulator, CHAT_DONE, onDelta, limits);
		this.accumulator = accumulator;
	}

	get result(): ChatResult {
		return this.accumulator.result;
	}
}

/** Reads a non-streaming chat completion (also what a gateway sends when it ignores `stream: true`). */
export function chatFromJson(body: Record<string, unknown>): ChatResult {
	if (body.error !== undefined && body.error !== null && body.error !== false)
		throw upstreamError(body, '');
	if (!Array.isArray(body.choices) || body.choices.length === 0) {
		throw new StreamError(`the answer holds no choices (${describeKeys(body)})`, 'unreadable');
	}
	if (body.choices.length > MAX_CHOICES)
		throw new StreamError(`the answer carried more than ${MAX_CHOICES} choices`, 'unreadable');
	const choices: ChatChoice[] = (body.choices as Array<Record<string, unknown>>).map((c, pos) => {
		const msg = (c?.message ?? {}) as Record<string, unknown>;
		const choice = newChoice(indexOf(c?.index, pos, 'a choice', ''));
		if (typeof msg.role === 'string') choice.role = msg.role;
		choice.content = contentText(msg.content);
		readReasoning(choice, msg);
		if (Array.isArray(msg.tool_calls)) {
			const calls = new ToolCalls(() => '');
			calls.merge(msg.tool_calls as Array<Record<string, unknown>>);
			choice.toolCalls = calls.list();
		}
		choice.finishReason = typeof c?.finish_reason === 'string' ? c.finish_reason : null;
		return choice;
	});
	const first = choices.find((c) => c.index === 0) ?? choices[0];
	return {
		id: str(body.id),
		model: str(body.model),
		created: typeof body.created === 'number' ? body.created : undefined,
		systemFingerprint: str(body.system_fingerprint),
		content: first.content,
		reasoning: first.reasoning,
		reasoningField: first.reasoningField,
		finishReason: first.finishReason,
		usage:
			body.usage && typeof body.usage === 'object'
				? (body.usage as Record<string, unknown>)
				: undefined,
		toolCalls: first.toolCalls,
		choices,
		done: true,
		chunks: 0,
	};
}

/** A message's or delta's reasoning (`reasoning_content`, DeepSeek-style; `reasoning` where a gateway names it so), joined. */
function readReasoning(choice: ChatChoice, d: Record<string, unknown>): void {
	const field =
		typeof d.reasoning_content === 'string'
			? 'reasoning_content'
			: typeof d.reasoning === 'string'
				? 'reasoning'
				: undefined;
	if (!field) return;
	choice.reasoningField ??= field;
	choice.reasoning += d[field] as string;
}

/** `message.content` as text: a string, null (tool calls only), or an array of content parts. */
function contentText(content: unknown): string {
	if (typeof content === 'string') return content;
	if (Array.isArray(content)) {
		return (content as Array<Record<string, unknown>>)
			.map((p) => (p && typeof p.text === 'string' ? p.text : ''))
			.join('');
	}
	return '';
}

export function describeKeys(body: Record<string, unknown>): string {
	const keys = Object.keys(body);
	return keys.length ? `fields: ${keys.slice(0, 8).join(', ')}` : 'an empty object';
}
