/**
 * The simulator as a scripted language model (rules in ../llm/rules.ts) for `/v1/chat/completions` and `/v1/responses`,
 * plain and streamed, in OpenAI's public wire format. It takes a request when tools are offered, when the
 * conversation carries tool calls or results, or when a message holds an `[llm:…]` marker; any other request is
 * left to the plain text handlers (text.ts). Every answer is charged once in the ledger and carries `usage`
 * (a chat stream: in its last chunk when `stream_options.include_usage` is true, as OpenAI does).
 * HTTP faults (a 429 with Retry-After, a 500) come from the simulator's generic faults, before this runs.
 */
import { perTokenQuota } from '../catalog/billing';
import { modelById } from '../catalog/models';
import { json, type Answer } from './answer';
import type { Ctx } from './context';
import { argNameOf, argumentsOf, oddPieces, plan, quirksIn, tokensOf, type OfferedTool, type Plan, type Quirk } from '../llm/rules';

type Json = Record<string, unknown>;

function textOf(content: unknown): string {
	if (typeof content === 'string') return content;
	if (Array.isArray(content)) return content.map((p) => (p && typeof (p as Json).text === 'string' ? ((p as Json).text as string) : '')).join('');
	if (content && typeof content === 'object') return JSON.stringify(content);
	return '';
}

function charge(ctx: Ctx, model: string, promptTokens: number, completionTokens: number): void {
	ctx.sim.charge(ctx.key, 'charge', model, perTokenQuota(modelById(model)!, ctx.key.group, promptTokens, completionTokens));
}

/** Chat completions (model and messages already checked). Undefined when the request is not for the scripted model. */
export function scriptedChat(ctx: Ctx, body: Json): Answer | undefined {
	const { sim } = ctx;
	const messages = Array.isArray(body.messages) ? (body.messages as Json[]) : [];
	const rawTools = Array.isArray(body.tools) ? (body.tools as Json[]) : [];
	const conversation = messages.map((m) => textOf(m?.content)).join('\n');
	const hasToolTraffic = messages.some((m) => m?.role === 'tool' || Array.isArray(m?.tool_calls));
	if (!rawTools.length && !hasToolTraffic && !conversation.includes('[llm')) return undefined;
	const tools: OfferedTool[] = rawTools
		.map((t) => (t?.function ?? {}) as Json)
		.filter((f) => typeof f.name === 'string')
		.map((f) => ({ name: f.name as string, argName: argNameOf(f.parameters) }));
	// the tool results since the last user message (a client may send each call as its own assistant turn)
	const lastUserAt = messages.map((m) => m?.role).lastIndexOf('user');
	const since = messages.slice(lastUserAt + 1);
	const toolResults = messages[messages.length - 1]?.role === 'tool' ? since.filter((m) => m?.role === 'tool').map((m) => textOf(m.content)) : undefined;
	const lastUser = textOf([...messages].reverse().find((m) => m?.role === 'user')?.content);
	const quirks = quirksIn(conversation);
	const p = plan({ tools, lastUser, toolResults, ids: () => sim.nextId('call') });

	const model = body.model as string;
	const id = sim.nextId('chatcmpl');
	const created = Math.floor(Date.now() / 1000);
	const promptTokens = tokensOf(messages) + tokensOf(rawTools);
	const completionTokens = p.kind === 'text' ? tokensOf(p.text) : tokensOf(p.calls.map((c) => c.args));
	const usage = { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens };
	charge(ctx, model, promptTokens, completionTokens);
	const finish = p.kind === 'tools' ? 'tool_calls' : 'stop';

	if (body.stream !== true) {
		const message: Json = { role: 'assistant', content: p.kind === 'text' ? p.text : null };
		if (p.kind === 'tools') message.tool_calls = p.calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: argumentsOf(c, quirks) } }));
		const answer: Json = { id, object: 'chat.completion', created, model, choices: [{ index: 0, message, finish_reason: finish }] };
		if (!quirks.has('no-usage')) answer.usage = usage;
		return json(200, answer);
	}
	const chunk = (choices: unknown[], extra: Json = {}) => `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices, ...extra })}\n\n`;
	const delta = (d: Json, finishReason: string | null = null) => chunk([{ index: 0, delta: d, finish_reason: finishReason }]);
	const events = [': keep-alive\n\n', delta({ role: 'assistant', content: p.kind === 'text' ? '' : null })];
	events.push(...chatDeltas(p, quirks, delta));
	events.push(delta({}, finish));
	const include = (body.stream_options as Json | undefined)?.include_usage === true;
	if (include && !quirks.has('no-usage')) events.push(chunk([], { usage }));
	events.push('data: [DONE]\n\n');
	return { kind: 'sse', events };
}

function chatDeltas(p: Plan, quirks: Set<Quirk>, delta: (d: Json) => string): string[] {
	if (p.kind === 'text') return (p.text.match(/\S+\s*/g) ?? [p.text]).map((w) => delta({ content: w }));
	const out: string[] = [];
	if (!quirks.has('odd-split')) {
		p.calls.forEach((c, index) => {
			const args = argumentsOf(c, quirks);
			out.push(delta({ tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.name, arguments: '' } }] }));
			if (typeof args === 'string') {
				const half = Math.ceil(args.length / 2);
				for (const piece of [args.slice(0, half), args.slice(half)]) if (piece) out.push(delta({ tool_calls: [{ index, function: { arguments: piece } }] }));
			} else out.push(delta({ tool_calls: [{ index, function: { arguments: args } }] }));
		});
		return out;
	}
	// odd splits: the id and name first (name itself split in two), then argument pieces of 1-3 characters,
	// the calls' pieces interleaved (call 1's pieces before call 0 has finished), several calls in one delta
	const queues = p.calls.map((c, index) => {
		const args = argumentsOf(c, quirks);
		const half = Math.ceil(c.name.length / 2);
		const first = { index, id: c.id, type: 'function', function: { name: c.name.slice(0, half) } };
		const second = { index, function: { name: c.name.slice(half), arguments: '' } };
		const pieces = typeof args === 'string' ? oddPieces(args).map((a) => ({ index, function: { arguments: a } })) : [{ index, function: { arguments: args } }];
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

/** Responses API (model and input already checked). Undefined when the request is not for the scripted model. */
export function scriptedResponses(ctx: Ctx, body: Json): Answer | undefined {
	const { sim } = ctx;
	const items: InputItem[] = typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : Array.isArray(body.input) ? (body.input as InputItem[]) : [];
	const rawTools = Array.isArray(body.tools) ? (body.tools as Json[]) : [];
	const instructions = typeof body.instructions === 'string' ? body.instructions : '';
	const conversation = [instructions, ...items.map((m) => textOf(m?.content))].join('\n');
	const hasToolTraffic = items.some((m) => m?.type === 'function_call' || m?.type === 'function_call_output');
	if (!rawTools.length && !hasToolTraffic && !conversation.includes('[llm')) return undefined;
	const tools: OfferedTool[] = rawTools.filter((t) => typeof t?.name === 'string').map((t) => ({ name: t.name as string, argName: argNameOf(t.parameters) }));
	const lastUserAt = items.map((m) => m?.role).lastIndexOf('user');
	const since = items.slice(lastUserAt + 1);
	const toolResults = items[items.length - 1]?.type === 'function_call_output' ? since.filter((m) => m?.type === 'function_call_output').map((m) => textOf(m.output)) : undefined;
	const lastUser = textOf([...items].reverse().find((m) => m?.role === 'user')?.content);
	const quirks = quirksIn(conversation);
	const p = plan({ tools, lastUser, toolResults, ids: () => sim.nextId('call') });

	const model = body.model as string;
	const id = sim.nextId('resp');
	const inTok = tokensOf(items) + tokensOf(rawTools) + tokensOf(instructions);
	const outTok = p.kind === 'text' ? tokensOf(p.text) : tokensOf(p.calls.map((c) => c.args));
	const usage = { input_tokens: inTok, output_tokens: outTok, total_tokens: inTok + outTok };
	charge(ctx, model, inTok, outTok);
	const output: Json[] =
		p.kind === 'text'
			? [{ id: sim.nextId('msg'), type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: p.text, annotations: [] }] }]
			: p.calls.map((c) => ({ id: sim.nextId('fc'), type: 'function_call', call_id: c.id, name: c.name, arguments: argumentsOf(c, quirks), status: 'completed' }));
	const full: Json = { id, object: 'response', created_at: Math.floor(Date.now() / 1000), model, status: 'completed', output };
	if (!quirks.has('no-usage')) full.usage = usage;
	if (body.stream !== true) {
		return json(200, full);
	}
	const ev = (name: string, data: Json) => `event: ${name}\ndata: ${JSON.stringify({ type: name, ...data })}\n\n`;
	const events = [ev('response.created', { response: { ...full, status: 'in_progress', output: [], usage: null } })];
	output.forEach((item, index) => {
		if (item.type === 'message') {
			const text = p.kind === 'text' ? p.text : '';
			events.push(ev('response.output_item.added', { output_index: index, item: { ...item, status: 'in_progress', content: [] } }));
			for (const w of text.match(/\S+\s*/g) ?? [text]) events.push(ev('response.output_text.delta', { item_id: item.id, output_index: index, content_index: 0, delta: w }));
			events.push(ev('response.output_text.done', { item_id: item.id, output_index: index, content_index: 0, text }));
		} else {
			events.push(ev('response.output_item.added', { output_index: index, item: { ...item, arguments: '', status: 'in_progress' } }));
			const args = item.arguments;
			const pieces = typeof args === 'string' ? (quirks.has('odd-split') ? oddPieces(args) : [args]) : [JSON.stringify(args)];
			for (const d of pieces) if (d) events.push(ev('response.function_call_arguments.delta', { item_id: item.id, output_index: index, delta: d }));
			events.push(ev('response.function_call_arguments.done', { item_id: item.id, output_index: index, arguments: args }));
		}
		events.push(ev('response.output_item.done', { output_index: index, item }));
	});
	events.push(ev('response.completed', { response: full }));
	return { kind: 'sse', events };
}
