/** `/v1/chat/completions` and `/v1/responses`, plain JSON and SSE. */
import { scriptedChat, scriptedResponses } from './scripted';
import { chatChunk, ignoredStream, json, openAiError, responsesEvent, type Answer } from './answer';
import { chargeUsage } from './charges';
import type { Ctx } from './context';

function answerFor(input: string): string {
	const text = input.replace(/\[[a-z-]+\]/g, '').trim();
	return `Simulated answer: ${text.slice(0, 200) || 'hello'} — with a little ünïcödé ✓ and more words to stream.`;
}

function splitWords(s: string): string[] {
	return s.match(/\S+\s*/g) ?? [s];
}

type Body = Record<string, unknown>;

/** A request to a language model: the model's refusal, or `answer` of its JSON body. */
export function withLanguageModel(
	ctx: Ctx,
	answer: (ctx: Ctx, body: Body) => Promise<Answer>,
): Answer | Promise<Answer> {
	const body = (ctx.req.json ?? {}) as Body;
	const model = ctx.model(body.model);
	if (typeof model !== 'string') return model;
	if (ctx.sim.prices.model(model)!.kind !== 'language')
		return openAiError(400, `Model ${model} is not a language model`, 'invalid_request_error');
	return answer(ctx, body);
}

export async function chatCompletions(ctx: Ctx, body: Body): Promise<Answer> {
	const { sim } = ctx;
	const messages = body.messages;
	if (!Array.isArray(messages) || !messages.length)
		return openAiError(400, "'messages' must be a non-empty array", 'invalid_request_error');
	for (const [i, m] of messages.entries()) {
		const msg = m as Record<string, unknown>;
		if (
			!msg ||
			typeof msg.role !== 'string' ||
			!['system', 'user', 'assistant', 'tool', 'developer'].includes(msg.role)
		)
			return openAiError(400, `messages[${i}].role is invalid`, 'invalid_request_error');
	}
	const scripted = await scriptedChat(ctx, body);
	if (scripted) return scripted;
	const last = String((messages[messages.length - 1] as Record<string, unknown>).content ?? '');
	const answer = answerFor(last);
	const promptTokens = Math.ceil(JSON.stringify(messages).length / 4);
	const completionTokens = Math.ceil(answer.length / 4);
	const usage = {
		prompt_tokens: promptTokens,
		completion_tokens: completionTokens,
		total_tokens: promptTokens + completionTokens,
	};
	const id = sim.nextId('chatcmpl');
	const created = Math.floor(Date.now() / 1000);
	chargeUsage(ctx, sim.prices.model(body.model as string)!, {
		prompt: promptTokens,
		completion: completionTokens,
	});
	await new Promise((r) => setTimeout(r, sim.opts.syncLatencyMs));
	const ignore = ignoredStream(last, ctx.upstream);
	const upstreamError = ctx.upstream.streamError();
	if (body.stream !== true || ignore) {
		const label = body.stream === true ? ignore : undefined;
		if (upstreamError !== undefined)
			return openAiError(500, upstreamError, 'upstream_error', 'upstream_error');
		return json(
			200,
			{
				id,
				object: 'chat.completion',
				created,
				model: body.model,
				choices: [
					{ index: 0, message: { role: 'assistant', content: answer }, finish_reason: 'stop' },
				],
				usage,
			},
			label,
		);
	}
	const meta = { id, created, model: body.model };
	const events = [
		': PING\n\n',
		chatChunk(meta, [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]),
	];
	for (const w of splitWords(answer))
		events.push(chatChunk(meta, [{ index: 0, delta: { content: w }, finish_reason: null }]));
	if (upstreamError !== undefined || last.includes('[sse-error]') || ctx.upstream.streamFails()) {
		events.push(
			`data: ${JSON.stringify({ error: { message: upstreamError ?? 'upstream stream failed', type: 'upstream_error', code: 'stream_error' } })}\n\n`,
		);
	} else {
		events.push(chatChunk(meta, [{ index: 0, delta: {}, finish_reason: 'stop' }]));
		events.push(chatChunk(meta, [], { usage }));
		events.push('data: [DONE]\n\n');
	}
	return { kind: 'sse', events, about: { kind: 'chat', ...meta, prompt: last } };
}

export async function responses(ctx: Ctx, body: Body): Promise<Answer> {
	const { sim } = ctx;
	const input = body.input;
	const inputText =
		typeof input === 'string' ? input : Array.isArray(input) ? JSON.stringify(input) : '';
	if (!inputText.trim())
		return openAiError(400, "'input' must be a non-empty string or array", 'invalid_request_error');
	const scripted = await scriptedResponses(ctx, body);
	if (scripted) return scripted;
	const answer = answerFor(inputText);
	const inTok = Math.ceil(inputText.length / 4);
	const outTok = Math.ceil(answer.length / 4);
	const usage = { input_tokens: inTok, output_tokens: outTok, total_tokens: inTok + outTok };
	const id = sim.nextId('resp');
	const msgId = sim.nextId('msg');
	chargeUsage(ctx, sim.prices.model(body.model as string)!, { prompt: inTok, completion: outTok });
	await new Promise((r) => setTimeout(r, sim.opts.syncLatencyMs));
	const item = {
		id: msgId,
		type: 'message',
		role: 'assistant',
		status: 'completed',
		content: [{ type: 'output_text', text: answer, annotations: [] }],
	};
	const full = {
		id,
		object: 'response',
		created_at: Math.floor(Date.now() / 1000),
		model: body.model,
		status: 'completed',
		output: [{ id: sim.nextId('rs'), type: 'reasoning', summary: [] }, item],
		usage,
	};
	const ignore = ignoredStream(inputText, ctx.upstream);
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
	events.push(
		ev('response.output_item.added', {
			output_index: 1,
			item: { ...item, status: 'in_progress', content: [] },
		}),
	);
	for (const w of splitWords(answer))
		events.push(
			ev('response.output_text.delta', {
				item_id: msgId,
				output_index: 1,
				content_index: 0,
				delta: w,
			}),
		);
	if (
		upstreamError !== undefined ||
		inputText.includes('[sse-error]') ||
		ctx.upstream.streamFails()
	) {
		events.push(
			ev('error', { message: upstreamError ?? 'upstream stream failed', code: 'stream_error' }),
		);
	} else {
		events.push(
			ev('response.output_text.done', {
				item_id: msgId,
				output_index: 1,
				content_index: 0,
				text: answer,
			}),
		);
		events.push(ev('response.output_item.done', { output_index: 1, item }));
		const final = ctx.upstream.finalEvent();
		if (final) events.push(ev(final.name, { response: { ...full, ...final.response } }));
		else
			events.push(
				ev(inputText.includes('[incomplete]') ? 'response.incomplete' : 'response.completed', {
					response: inputText.includes('[incomplete]')
						? { ...full, status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } }
						: full,
				}),
			);
	}
	return {
		kind: 'sse',
		events,
		about: { kind: 'responses', full, item, msgId, prompt: inputText },
	};
}
