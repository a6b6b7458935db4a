/**
 * The Chat Model's conversions between the SDK's messages and the gateway's two wire formats (chat completions
 * and responses, OpenAI's public shapes), and the repair of tool calls as gateways really send them.
 */
import type { ChatToolCall } from '../../shared/text/chatStream';
import {
	checkImageBounds,
	imageFromData,
	imageFromUrl,
	ImagePartError,
	type ContainsSecret,
	type WireImage,
} from '../../shared/text/imageParts';
import type { FinishReason, Message, MessageContent, TokenUsage } from './sdk';

type Json = Record<string, unknown>;

/** The field a thinking model's reasoning travels in: DeepSeek-style `reasoning_content`, or `reasoning` where a gateway names it so. */
export type ReasoningField = 'reasoning_content' | 'reasoning';

/** What a tool-call turn's reasoning is, for the next requests: its text and the field the gateway used for it. */
export interface KeptReasoning {
	text: string;
	field: ReasoningField;
}

/** How the wire finds a tool-call turn's reasoning the agent did not hand back (by tool call ID), and which field to use. */
export interface ReasoningSource {
	/** the reasoning kept for the turn that made this tool call */
	byCall(toolCallId: string): KeptReasoning | undefined;
	/** the field the gateway used in this execution, when it used one (a thinking model): then every tool-call turn carries it */
	field(): ReasoningField | undefined;
}

const reasoningOf = (content: MessageContent[]): string | undefined => {
	const parts = content.filter(
		(c) => c.type === 'reasoning' && typeof (c as { text?: unknown }).text === 'string',
	);
	return parts.length ? parts.map((c) => (c as { text: string }).text).join('') : undefined;
};

/**
 * The images of an SDK message: `file` contents of an image type (bytes or Base64, or an address in
 * providerMetadata.url). Every one through the one image check (bytes) or the one media-address rule (addresses).
 */
function imagesOf(content: MessageContent[], containsSecret: ContainsSecret): WireImage[] {
	const out: WireImage[] = [];
	for (const c of content) {
		if (c.type !== 'file') continue;
		const f = c as {
			mediaType?: unknown;
			data?: unknown;
			providerMetadata?: { url?: unknown; detail?: unknown };
		};
		const media = typeof f.mediaType === 'string' ? f.mediaType.toLowerCase() : '';
		const url = typeof f.providerMetadata?.url === 'string' ? f.providerMetadata.url : undefined;
		const detail =
			typeof f.providerMetadata?.detail === 'string' ? f.providerMetadata.detail : undefined;
		if (url && (!f.data || typeof f.data !== 'string' || !f.data.length)) {
			out.push(imageFromUrl(url, containsSecret, detail));
			continue;
		}
		if (!media.startsWith('image/'))
			throw new ImagePartError(
				`a file part of type ${media || 'unknown'} cannot be sent: the gateway's chat takes text and images only`,
			);
		if (typeof f.data === 'string') {
			if (/^data:/i.test(f.data) || /^[a-z][a-z0-9+.-]*:\/\//i.test(f.data))
				out.push(imageFromUrl(f.data, containsSecret, detail));
			else out.push(imageFromData(f.data, detail));
		} else if (f.data instanceof Uint8Array) out.push(imageFromData(f.data, detail));
		else throw new ImagePartError(`an image part of type ${media} carries no data and no address`);
	}
	return out;
}

/** Chat content of a user (or system) message: plain text, or parts when it holds images. */
function chatContent(m: Message, images: WireImage[], containsSecret: ContainsSecret): unknown {
	const mine = imagesOf(m.content, containsSecret);
	if (!mine.length) return textOf(m.content);
	images.push(...mine);
	const parts: Json[] = [];
	const text = textOf(m.content);
	if (text) parts.push({ type: 'text', text });
	for (const img of mine)
		parts.push({
			type: 'image_url',
			image_url: { url: img.url, ...(img.detail ? { detail: img.detail } : {}) },
		});
	return parts;
}

/** The reasoning an assistant message with tool calls carries back: its own, else the one kept for its calls, else "" where the gateway thinks. */
function reasoningBack(
	m: Message,
	calls: Array<{ id: string }>,
	source?: ReasoningSource,
): { field: ReasoningField; text: string } | undefined {
	const own = reasoningOf(m.content);
	const kept = calls.map((c) => source?.byCall(c.id)).find((k) => k !== undefined);
	const field = kept?.field ?? source?.field();
	const text = own ?? kept?.text;
	if (text !== undefined) return { field: field ?? 'reasoning_content', text };
	return field ? { field, text: '' } : undefined;
}

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
		.map((c) => ({
			id: c.toolCallId ?? '',
			name: c.toolName,
			args: typeof c.input === 'string' && c.input ? c.input : '{}',
		}));
}

function toolResultsOf(content: MessageContent[]): Array<{ id: string; output: string }> {
	return content
		.filter((c): c is Extract<MessageContent, { type: 'tool-result' }> => c.type === 'tool-result')
		.map((c) => ({ id: c.toolCallId, output: resultText(c.result) }));
}

/**
 * `messages` of a chat-completions body. An assistant message that made tool calls carries its reasoning back in the
 * field the gateway used (thinking models refuse the request without it); user messages with images become content
 * parts (`image_url`). The images' rules and size bound are checked here, before anything is sent.
 */
export function toChatMessages(
	messages: Message[],
	containsSecret: ContainsSecret,
	reasoning?: ReasoningSource,
): Json[] {
	const out: Json[] = [];
	const images: WireImage[] = [];
	for (const m of messages) {
		if (m.role === 'tool') {
			for (const r of toolResultsOf(m.content))
				out.push({ role: 'tool', tool_call_id: r.id, content: r.output });
			continue;
		}
		if (m.role === 'assistant') {
			const calls = toolCallsOf(m.content);
			const msg: Json = {
				role: 'assistant',
				content: textOf(m.content) || (calls.length ? null : ''),
			};
			if (calls.length) {
				msg.tool_calls = calls.map((c) => ({
					id: c.id,
					type: 'function',
					function: { name: c.name, arguments: c.args },
				}));
				const back = reasoningBack(m, calls, reasoning);
				if (back) msg[back.field] = back.text;
			}
			out.push(msg);
			continue;
		}
		out.push({ role: m.role, content: chatContent(m, images, containsSecret) });
	}
	checkImageBounds(images);
	return out;
}

/** `input` items of a responses body (images as `input_image` parts of their message; bounded as in chat). */
export function toResponsesInput(messages: Message[], containsSecret: ContainsSecret): Json[] {
	const out: Json[] = [];
	const images: WireImage[] = [];
	for (const m of messages) {
		if (m.role === 'tool') {
			for (const r of toolResultsOf(m.content))
				out.push({ type: 'function_call_output', call_id: r.id, output: r.output });
			continue;
		}
		const text = textOf(m.content);
		if (m.role === 'assistant') {
			if (text) out.push({ role: 'assistant', content: text });
			for (const c of toolCallsOf(m.content))
				out.push({ type: 'function_call', call_id: c.id, name: c.name, arguments: c.args });
			continue;
		}
		const mine = imagesOf(m.content, containsSecret);
		if (!mine.length) {
			out.push({ role: m.role, content: text });
			continue;
		}
		images.push(...mine);
		const parts: Json[] = text ? [{ type: 'input_text', text }] : [];
		for (const img of mine)
			parts.push({
				type: 'input_image',
				image_url: img.url,
				...(img.detail ? { detail: img.detail } : {}),
			});
		out.push({ role: m.role, content: parts });
	}
	checkImageBounds(images);
	return out;
}

/** The reasoning of a responses answer: its `reasoning` output items (summary texts, or reasoning text content). */
export function responsesReasoningFrom(response: Json | undefined): string | undefined {
	const output = Array.isArray(response?.output) ? (response.output as Json[]) : [];
	const texts: string[] = [];
	for (const o of output) {
		if (!o || o.type !== 'reasoning') continue;
		for (const key of ['summary', 'content']) {
			const parts = Array.isArray(o[key]) ? (o[key] as Json[]) : [];
			for (const p of parts) if (p && typeof p.text === 'string') texts.push(p.text);
		}
	}
	return texts.length ? texts.join('\n') : undefined;
}

export function chatTools(tools: WireTool[]): Json[] {
	return tools.map((t) => ({
		type: 'function',
		function: { name: t.name, description: t.description ?? '', parameters: t.parameters },
	}));
}

export function responsesTools(tools: WireTool[]): Json[] {
	return tools.map((t) => ({
		type: 'function',
		name: t.name,
		description: t.description ?? '',
		parameters: t.parameters,
	}));
}

/**
 * A tool call's arguments as the JSON object text the agent needs, from what gateways send: a JSON string, an
 * empty string or null/undefined (no arguments: `{}`), or an object instead of a string. A string that is not
 * a JSON object is an invalid call (the agent is told, nothing is guessed).
 */
export function repairArguments(
	raw: unknown,
): { ok: true; json: string } | { ok: false; error: string; raw: string } {
	if (raw === undefined || raw === null) return { ok: true, json: '{}' };
	if (typeof raw === 'object' && !Array.isArray(raw))
		return { ok: true, json: JSON.stringify(raw) };
	if (typeof raw !== 'string')
		return {
			ok: false,
			error: `the arguments are a ${Array.isArray(raw) ? 'list' : typeof raw}, not a JSON object`,
			raw: JSON.stringify(raw),
		};
	if (!raw.trim()) return { ok: true, json: '{}' };
	let parsed: unknown;
	try {
		parsed = JSON.parse(raw);
	} catch {
		return { ok: false, error: 'the arguments are not valid JSON', raw };
	}
	if (parsed && typeof parsed === 'object' && !Array.isArray(parsed))
		return { ok: true, json: JSON.stringify(parsed) };
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
		return {
			type: 'invalid-tool-call',
			toolCallId: id,
			name: c.name,
			args: args.raw,
			error: `Tool call ${c.name}: ${args.error}`,
		};
	});
}

/** The package's chat parser keeps `arguments` as text; an object the gateway sent in a plain answer is read from the body. */
export function chatCallsFrom(parsed: ChatToolCall[], body?: Json): RawToolCall[] {
	const message = (((body?.choices as Json[] | undefined)?.[0] ?? {}) as Json).message as
		Json | undefined;
	const rawCalls = Array.isArray(message?.tool_calls) ? (message.tool_calls as Json[]) : [];
	return parsed.map((c, i) => {
		const rawArgs = ((rawCalls[i]?.function ?? {}) as Json).arguments;
		return {
			id: c.id,
			name: c.function.name,
			arguments:
				rawArgs !== undefined && typeof rawArgs !== 'string' ? rawArgs : c.function.arguments,
		};
	});
}

/** Function calls of a responses answer (`output[]` items of type `function_call`). */
export function responsesCallsFrom(response: Json | undefined): RawToolCall[] {
	const output = Array.isArray(response?.output) ? (response.output as Json[]) : [];
	return output
		.filter((o) => o && o.type === 'function_call' && typeof o.name === 'string')
		.map((o) => ({
			id: typeof o.call_id === 'string' ? o.call_id : typeof o.id === 'string' ? o.id : undefined,
			name: o.name as string,
			arguments: o.arguments,
		}));
}

const num = (v: unknown): number | undefined =>
	typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined;

/** The gateway's own counts (chat: prompt/completion tokens; responses: input/output tokens). Undefined when it sent none: never estimated. */
export function usageFrom(u: unknown): TokenUsage | undefined {
	if (!u || typeof u !== 'object') return undefined;
	const x = u as Json;
	const prompt = num(x.prompt_tokens) ?? num(x.input_tokens);
	const completion = num(x.completion_tokens) ?? num(x.output_tokens);
	if (prompt === undefined && completion === undefined) return undefined;
	const usage: TokenUsage = {
		promptTokens: prompt ?? 0,
		completionTokens: completion ?? 0,
		totalTokens: num(x.total_tokens) ?? (prompt ?? 0) + (completion ?? 0),
	};
	const cached = num(
		((x.prompt_tokens_details ?? x.input_tokens_details) as Json | undefined)?.cached_tokens,
	);
	const reasoning = num(
		((x.completion_tokens_details ?? x.output_tokens_details) as Json | undefined)
			?.reasoning_tokens,
	);
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
