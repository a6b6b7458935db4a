/**
 * Spec-shaped answers (gateway-interface.md) for a request, so generated runs reach past the first parse: task
 * objects whose result URLs point back at the result host, b64 images, video tasks, chat and responses answers
 * (JSON or SSE). `variant` picks among the normal forms; a few variants are broken media or odd streams.
 */
import { pricingBody, statusBody } from '../../simulator/catalog/pricing';
import type { Body, KeyForm, LeakPlace, Mutation } from './behaviours';
import {
	IMAGE_VARIANTS,
	VIDEO_VARIANTS,
	type ImageVariant,
	type Media,
	type VideoVariant,
} from './media';

export interface Where {
	origin: string;
	resultOrigin: string;
	item: number;
	taskId?: string;
	family?: 'delta' | 'gamma';
	/** the request's path and parsed JSON body (paid POSTs) */
	path: string;
	request?: Record<string, unknown>;
	keyText: (form: KeyForm) => string;
	media: Media;
	/** a generated form of the key (behaviours.ts `Leak`) and where in the answer it goes */
	leak?: { text: string; place: LeakPlace; cuts: number[] };
	/** the task ID the answer names (a query's answer may name another than the one asked) */
	answerTaskId?: string;
}

/** The key text the plausible answer echoes: the generated form when it goes in the body, else the behaviour's own. */
function keyOf(w: Where, b: Extract<Body, { kind: 'plausible' }>): string {
	if (w.leak && (w.leak.place === 'body' || w.leak.place === 'deltas')) return w.leak.text;
	return b.keyIn ? w.keyText(b.keyIn) : '';
}

/** `text` cut at the generated offsets (each modulo its length), in order, no piece empty. */
export function cutAt(text: string, cuts: number[]): string[] {
	const at = [...new Set(cuts.map((c) => c % (text.length + 1)))]
		.filter((c) => c > 0 && c < text.length)
		.sort((a, b) => a - b);
	return [...at, text.length].map((end, i) => text.slice(i ? at[i - 1] : 0, end));
}

export interface Answer {
	status: number;
	type: string;
	bytes: Buffer;
	/** the JSON value before serialisation (to read the task ID it gives) */
	json?: unknown;
}

const BROKEN_IMAGES = IMAGE_VARIANTS.filter((v) => v !== 'png' && v !== 'jpeg');
const BROKEN_VIDEOS = VIDEO_VARIANTS.filter((v) => v !== 'mp4');
/** variants 0..9 are usable media, 10..15 broken ones */
export const imageOf = (variant: number): ImageVariant =>
	variant < 10
		? variant % 2
			? 'jpeg'
			: 'png'
		: BROKEN_IMAGES[(variant - 10) % BROKEN_IMAGES.length];
export const videoOf = (variant: number): VideoVariant =>
	variant < 10 ? 'mp4' : BROKEN_VIDEOS[(variant - 10) % BROKEN_VIDEOS.length];

const json = (status: number, value: unknown): Answer => ({
	status,
	type: 'application/json',
	bytes: Buffer.from(JSON.stringify(value) ?? 'null'),
	json: value,
});

function mutate(value: unknown, m: Mutation | undefined): unknown {
	if (!m || !value || typeof value !== 'object' || Array.isArray(value)) return value;
	const top = value as Record<string, unknown>;
	if (m.op === 'element') {
		const list = [top.data, top.choices, top.output, top.candidates].find(
			(v) => Array.isArray(v) && v.length,
		) as unknown[] | undefined;
		if (list) list[0] = m.value;
		return value;
	}
	let target = top;
	if (m.nested) {
		const inner = [top.data, top.choices, top.output, top.candidates, top.result].find(
			(v) => v && typeof v === 'object',
		);
		const first = Array.isArray(inner) ? inner[0] : inner;
		if (first && typeof first === 'object' && !Array.isArray(first))
			target = first as Record<string, unknown>;
	}
	const keys = Object.keys(target);
	if (!keys.length) return value;
	const k = keys[m.pick % keys.length];
	if (m.op === 'delete') delete target[k];
	else target[k] = m.value;
	return value;
}

function imageRef(w: Where, variant: number, name: string): Record<string, unknown> {
	if (w.leak?.place === 'result-url') name = w.leak.text;
	else if (variant % 3 === 2)
		return { b64_json: w.media.image(imageOf(variant)).bytes.toString('base64') };
	return {
		url: `${w.resultOrigin}/r/x${w.item}/${name}/0.${imageOf(variant) === 'jpeg' ? 'jpg' : 'png'}`,
	};
}

function sse(events: string[]): Answer {
	return { status: 200, type: 'text/event-stream', bytes: Buffer.from(events.join('')) };
}

/** A long stream of valid deltas that never says it ended (5 MB of text): partial_text must stay bounded. */
const LONG_DELTAS = 5 * 1024 * 1024;

function chatAnswer(w: Where, b: Extract<Body, { kind: 'plausible' }>, key: string): Answer {
	const text = `answer to item-${w.item}${key ? ` your key is ${key}` : ''}`;
	if (w.request?.stream !== true) {
		return json(
			200,
			mutate(
				{
					id: `chatcmpl-${w.item}`,
					object: 'chat.completion',
					model: 'alpha-chat-4o',
					choices: [
						{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' },
					],
					usage: { prompt_tokens: 3, completion_tokens: 5, total_tokens: 8 },
				},
				b.mutation,
			),
		);
	}
	const delta = (s: string) =>
		`data: ${JSON.stringify(mutate({ id: 'c1', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: s } }] }, b.mutation))}\n\n`;
	const words = pieces(w, text).map(delta);
	if (w.leak?.place === 'sse-error')
		return sse([
			...words,
			`event: error\ndata: ${JSON.stringify({ error: { message: `upstream failed: ${w.leak.text}`, code: w.leak.text } })}\n\n`,
		]);
	if (b.variant === 15) {
		const one = delta('x'.repeat(4000));
		return sse(Array.from({ length: Math.ceil(LONG_DELTAS / one.length) }, () => one));
	}
	switch (b.variant % 5) {
		case 3:
			return sse(words);
		case 4:
			return sse([
				...words.slice(0, 2),
				`event: error\ndata: ${JSON.stringify({ error: { message: `upstream failed ${key}` } })}\n\n`,
			]);
		default:
			return sse([
				...words,
				`data: ${JSON.stringify({ id: 'c1', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage: { total_tokens: 8 } })}\n\n`,
				'data: [DONE]\n\n',
			]);
	}
}

/** A stream's text as deltas: word by word, or (a form of the key in it) cut at the generated offsets. */
function pieces(w: Where, text: string): string[] {
	if (w.leak?.place === 'deltas') return cutAt(text, w.leak.cuts);
	return text.split(' ').map((s) => `${s} `);
}

function responsesAnswer(w: Where, b: Extract<Body, { kind: 'plausible' }>, key: string): Answer {
	const text = `answer to item-${w.item}${key ? ` your key is ${key}` : ''}`;
	const response = {
		id: `resp_${w.item}`,
		object: 'response',
		status: 'completed',
		model: 'alpha-chat-4o',
		output: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] }],
		usage: { total_tokens: 8 },
	};
	if (w.request?.stream !== true) return json(200, mutate(response, b.mutation));
	const ev = (name: string, data: unknown) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
	const deltas = pieces(w, text).map((s) =>
		ev(
			'response.output_text.delta',
			mutate({ type: 'response.output_text.delta', delta: s }, b.mutation),
		),
	);
	if (w.leak?.place === 'sse-error')
		return sse([
			...deltas,
			ev('response.failed', {
				type: 'response.failed',
				response: {
					...response,
					status: 'failed',
					error: { message: `model failed: ${w.leak.text}`, code: w.leak.text },
				},
			}),
		]);
	if (b.variant === 15) {
		const one = ev('response.output_text.delta', {
			type: 'response.output_text.delta',
			delta: 'x'.repeat(4000),
		});
		return sse(Array.from({ length: Math.ceil(LONG_DELTAS / one.length) }, () => one));
	}
	switch (b.variant % 5) {
		case 3:
			return sse(deltas);
		case 4:
			return sse([
				...deltas.slice(0, 1),
				ev('response.failed', {
					type: 'response.failed',
					response: { ...response, status: 'failed', error: { message: `model failed ${key}` } },
				}),
			]);
		default:
			return sse([
				ev('response.created', {
					type: 'response.created',
					response: { ...response, status: 'in_progress', output: [] },
				}),
				...deltas,
				ev('response.completed', { type: 'response.completed', response }),
			]);
	}
}

function taskState(
	b: Extract<Body, { kind: 'plausible' }>,
): 'completed' | 'failed' | 'processing' | 'odd' {
	return b.taskState ?? 'completed';
}

/** The plausible answer to a paid POST. */
export function paidAnswer(w: Where, b: Extract<Body, { kind: 'plausible' }>): Answer {
	const key = keyOf(w, b);
	const echo = key ? { echo: { authorization: `Bearer ${key}` } } : {};
	const p = w.path;
	if (p === '/v1/chat/completions') return chatAnswer(w, b, key);
	if (p === '/v1/responses') return responsesAnswer(w, b, key);
	if (p === '/v1/videos') {
		const id = w.taskId!;
		const body =
			w.family === 'gamma'
				? { task_id: id, status: 'queued', ...echo }
				: {
						id,
						object: 'video',
						model: String(w.request?.model ?? ''),
						status: 'queued',
						progress: 0,
						created_at: 1,
						...echo,
					};
		return json(200, mutate(body, b.mutation));
	}
	if (p.includes(':generateContent')) {
		const parts =
			b.variant === 14
				? [{ text: `no image ${key}` }]
				: [
						{ text: 'here' },
						{
							inlineData: {
								mimeType: 'image/png',
								data: w.media.image(imageOf(b.variant)).bytes.toString('base64'),
							},
						},
					];
		return json(
			200,
			mutate(
				{ candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP' }], ...echo },
				b.mutation,
			),
		);
	}
	if (p.endsWith('/async')) {
		const id = w.taskId!;
		const pollAfter = [0, 50, 1000][b.variant % 3];
		return json(
			202,
			mutate(
				{
					task_id: id,
					id,
					object: 'image.generation.task',
					status: 'processing',
					state: 'queued',
					poll_url: `${w.origin}/v1/images/tasks/${id}`,
					poll_after_ms: pollAfter,
					created_at: 1,
					...echo,
				},
				b.mutation,
			),
		);
	}
	// synchronous images: created + data[]
	return json(
		200,
		mutate({ created: 1, data: [imageRef(w, b.variant, `sync-${w.item}`)], ...echo }, b.mutation),
	);
}

/** The plausible answer to a task query (image or video). */
export function queryAnswer(
	w: Where,
	b: Extract<Body, { kind: 'plausible' }>,
	video: boolean,
): Answer {
	const key = keyOf(w, b);
	const id = w.answerTaskId ?? w.taskId!;
	const state = taskState(b);
	const err = { message: `generation failed${key ? ` for ${key}` : ''}` };
	if (video && w.family === 'gamma') {
		const status = {
			completed: 'completed',
			failed: 'failed',
			processing: 'processing',
			odd: 'Exploded',
		}[state];
		const file = w.leak?.place === 'result-url' ? `${w.leak.text}/${id}` : id;
		return json(
			200,
			mutate(
				{
					task_id: id,
					status,
					...(state === 'completed'
						? { result_url: `${w.resultOrigin}/v/x${w.item}/${file}.mp4` }
						: {}),
					...(state === 'failed' ? { fail_reason: err.message } : {}),
				},
				b.mutation,
			),
		);
	}
	if (video) {
		const status = {
			completed: 'completed',
			failed: 'failed',
			processing: 'in_progress',
			odd: 'teleported',
		}[state];
		return json(
			200,
			mutate(
				{
					id,
					object: 'video',
					model: 'delta-video-2-0-mini-260615',
					status,
					progress: state === 'completed' ? 100 : 10,
					...(state === 'completed'
						? { usage: { completion_tokens: 1000, total_tokens: 1000 } }
						: {}),
					...(state === 'failed' ? { error: err } : {}),
				},
				b.mutation,
			),
		);
	}
	const status = {
		completed: 'completed',
		failed: 'failed',
		processing: 'processing',
		odd: 'half-done',
	}[state];
	const data = state === 'completed' ? [imageRef(w, b.variant, id)] : [];
	return json(
		200,
		mutate(
			{
				task_id: id,
				id,
				object: 'image.generation.task',
				status,
				state: state === 'completed' ? 'succeeded' : 'running',
				data,
				poll_after_ms: 0,
				...(state === 'failed' ? { error: err } : {}),
				...(key ? { echo: { authorization: `Bearer ${key}` } } : {}),
			},
			b.mutation,
		),
	);
}

export function metaAnswer(w: Where, b: Extract<Body, { kind: 'plausible' }>): Answer {
	if (w.path.startsWith('/v1/models'))
		return json(
			200,
			mutate(
				{
					object: 'list',
					data: [
						'alpha-image-2.5',
						'beta-3.1-flash-image-preview',
						'alpha-chat-4o',
						'delta-video-2-0-mini-260615',
						'gamma-video-1.5',
					].map((id) => ({ id, object: 'model' })),
				},
				b.mutation,
			),
		);
	// the spec's public price list and site status, as the simulator publishes its default ones (built from the spec):
	// the spend options (Max Expected Spend, Quote Only, Group Name) read them, so runs with those options reach a paid
	// request; the script mutates or replaces them like any other answer
	if (w.path.startsWith('/api/pricing')) return json(200, mutate(pricingBody(), b.mutation));
	if (w.path.startsWith('/api/status')) return json(200, mutate(statusBody(), b.mutation));
	return json(404, { error: { message: 'not found' } });
}
