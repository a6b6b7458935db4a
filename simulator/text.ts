/** `/v1/chat/completions` and `/v1/responses`, plain JSON and SSE. */
import type { ServerResponse } from 'node:http';
import { modelById, perTokenQuota } from './catalog';
import type { FaultSpec } from './faults';
import { endlessDeltas, endlessLine, stalledStream } from './hostile-streams';
import { openAiError, sendJson } from './http';
import { leakedKeyText, type ImageCtx } from './images';
import { scriptedChat, scriptedResponses } from './llm/scripted';

/** Index of the tool-call delta (chat) and output item (responses) under `huge-index`. */
const HUGE_INDEX = 100_000_000;

/** Takes the stream faults of a request: one that replaces the stream, and whether the error event leaks the key. */
function streamFaults(ctx: ImageCtx): { hostile?: FaultSpec; echo: boolean } {
	const { sim, req } = ctx;
	const hostile = sim.faults.take(req.method, req.path, ['sse-stall', 'sse-endless-line', 'sse-endless-deltas', 'huge-index']);
	const echo = !!sim.faults.take(req.method, req.path, ['echo-key'], (x) => x.where === 'stream-error');
	return { hostile, echo };
}

/** Streams that never finish; true when the fault was one of them. */
async function neverEnding(ctx: ImageCtx, f: FaultSpec | undefined): Promise<boolean> {
	if (f?.kind === 'sse-stall') await stalledStream(ctx.req.res, f.intervalMs ?? 500);
	else if (f?.kind === 'sse-endless-line') await endlessLine(ctx.req.res, f.intervalMs ?? 0);
	else if (f?.kind === 'sse-endless-deltas') await endlessDeltas(ctx.req.res);
	else return false;
	return true;
}

function answerFor(input: string): string {
	const text = input.replace(/\[[a-z-]+\]/g, '').trim();
	return `Simulated answer: ${text.slice(0, 200) || 'hello'} — with a little ünïcödé ✓ and more words to stream.`;
}

function splitWords(s: string): string[] {
	return s.match(/\S+\s*/g) ?? [s];
}

/** Writes SSE text, optionally in small random pieces with keep-alive comments, optionally cut mid-way. */
async function writeSse(res: ServerResponse, events: string[], opts: { split?: boolean; cut?: boolean; seed: number }): Promise<void> {
	res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
	let all = events.map((e) => ({ text: e }));
	if (opts.cut) {
		const total = events.join('').length;
		let kept = 0;
		const cutAt = Math.floor(total / 2);
		all = all.flatMap((e) => {
			if (kept >= cutAt) return [];
			const piece = e.text.slice(0, cutAt - kept);
			kept += e.text.length;
			return [{ text: piece }];
		});
	}
	let rnd = opts.seed;
	for (const e of all) {
		if (!opts.split) {
			res.write(e.text);
			continue;
		}
		// tiny pieces at arbitrary byte boundaries; keep-alive comments only between events
		const bytes = Buffer.from(e.text, 'utf8');
		let i = 0;
		while (i < bytes.length) {
			rnd = (rnd * 1103515245 + 12345) >>> 0;
			const n = 1 + (rnd % 7);
			res.write(bytes.subarray(i, i + n));
			i += n;
			if (rnd % 3 === 0) await new Promise((r) => setImmediate(r));
		}
		if (rnd % 2 === 0) res.write(': PING\n\n');
	}
	if (opts.cut) {
		// let the first half reach the client, then drop the connection
		await new Promise((r) => setTimeout(r, 30));
		return void res.socket?.destroy();
	}
	res.end();
}

function checkLanguageModel(ctx: ImageCtx, model: unknown): model is string {
	if (typeof model !== 'string' || !model) {
		openAiError(ctx.req.res, 400, "Missing required parameter: 'model'", 'invalid_request_error');
		return false;
	}
	ctx.log.model = model;
	if (!ctx.checkModel(model)) return false;
	if (modelById(model)!.kind !== 'language') {
		openAiError(ctx.req.res, 400, `Model ${model} is not a language model`, 'invalid_request_error');
		return false;
	}
	return true;
}

export async function handleChat(ctx: ImageCtx): Promise<void> {
	const { sim, req, key } = ctx;
	const body = (req.json ?? {}) as Record<string, unknown>;
	if (await scriptedChat(ctx)) return;
	if (!checkLanguageModel(ctx, body.model)) return;
	const messages = body.messages;
	if (!Array.isArray(messages) || !messages.length) return openAiError(req.res, 400, "'messages' must be a non-empty array", 'invalid_request_error');
	for (const [i, m] of messages.entries()) {
		const msg = m as Record<string, unknown>;
		if (!msg || typeof msg.role !== 'string' || !['system', 'user', 'assistant', 'tool', 'developer'].includes(msg.role)) return openAiError(req.res, 400, `messages[${i}].role is invalid`, 'invalid_request_error');
	}
	const last = String((messages[messages.length - 1] as Record<string, unknown>).content ?? '');
	const answer = answerFor(last);
	const promptTokens = Math.ceil(JSON.stringify(messages).length / 4);
	const completionTokens = Math.ceil(answer.length / 4);
	const usage = { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens };
	const id = sim.nextId('chatcmpl');
	const created = Math.floor(Date.now() / 1000);
	sim.charge(key, 'charge', body.model as string, perTokenQuota(modelById(body.model as string)!, key.group, promptTokens, completionTokens));
	await new Promise((r) => setTimeout(r, sim.opts.syncLatencyMs));
	const ignore = last.includes('[nostream]') || sim.faults.take(req.method, req.path, ['ignore-stream']);
	const { hostile, echo } = streamFaults(ctx);
	if (body.stream !== true || ignore) {
		if (echo) return openAiError(req.res, 500, leakedKeyText(req), 'upstream_error', 'upstream_error');
		return sendJson(req.res, 200, { id, object: 'chat.completion', created, model: body.model, choices: [{ index: 0, message: { role: 'assistant', content: answer }, finish_reason: 'stop' }], usage });
	}
	if (await neverEnding(ctx, hostile)) return;
	const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) => `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: body.model, choices, ...extra })}\n\n`;
	if (hostile?.kind === 'huge-index') {
		const call = { index: HUGE_INDEX, id: 'call_1', type: 'function', function: { name: 'f', arguments: '{}' } };
		const events = [chunk([{ index: 0, delta: { tool_calls: [call] }, finish_reason: null }]), chunk([{ index: 0, delta: {}, finish_reason: 'tool_calls' }]), 'data: [DONE]\n\n'];
		return writeSse(req.res, events, { seed: sim.sequence });
	}
	const events = [chunk([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }])];
	for (const w of splitWords(answer)) events.push(chunk([{ index: 0, delta: { content: w }, finish_reason: null }]));
	if (echo || last.includes('[sse-error]') || sim.faults.take(req.method, req.path, ['sse-error'])) {
		events.push(`data: ${JSON.stringify({ error: { message: echo ? leakedKeyText(req) : 'upstream stream failed', type: 'upstream_error', code: 'stream_error' } })}\n\n`);
	} else {
		events.push(chunk([{ index: 0, delta: {}, finish_reason: 'stop' }]));
		events.push(chunk([], { usage }));
		events.push('data: [DONE]\n\n');
	}
	const split = last.includes('[split]') || !!sim.faults.take(req.method, req.path, ['sse-split']);
	const cut = last.includes('[cut]') || !!sim.faults.take(req.method, req.path, ['sse-cut']);
	await writeSse(req.res, [': PING\n\n', ...events], { split, cut, seed: sim.sequence });
}

export async function handleResponses(ctx: ImageCtx): Promise<void> {
	const { sim, req, key } = ctx;
	const body = (req.json ?? {}) as Record<string, unknown>;
	if (await scriptedResponses(ctx)) return;
	if (!checkLanguageModel(ctx, body.model)) return;
	const input = body.input;
	const inputText = typeof input === 'string' ? input : Array.isArray(input) ? JSON.stringify(input) : '';
	if (!inputText.trim()) return openAiError(req.res, 400, "'input' must be a non-empty string or array", 'invalid_request_error');
	const answer = answerFor(inputText);
	const inTok = Math.ceil(inputText.length / 4);
	const outTok = Math.ceil(answer.length / 4);
	const usage = { input_tokens: inTok, output_tokens: outTok, total_tokens: inTok + outTok };
	const id = sim.nextId('resp');
	const msgId = sim.nextId('msg');
	sim.charge(key, 'charge', body.model as string, perTokenQuota(modelById(body.model as string)!, key.group, inTok, outTok));
	await new Promise((r) => setTimeout(r, sim.opts.syncLatencyMs));
	const item = { id: msgId, type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: answer, annotations: [] }] };
	const full = { id, object: 'response', created_at: Math.floor(Date.now() / 1000), model: body.model, status: 'completed', output: [{ id: sim.nextId('rs'), type: 'reasoning', summary: [] }, item], usage };
	const ignore = inputText.includes('[nostream]') || sim.faults.take(req.method, req.path, ['ignore-stream']);
	const { hostile, echo } = streamFaults(ctx);
	if (body.stream !== true || ignore) {
		if (echo) return openAiError(req.res, 500, leakedKeyText(req), 'upstream_error', 'upstream_error');
		return sendJson(req.res, 200, full);
	}
	if (await neverEnding(ctx, hostile)) return;
	const ev = (name: string, data: Record<string, unknown>) => `event: ${name}\ndata: ${JSON.stringify({ type: name, ...data })}\n\n`;
	const events = [ev('response.created', { response: { ...full, status: 'in_progress', output: [], usage: null } })];
	if (hostile?.kind === 'huge-index') {
		events.push(ev('response.output_item.added', { output_index: HUGE_INDEX, item: { ...item, status: 'in_progress', content: [] } }));
		events.push(ev('response.output_text.delta', { item_id: msgId, output_index: HUGE_INDEX, content_index: 0, delta: 'x' }));
		events.push(ev('response.completed', { response: full }));
		return writeSse(req.res, events, { seed: sim.sequence });
	}
	events.push(ev('response.output_item.added', { output_index: 1, item: { ...item, status: 'in_progress', content: [] } }));
	for (const w of splitWords(answer)) events.push(ev('response.output_text.delta', { item_id: msgId, output_index: 1, content_index: 0, delta: w }));
	if (echo || inputText.includes('[sse-error]') || sim.faults.take(req.method, req.path, ['sse-error'])) {
		events.push(ev('error', { message: echo ? leakedKeyText(req) : 'upstream stream failed', code: 'stream_error' }));
	} else {
		events.push(ev('response.output_text.done', { item_id: msgId, output_index: 1, content_index: 0, text: answer }));
		events.push(ev('response.output_item.done', { output_index: 1, item }));
		const renamed = sim.faults.take(req.method, req.path, ['sse-final-event']);
		if (renamed) events.push(ev(typeof renamed.value === 'string' ? renamed.value : 'response.done', { response: { ...full, ...(renamed.body && typeof renamed.body === 'object' ? renamed.body : {}) } }));
		else events.push(ev(inputText.includes('[incomplete]') ? 'response.incomplete' : 'response.completed', { response: inputText.includes('[incomplete]') ? { ...full, status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } } : full }));
	}
	const split = inputText.includes('[split]') || !!sim.faults.take(req.method, req.path, ['sse-split']);
	const cut = inputText.includes('[cut]') || !!sim.faults.take(req.method, req.path, ['sse-cut']);
	await writeSse(req.res, events, { split, cut, seed: sim.sequence });
}
