/**
 * The Chat Model's conversions between the SDK's messages and the gateway's two wire formats (chat completions
 * and responses, OpenAI's public shapes), and the repair of tool calls as gateways really send them.
 */
import type { ChatToolCall } from '../text/chatStream';
import type { FinishReason, Message, MessageContent, TokenUsage } from './sdk';

type Json = Record<string, unknown>;

export interface WireTool {
	name: string;
	description?: string;
	parameters: unknown;
}

const textOf = (content: MessageContent[]): string =>
	content
		.filter((c) => c.type === 'text' && typeof (c as { text?: unknown }).text === 'string')
		.map((c) => (c as { text: string }).text)
		.join('');

const resultText = (r: unknown): string => (typeof r === 'string' ? r : JSON.stringify(r ?? ''));

function toolCallsOf(content: MessageContent[]): Array<{ id: string; name: string; args: string }> {
	return content
		.filter((c): c is Extract<MessageContent, { type: 'tool-call' }> => c.type === 'tool-call')
		.map((c) => ({ id: c.toolCallId ?? '', name: c.toolName, args: typeof c.input === 'string' && c.input ? c.input : '{}' }));
}

function toolResultsOf(content: MessageContent[]): Array<{ id: string; output: string }> {
	return content
		.filter((c): c is Extract<MessageContent, { type: 'tool-result' }> => c.type === 'tool-result')
		.map((c) => ({ id: c.toolCallId, output: resultText(c.result) }));
}

/** `messages` of a chat-completions body. */
export function toChatMessages(messages: Message[]): Json[] {
	const out: Json[] = [];
	for (const m of messages) {
		if (m.role === 'tool') {
			for (const r of toolResultsOf(m.content)) out.push({ role: 'tool', tool_call_id: r.id, content: r.output });
			continue;
		}
		if (m.role === 'assistant') {
			const calls = toolCallsOf(m.content);
			const msg: Json = { role: 'assistant', content: textOf(m.content) || (calls.length ? null : '') };
			if (calls.length) msg.tool_calls = calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.args } }));
			out.push(msg);
			continue;
		}
		out.push({ role: m.role, content: textOf(m.content) });
	}
	return out;
}

/** `input` items of a responses body. */
export function toResponsesInput(messages: Message[]): Json[] {
	const out: Json[] = [];
	for (const m of messages) {
		if (m.role === 'tool') {
			for (const r of toolResultsOf(m.content)) out.push({ type: 'function_call_output', call_id: r.id, output: r.output });
			continue;
		}
		const text = textOf(m.content);
		if (m.role === 'assistant') {
			if (text) out.push({ role: 'assistant', content: text });
			for (const c of toolCallsOf(m.content)) out.push({ type: 'function_call', call_id: c.id, name: c.name, arguments: c.args });
			continue;
		}
		out.push({ role: m.role, content: text });
	}
	return out;
}

export function chatTools(tools: WireTool[]): Json[] {
	return tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description ?? '', parameters: t.parameters } }));
}

export function responsesTools(tools: WireTool[]): Json[] {
	return tools.map((t) => ({ type: 'function', name: t.name, description: t.description ?? '', parameters: t.parameters }));
}

/**
 * A tool call's arguments as the JSON object text the agent needs, from what gateways send: a JSON string, an
 * empty string or null/undefined (no arguments: `{}`), or an object instead of a string. A string that is not
 * a JSON object is an invalid call (the agent is told, nothing is guessed).
 */
export function repairArguments(raw: unknown): { ok: true; json: string } | { ok: false; error: string; raw: string } {
	if (raw === undefined || raw === null) return { ok: true, json: '{}' };
	if (typeof raw === 'object' && !Array.isArray(raw)) return { ok: true, json: JSON.stringify(raw) };
	if (typeof raw !== 'string') return { ok: false, error: `the arguments are a ${Array.isArray(raw) ? 'list' : typeof raw}, not a JSON object`, raw: JSON.stringify(raw) };
	if (!raw.trim()) return { ok: true, json: '{}' };
	let parsed: unknown;
	try {
		parsed = JSON.parse(raw);
	} catch {
		return { ok: false, error: 'the arguments are not valid JSON', raw };
	}
	if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return { ok: true, json: JSON.stringify(parsed) };
	return { ok: false, error: 'the arguments are not a JSON object', raw };
}

export interface RawToolCall {
	id?: string;
	name: string;
	arguments: unknown;
}

/** Tool calls as SDK content, each with an ID (made up when the gateway sent none, unique in the turn). */
export function toolCallContent(calls: RawToolCall[], turnId: string): MessageContent[] {
	return calls.map((c, i) => {
		const id = c.id || `call_${turnId}_${i}`;
		const args = repairArguments(c.arguments);
		if (args.ok) return { type: 'tool-call', toolCallId: id, toolName: c.name, input: args.json };
		return { type: 'invalid-tool-call', toolCallId: id, name: c.name, args: args.raw, error: `Tool call ${c.name}: ${args.error}` };
	});
}

/** The package's chat parser keeps `arguments` as text; an object the gateway sent in a plain answer is read from the body. */
export function chatCallsFrom(parsed: ChatToolCall[], body?: Json): RawToolCall[] {
	const message = (((body?.choices as Json[] | undefined)?.[0] ?? {}) as Json).message as Json | undefined;
	const rawCalls = Array.isArray(message?.tool_calls) ? (message.tool_calls as Json[]) : [];
	return parsed.map((c, i) => {
		const rawArgs = ((rawCalls[i]?.function ?? {}) as Json).arguments;
		return { id: c.id, name: c.function.name, arguments: rawArgs !== undefined && typeof rawArgs !== 'string' ? rawArgs : c.function.arguments };
	});
}

/** Function calls of a responses answer (`output[]` items of type `function_call`). */
export function responsesCallsFrom(response: Json | undefined): RawToolCall[] {
	const output = Array.isArray(response?.output) ? (response.output as Json[]) : [];
	return output
		.filter((o) => o && o.type === 'function_call' && typeof o.name === 'string')
		.map((o) => ({ id: typeof o.call_id === 'string' ? o.call_id : typeof o.id === 'string' ? o.id : undefined, name: o.name as string, arguments: o.arguments }));
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined);

/** The gateway's own counts (chat: prompt/completion tokens; responses: input/output tokens). Undefined when it sent none: never estimated. */
export function usageFrom(u: unknown): TokenUsage | undefined {
	if (!u || typeof u !== 'object') return undefined;
	const x = u as Json;
	const prompt = num(x.prompt_tokens) ?? num(x.input_tokens);
	const completion = num(x.completion_tokens) ?? num(x.output_tokens);
	if (prompt === undefined && completion === undefined) return undefined;
	const usage: TokenUsage = { promptTokens: prompt ?? 0, completionTokens: completion ?? 0, totalTokens: num(x.total_tokens) ?? (prompt ?? 0) + (completion ?? 0) };
	const cached = num(((x.prompt_tokens_details ?? x.input_tokens_details) as Json | undefined)?.cached_tokens);
	const reasoning = num(((x.completion_tokens_details ?? x.output_tokens_details) as Json | undefined)?.reasoning_tokens);
	if (cached !== undefined) usage.inputTokenDetails = { cacheRead: cached };
	if (reasoning !== undefined) usage.outputTokenDetails = { reasoning };
	return usage;
}

export function finishReasonOf(r: string | null | undefined, hasToolCalls: boolean): FinishReason {
	if (hasToolCalls) return 'tool-calls';
	switch (r) {
		case 'stop':
		case 'completed':
		case null:
		case undefined:
			return 'stop';
		case 'length':
		case 'max_output_tokens':
			return 'length';
		case 'tool_calls':
		case 'function_call':
			return 'tool-calls';
		case 'content_filter':
			return 'content-filter';
		default:
			return 'other';
	}
}
