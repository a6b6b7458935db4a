/**
 * The simulator as a scripted language model for `/v1/chat/completions` and `/v1/responses`, plain and streamed, in
 * OpenAI's public wire format. The model's rules are in ../llm/ (tool calls and answers, reasoning, images, schemas,
 * usage); this file reads the request and puts the answer on the wire.
 *
 * It takes a request when tools are offered, when the conversation carries tool calls or results, when a message
 * holds an `[llm:…]` marker, when the model thinks or sees (the catalog's `thinking`/`vision` models), when an
 * image part is sent, or when a JSON answer is asked (`response_format` / `text.format`); any other request is left
 * to the plain text handlers (text.ts). Every answer is charged once in the ledger, from the usage it reports
 * (a chat stream: in its last chunk when `stream_options.include_usage` is true, as OpenAI does).
 * HTTP faults (a 429 with Retry-After, a 500) come from the simulator's generic faults, before this runs; where the
 * stream can leave the happy path (ignored, failing, ending otherwise) it asks the upstream, as the plain handlers do,
 * and honours the same markers (`[nostream]`, `[sse-error]`, `[incomplete]`).
 */
import type { TokenUsage } from '../catalog/billing';
import { imageInputTokens } from '../catalog/billing';
import type { ModelEntry } from '../catalog/models';
import {
	argNameOf,
	argumentsOf,
	oddPieces,
	plan,
	quirksIn,
	tokensOf,
	type OfferedTool,
	type Plan,
	type Quirk,
} from '../llm/rules';
import { instanceOf, invalidAnswer } from '../llm/schema';
import { alteredReasoning, missingReasoning, reasoningFor } from '../llm/thinking';
import { hasDetails, usageMarker, usageOf } from '../llm/usage';
import { describeImages, readImage, type SeenImage } from '../llm/vision';
import { chatChunk, ignoredStream, json, openAiError, responsesEvent, type Answer } from './answer';
import { chargeUsage } from './charges';
import type { Ctx } from './context';

type Json = Record<string, unknown>;

const isObj = (v: unknown): v is Json => !!v && typeof v === 'object' && !Array.isArray(v);

function textOf(content: unknown): string {
	if (typeof content === 'string') return content;
	if (Array.isArray(content))
		return content
			.map((p) => (p && typeof (p as Json).text === 'string' ? ((p as Json).text as string) : ''))
			.join('');
	if (content && typeof content === 'object') return JSON.stringify(content);
	return '';
}

/** Token count of a request's messages, image addresses left out (an image counts by its pixels, not its Base64). */
function textTokensOf(value: unknown): number {
	return tokensOf(JSON.parse(JSON.stringify(value ?? '', (k, v) => (k === 'image_url' ? '' : v))));
}

/** Markers are instructions to the simulator, not words of the question. */
const withoutMarkers = (text: string) => text.replace(/\[llm:[^\]]*\]/g, '');

const refuse = (...a: Parameters<typeof openAiError>) => ({ refusal: openAiError(...a) });

/** What the answer must be: free text, a JSON object, or JSON following a schema. */
type Format =
	| { kind: 'text' }
	| { kind: 'json_object' }
	| { kind: 'json_schema'; name: string; schema: unknown };

const TEXT: Format = { kind: 'text' };

/** The format asked (`response_format` in chat, `text.format` in responses: the schema beside `name` there), or the refusal. */
function formatOf(raw: unknown, param: string, nested: boolean): Format | { refusal: Answer } {
	if (raw === undefined || raw === null) return { kind: 'text' };
	if (!isObj(raw) || typeof raw.type !== 'string')
		return refuse(
			400,
			`Invalid '${param}': expected an object with a type`,
			'invalid_request_error',
		);
	if (raw.type === 'text') return { kind: 'text' };
	if (raw.type === 'json_object') return { kind: 'json_object' };
	if (raw.type !== 'json_schema')
		return refuse(
			400,
			`Invalid '${param}.type': '${raw.type}' (text, json_object or json_schema)`,
			'invalid_request_error',
		);
	const spec = nested ? raw.json_schema : raw;
	const at = nested ? `${param}.json_schema` : param;
	if (!isObj(spec))
		return refuse(400, `Missing required parameter: '${at}'`, 'invalid_request_error');
	if (typeof spec.name !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(spec.name))
		return refuse(
			400,
			`Invalid '${at}.name': 1 to 64 letters, digits, '_' or '-'`,
			'invalid_request_error',
		);
	if (spec.schema !== undefined && !isObj(spec.schema))
		return refuse(
			400,
			`Invalid '${at}.schema': expected a JSON schema object`,
			'invalid_request_error',
		);
	return { kind: 'json_schema', name: spec.name, schema: spec.schema ?? {} };
}

/** An image part of a user message: where it is (for messages) and its address. */
interface ImagePart {
	where: string;
	url: unknown;
	detail?: unknown;
	/** in the last user message (the one the answer is about) */
	last: boolean;
}

/** The conversation as the model reads it, whichever API it came through. */
interface Conversation {
	/** every text of the conversation (instructions included): where markers are looked for */
	all: string;
	lastUser: string;
	tools: OfferedTool[];
	toolResults: string[] | undefined;
	toolTraffic: boolean;
	images: ImagePart[];
	/** assistant turns that answered in text (a schema answer is the conversation's first when there is none) */
	textAnswers: number;
	/** tokens of the conversation's text and tools */
	textTokens: number;
}

/** The model's turn before it is put on the wire. */
interface Turn {
	plan: Plan;
	reasoning?: string;
	usage: TokenUsage;
	quirks: Set<Quirk>;
}

/** Whether the scripted model takes the request (see the header). */
function takes(entry: ModelEntry, c: Conversation, format: Format): boolean {
	return (
		c.tools.length > 0 ||
		c.toolTraffic ||
		c.all.includes('[llm') ||
		!!entry.thinking ||
		!!entry.vision ||
		c.images.length > 0 ||
		format.kind !== 'text'
	);
}

/** `[llm:invalid-first]` / `[llm:invalid-always]`, optionally `=not-json`: the schema answers that fail, and how. */
function invalidMode(all: string, textAnswers: number): 'missing' | 'not-json' | undefined {
	const m = /\[llm:invalid-(first|always)(?:=(missing|not-json))?\]/.exec(all);
	if (!m || (m[1] === 'first' && textAnswers > 0)) return undefined;
	return (m[2] as 'missing' | 'not-json' | undefined) ?? 'missing';
}

/** The model's turn: plan, reasoning, the answer's text in the asked format, usage. A refusal is an Answer. */
async function think(
	ctx: Ctx,
	entry: ModelEntry,
	c: Conversation,
	format: Format,
): Promise<Turn | Answer> {
	const seen: Array<{ part: ImagePart; image: SeenImage }> = [];
	if (c.images.length) {
		if (!entry.vision) {
			return openAiError(
				400,
				`Model ${entry.id} does not accept image input (the image part at ${c.images[0].where}); send images to a vision model`,
				'image_input_not_supported',
				'invalid_request_error',
			);
		}
		for (const part of c.images) {
			const read = await readImage(
				part.url,
				part.where,
				entry.vision.maxImageBytes,
				ctx.sim.imageHosts,
			);
			if (!read.ok) return openAiError(400, read.message, 'invalid_image', 'invalid_request_error');
			seen.push({ part, image: read.image });
		}
	}
	const quirks = quirksIn(c.all);
	let p = plan({
		tools: c.tools,
		lastUser: withoutMarkers(c.lastUser),
		toolResults: c.toolResults,
		ids: () => ctx.sim.nextId('call'),
		anyTool: ctx.sim.opts.specOnlyChat,
	});
	const looked = seen.filter((s) => s.part.last);
	if (p.kind === 'text' && looked.length && !c.toolResults)
		p = { kind: 'text', text: describeImages(looked.map((s) => s.image)) };
	if (p.kind === 'text' && format.kind !== 'text') {
		const instance =
			format.kind === 'json_schema' ? instanceOf(format.schema, p.text) : { answer: p.text };
		const invalid = invalidMode(c.all, c.textAnswers);
		p = {
			kind: 'text',
			text: invalid
				? invalidAnswer(
						format.kind === 'json_schema'
							? format.schema
							: { type: 'object', required: ['answer'] },
						instance,
						invalid,
					)
				: JSON.stringify(instance),
		};
	}
	const reasoning = entry.thinking
		? reasoningFor(p, withoutMarkers(c.lastUser), c.toolResults)
		: undefined;
	const imageTokens = seen.reduce(
		(n, s) => n + (s.part.detail === 'low' ? 85 : imageInputTokens(s.image.width, s.image.height)),
		0,
	);
	const answer = p.kind === 'text' ? tokensOf(p.text) : tokensOf(p.calls.map((x) => x.args));
	const usage = usageOf(
		{
			text: c.textTokens,
			image: imageTokens,
			answer,
			reasoning: reasoning ? tokensOf(reasoning) : 0,
		},
		usageMarker(c.all),
	);
	chargeUsage(ctx, entry, usage);
	return { plan: p, reasoning, usage, quirks };
}

/** Usage as chat completions report it (details only when there are any, as OpenAI-compatible relays do). */
function chatUsage(u: TokenUsage): Json {
	const out: Json = {
		prompt_tokens: u.prompt,
		completion_tokens: u.completion,
		total_tokens: u.prompt + u.completion,
	};
	if (!hasDetails(u)) return out;
	out.prompt_tokens_details = {
		cached_tokens: u.cached ?? 0,
		audio_tokens: u.audio ?? 0,
		...(u.image ? { image_tokens: u.image } : {}),
		...(u.cacheWrite ? { cached_creation_tokens: u.cacheWrite } : {}),
	};
	out.completion_tokens_details = {
		reasoning_tokens: u.reasoning ?? 0,
		audio_tokens: u.audioOut ?? 0,
	};
	return out;
}

/** Usage as responses report it. */
function responsesUsage(u: TokenUsage): Json {
	const out: Json = {
		input_tokens: u.prompt,
		output_tokens: u.completion,
		total_tokens: u.prompt + u.completion,
	};
	if (!hasDetails(u)) return out;
	out.input_tokens_details = {
		cached_tokens: u.cached ?? 0,
		...(u.audio ? { audio_tokens: u.audio } : {}),
		...(u.image ? { image_tokens: u.image } : {}),
		...(u.cacheWrite ? { cached_creation_tokens: u.cacheWrite } : {}),
	};
	out.output_tokens_details = {
		reasoning_tokens: u.reasoning ?? 0,
		...(u.audioOut ? { audio_tokens: u.audioOut } : {}),
	};
	return out;
}

const words = (s: string) => s.match(/\S+\s*/g) ?? [s];

/** The chat conversation: user image parts (`image_url`), the tools, the tool results since the last user message. */
function chatConversation(messages: Json[], rawTools: Json[]): Conversation {
	const images: ImagePart[] = [];
	const lastUserAt = messages.map((m) => m?.role).lastIndexOf('user');
	messages.forEach((m, i) => {
		if (!Array.isArray(m?.content)) return;
		(m.content as unknown[]).forEach((part, j) => {
			if (!isObj(part) || part.type !== 'image_url') return;
			const ref = part.image_url;
			images.push({
				where: `messages[${i}].content[${j}]`,
				url: isObj(ref) ? ref.url : ref,
				detail: isObj(ref) ? ref.detail : undefined,
				last: i === lastUserAt,
			});
		});
	});
	const since = messages.slice(lastUserAt + 1);
	return {
		all: messages.map((m) => textOf(m?.content)).join('\n'),
		lastUser: textOf(messages[lastUserAt]?.content),
		tools: rawTools
			.map((t) => (t?.function ?? {}) as Json)
			.filter((f) => typeof f.name === 'string')
			.map((f) => ({ name: f.name as string, argName: argNameOf(f.parameters) })),
		// the tool results since the last user message (a client may send each call as its own assistant turn)
		toolResults:
			messages[messages.length - 1]?.role === 'tool'
				? since.filter((m) => m?.role === 'tool').map((m) => textOf(m.content))
				: undefined,
		toolTraffic: messages.some((m) => m?.role === 'tool' || Array.isArray(m?.tool_calls)),
		images,
		textAnswers: messages.filter((m) => m?.role === 'assistant' && textOf(m.content).trim() !== '')
			.length,
		textTokens: textTokensOf(messages) + tokensOf(rawTools),
	};
}

/** Chat completions (model and messages already checked). Undefined when the request is not for the scripted model. */
export async function scriptedChat(ctx: Ctx, body: Json): Promise<Answer | undefined> {
	const { sim } = ctx;
	const model = body.model as string;
	const entry = sim.prices.model(model)!;
	const messages = Array.isArray(body.messages) ? (body.messages as Json[]) : [];
	const rawTools = Array.isArray(body.tools) ? (body.tools as Json[]) : [];
	// another gateway that follows the spec only: a field the spec does not define is not read at all
	const format = sim.opts.specOnlyChat
		? TEXT
		: formatOf(body.response_format, 'response_format', true);
	if ('refusal' in format) return format.refusal;
	const c = chatConversation(messages, rawTools);
	if (!takes(entry, c, format)) return undefined;
	// `[llm:no-temperature]`: a model that takes no sampling setting, refused as OpenAI's reasoning models refuse it
	if ('temperature' in body && quirksIn(c.all).has('no-temperature'))
		return openAiError(
			400,
			"Unsupported parameter: 'temperature' is not supported with this model.",
			'unsupported_parameter',
			'invalid_request_error',
		);
	if (entry.thinking) {
		// DeepSeek's thinking mode: an assistant turn that called tools comes back with its reasoning
		const missing = missingReasoning(messages, entry.thinking);
		if (missing !== undefined)
			return openAiError(
				400,
				`Missing ${entry.thinking} field in the assistant message at message index ${missing}`,
				'invalid_request_error',
			);
		const altered = alteredReasoning(messages, entry.thinking, sim.reasoningByCall);
		if (altered !== undefined)
			return openAiError(
				400,
				`The ${entry.thinking} of the assistant message at message index ${altered} is not the reasoning given with its tool calls`,
				'invalid_request_error',
			);
	}
	const turn = await think(ctx, entry, c, format);
	if ('kind' in turn) return turn;
	const { plan: p, reasoning, quirks } = turn;
	const field = entry.thinking ?? 'reasoning_content';
	// a gateway that names no tool call: the client names them (and keeps their reasoning by its own names)
	if (quirks.has('no-ids') && p.kind === 'tools') for (const x of p.calls) x.id = '';
	if (reasoning !== undefined && p.kind === 'tools')
		for (const x of p.calls) if (x.id) sim.reasoningByCall.set(x.id, reasoning);
	// `[llm:no-ids]`: no completion ID either (a gateway that names nothing)
	const id = quirks.has('no-ids') ? undefined : sim.nextId('chatcmpl');
	const created = Math.floor(Date.now() / 1000);
	const usage = chatUsage(turn.usage);
	const finish = p.kind === 'tools' ? 'tool_calls' : 'stop';
	const ignore = ignoredStream(c.all, ctx.upstream);
	const upstreamError = ctx.upstream.streamError();

	if (body.stream !== true || ignore) {
		const label = body.stream === true ? ignore : undefined;
		if (upstreamError !== undefined)
			return openAiError(500, upstreamError, 'upstream_error', 'upstream_error');
		const message: Json = { role: 'assistant', content: p.kind === 'text' ? p.text : null };
		if (reasoning !== undefined) message[field] = reasoning;
		if (p.kind === 'tools')
			message.tool_calls = p.calls.map((x) => ({
				...(x.id ? { id: x.id } : {}),
				type: 'function',
				function: { name: x.name, arguments: argumentsOf(x, quirks) },
			}));
		const answer: Json = {
			id,
			object: 'chat.completion',
			created,
			model,
			choices: [{ index: 0, message, finish_reason: finish }],
		};
		if (!quirks.has('no-usage')) answer.usage = usage;
		return json(200, answer, label);
	}
	const meta = { id, created, model };
	const chunk = (choices: unknown[], extra: Json = {}) => chatChunk(meta, choices, extra);
	const delta = (d: Json, finishReason: string | null = null) =>
		chunk([{ index: 0, delta: d, finish_reason: finishReason }]);
	const events = [': keep-alive\n\n'];
	if (reasoning !== undefined) {
		// reasoning first, in its own deltas, then the answer
		events.push(delta({ role: 'assistant', content: null, [field]: '' }));
		for (const w of words(reasoning)) events.push(delta({ content: null, [field]: w }));
	} else events.push(delta({ role: 'assistant', content: p.kind === 'text' ? '' : null }));
	events.push(...chatDeltas(p, quirks, delta));
	if (upstreamError !== undefined || c.all.includes('[sse-error]') || ctx.upstream.streamFails()) {
		events.push(
			`data: ${JSON.stringify({ error: { message: upstreamError ?? 'upstream stream failed', type: 'upstream_error', code: 'stream_error' } })}\n\n`,
		);
	} else {
		events.push(delta({}, finish));
		const include = (body.stream_options as Json | undefined)?.include_usage === true;
		if (include && !quirks.has('no-usage')) events.push(chunk([], { usage }));
		events.push('data: [DONE]\n\n');
	}
	return {
		kind: 'sse',
		events,
		about: { kind: 'chat', ...meta, id: id ?? '', prompt: c.lastUser },
	};
}

function chatDeltas(p: Plan, quirks: Set<Quirk>, delta: (d: Json) => string): string[] {
	if (p.kind === 'text')
		return (p.text.match(/\S+\s*/g) ?? [p.text]).map((w) => delta({ content: w }));
	const out: string[] = [];
	if (!quirks.has('odd-split')) {
		p.calls.forEach((c, index) => {
			const args = argumentsOf(c, quirks);
			out.push(
				delta({
					tool_calls: [
						{
							index,
							...(c.id ? { id: c.id } : {}),
							type: 'function',
							function: { name: c.name, arguments: '' },
						},
					],
				}),
			);
			if (typeof args === 'string') {
				const half = Math.ceil(args.length / 2);
				for (const piece of [args.slice(0, half), args.slice(half)])
					if (piece) out.push(delta({ tool_calls: [{ index, function: { arguments: piece } }] }));
			} else out.push(delta({ tool_calls: [{ index, function: { arguments: args } }] }));
		});
		return out;
	}
	// odd splits: the id and name first (name itself split in two), then argument pieces of 1-3 characters,
	// the calls' pieces interleaved (call 1's pieces before call 0 has finished), several calls in one delta
	const queues = p.calls.map((c, index) => {
		const args = argumentsOf(c, quirks);
		const half = Math.ceil(c.name.length / 2);
		const first = {
			index,
			...(c.id ? { id: c.id } : {}),
			type: 'function',
			function: { name: c.name.slice(0, half) },
		};
		const second = { index, function: { name: c.name.slice(half), arguments: '' } };
		const pieces =
			typeof args === 'string'
				? oddPieces(args).map((a) => ({ index, function: { arguments: a } }))
				: [{ index, function: { arguments: args } }];
		return [first, second, ...pieces];
	});
	// a name split in two must be joined: deltas only ever add to a name that is not complete
	for (let round = 0; queues.some((q) => q.length); round++) {
		const batch = queues.map((q) => q.shift()).filter((x) => x !== undefined);
		if (round % 2 === 0) out.push(delta({ tool_calls: batch }));
		else for (const b of batch.reverse()) out.push(delta({ tool_calls: [b] }));
	}
	return out;
}

interface InputItem {
	type?: string;
	role?: string;
	content?: unknown;
	output?: unknown;
}

/** The responses conversation: `input_image` parts of user items, the tools, the function results since the last user item. */
function responsesConversation(
	items: InputItem[],
	rawTools: Json[],
	instructions: string,
): Conversation | Answer {
	const images: ImagePart[] = [];
	const lastUserAt = items.map((m) => m?.role).lastIndexOf('user');
	for (const [i, m] of items.entries()) {
		if (!Array.isArray(m?.content)) continue;
		for (const [j, part] of (m.content as unknown[]).entries()) {
			if (!isObj(part) || part.type !== 'input_image') continue;
			const where = `input[${i}].content[${j}]`;
			if (part.image_url === undefined && part.file_id !== undefined)
				return openAiError(
					400,
					`The image part at ${where} names a file_id; the simulator has no files API: send an image_url`,
					'invalid_image',
					'invalid_request_error',
				);
			const ref = part.image_url;
			images.push({
				where,
				url: isObj(ref) ? ref.url : ref,
				detail: part.detail,
				last: i === lastUserAt,
			});
		}
	}
	const since = items.slice(lastUserAt + 1);
	return {
		all: [instructions, ...items.map((m) => textOf(m?.content))].join('\n'),
		lastUser: textOf(items[lastUserAt]?.content),
		tools: rawTools
			.filter((t) => typeof t?.name === 'string')
			.map((t) => ({ name: t.name as string, argName: argNameOf(t.parameters) })),
		toolResults:
			items[items.length - 1]?.type === 'function_call_output'
				? since.filter((m) => m?.type === 'function_call_output').map((m) => textOf(m.output))
				: undefined,
		toolTraffic: items.some(
			(m) => m?.type === 'function_call' || m?.type === 'function_call_output',
		),
		images,
		textAnswers: items.filter((m) => m?.role === 'assistant' && textOf(m.content).trim() !== '')
			.length,
		textTokens: textTokensOf(items) + tokensOf(rawTools) + tokensOf(instructions),
	};
}

/** Responses API (model and input already checked). Undefined when the request is not for the scripted model. */
export async function scriptedResponses(ctx: Ctx, body: Json): Promise<Answer | undefined> {
	const { sim } = ctx;
	const model = body.model as string;
	const entry = sim.prices.model(model)!;
	const items: InputItem[] =
		typeof body.input === 'string'
			? [{ role: 'user', content: body.input }]
			: Array.isArray(body.input)
				? (body.input as InputItem[])
				: [];
	const rawTools = Array.isArray(body.tools) ? (body.tools as Json[]) : [];
	const instructions = typeof body.instructions === 'string' ? body.instructions : '';
	const format = ctx.sim.opts.specOnlyChat
		? TEXT
		: formatOf(isObj(body.text) ? body.text.format : undefined, 'text.format', false);
	if ('refusal' in format) return format.refusal;
	const c = responsesConversation(items, rawTools, instructions);
	if ('kind' in c) return c;
	if (!takes(entry, c, format)) return undefined;
	const turn = await think(ctx, entry, c, format);
	if ('kind' in turn) return turn;
	const { plan: p, reasoning, quirks } = turn;
	const id = sim.nextId('resp');
	const output: Json[] =
		p.kind === 'text'
			? [
					{
						id: sim.nextId('msg'),
						type: 'message',
						role: 'assistant',
						status: 'completed',
						content: [{ type: 'output_text', text: p.text, annotations: [] }],
					},
				]
			: p.calls.map((x) => ({
					id: sim.nextId('fc'),
					type: 'function_call',
					call_id: x.id,
					name: x.name,
					arguments: argumentsOf(x, quirks),
					status: 'completed',
				}));
	if (reasoning !== undefined)
		output.unshift({
			id: sim.nextId('rs'),
			type: 'reasoning',
			summary: [{ type: 'summary_text', text: reasoning }],
		});
	const full: Json = {
		id,
		object: 'response',
		created_at: Math.floor(Date.now() / 1000),
		model,
		status: 'completed',
		output,
	};
	if (!quirks.has('no-usage')) full.usage = responsesUsage(turn.usage);
	const ignore = ignoredStream(c.all, ctx.upstream);
	const upstreamError = ctx.upstream.streamError();
	if (body.stream !== true || ignore) {
		const label = body.stream === true ? ignore : undefined;
		if (upstreamError !== undefined)
			return openAiError(500, upstreamError, 'upstream_error', 'upstream_error');
		return json(200, full, label);
	}
	const ev = responsesEvent;
	const events = [
		ev('response.created', {
			response: { ...full, status: 'in_progress', output: [], usage: null },
		}),
	];
	output.forEach((item, index) => {
		if (item.type === 'reasoning') {
			const text = reasoning ?? '';
			const at = { item_id: item.id, output_index: index, summary_index: 0 };
			events.push(
				ev('response.output_item.added', { output_index: index, item: { ...item, summary: [] } }),
			);
			events.push(
				ev('response.reasoning_summary_part.added', {
					...at,
					part: { type: 'summary_text', text: '' },
				}),
			);
			for (const w of words(text))
				events.push(ev('response.reasoning_summary_text.delta', { ...at, delta: w }));
			events.push(ev('response.reasoning_summary_text.done', { ...at, text }));
			events.push(
				ev('response.reasoning_summary_part.done', { ...at, part: { type: 'summary_text', text } }),
			);
		} else if (item.type === 'message') {
			const text = p.kind === 'text' ? p.text : '';
			events.push(
				ev('response.output_item.added', {
					output_index: index,
					item: { ...item, status: 'in_progress', content: [] },
				}),
			);
			for (const w of words(text))
				events.push(
					ev('response.output_text.delta', {
						item_id: item.id,
						output_index: index,
						content_index: 0,
						delta: w,
					}),
				);
			events.push(
				ev('response.output_text.done', {
					item_id: item.id,
					output_index: index,
					content_index: 0,
					text,
				}),
			);
		} else {
			events.push(
				ev('response.output_item.added', {
					output_index: index,
					item: { ...item, arguments: '', status: 'in_progress' },
				}),
			);
			const args = item.arguments;
			const pieces =
				typeof args === 'string'
					? quirks.has('odd-split')
						? oddPieces(args)
						: [args]
					: [JSON.stringify(args)];
			for (const d of pieces)
				if (d)
					events.push(
						ev('response.function_call_arguments.delta', {
							item_id: item.id,
							output_index: index,
							delta: d,
						}),
					);
			events.push(
				ev('response.function_call_arguments.done', {
					item_id: item.id,
					output_index: index,
					arguments: args,
				}),
			);
		}
		events.push(ev('response.output_item.done', { output_index: index, item }));
	});
	if (upstreamError !== undefined || c.all.includes('[sse-error]') || ctx.upstream.streamFails()) {
		// the error replaces the end: the last item's done event is the last thing before it
		events.push(
			ev('error', { message: upstreamError ?? 'upstream stream failed', code: 'stream_error' }),
		);
	} else {
		const final = ctx.upstream.finalEvent();
		const incomplete = c.all.includes('[incomplete]');
		if (final) events.push(ev(final.name, { response: { ...full, ...final.response } }));
		else
			events.push(
				ev(incomplete ? 'response.incomplete' : 'response.completed', {
					response: incomplete
						? { ...full, status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } }
						: full,
				}),
			);
	}
	const last = output[output.length - 1];
	return {
		kind: 'sse',
		events,
		about: { kind: 'responses', full, item: last, msgId: String(last.id), prompt: c.lastUser },
	};
}
