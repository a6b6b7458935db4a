/** Image endpoints: the six async submission forms, synchronous calls, edits. */
import { imageSize } from 'image-size';
import { publicUrlRefusal } from '../catalog/addresses';
import { imageInputTokens, type TokenUsage } from '../catalog/billing';
import type { ImageFormat } from '../media/images';
import { resultImageBuffer } from '../media/padding';
import { resolveSize } from '../catalog/sizes';
import type { ImageOutcome, ImageTask, SimState } from '../state';
import { DROP, json, openAiError, type Answer } from './answer';
import { billingNow, chargePerCall, chargeTokens } from './charges';
import type { Ctx, Req } from './context';
import { imageTaskBody, resultExt } from './image-tasks';

const MAX_REF_BYTES = 25 * 1024 * 1024;
/** Output tokens a token-billed image model reports per image. */
const IMAGE_OUTPUT_TOKENS = 1290;
const REF_TYPES = new Set(['png', 'jpg', 'webp', 'bmp']);

function formatFor(sim: SimState, model: string, seed: number): ImageFormat {
	if (sim.opts.imageFormat) return sim.opts.imageFormat;
	if (model.startsWith('beta-')) return seed % 3 === 0 ? 'webp' : seed % 3 === 1 ? 'jpeg' : 'png';
	return model.startsWith('alpha-image-2.5') ? 'png' : seed % 2 ? 'jpeg' : 'png';
}

/** Reads model/prompt/size/n/... from JSON or multipart alike. */
function fields(req: Req): Record<string, unknown> {
	if (req.form) {
		const o: Record<string, unknown> = {};
		for (const [k, v] of req.form.entries()) if (typeof v === 'string' && !(k in o)) o[k] = v;
		return o;
	}
	return req.json && typeof req.json === 'object' ? (req.json as Record<string, unknown>) : {};
}

type Mode = 'async-202' | 'async-200' | 'sync';

function modeOf(req: Req): Mode {
	const p = req.path;
	if (p.endsWith('/async') || p.startsWith('/v1/image-tasks/')) return 'async-202';
	const f = fields(req);
	const bg = req.form ? req.form.get('background') : f.background;
	if (bg === true || (req.form && bg === 'true')) return 'async-200';
	if (f.task_type === 'async') return 'async-200';
	if (/respond-async/i.test(String(req.headers.prefer ?? ''))) return 'async-200';
	return 'sync';
}

/** A public reference address the gateway reads: its size is not known here; it counts as a 1024 square. */
const URL_REFERENCE_TOKENS = imageInputTokens(1024, 1024);

/** Validates reference images of an edit; returns an error message, or the count and the input tokens they make. */
async function checkReferences(
	ctx: Ctx,
	model: string,
): Promise<{ error?: string; count: number; tokens?: number }> {
	const { req } = ctx;
	const beta = model.startsWith('beta-');
	if (req.form) {
		const files = [...req.form.getAll('image'), ...req.form.getAll('image[]')].filter(
			(v): v is File => typeof v !== 'string',
		);
		if (!files.length)
			return { error: "Missing required field 'image' (multipart file)", count: 0 };
		if (!beta && files.length > 1)
			return { error: `${model} accepts a single reference image`, count: 0 };
		let tokens = 0;
		for (const f of files) {
			if (f.size > MAX_REF_BYTES)
				return { error: `Reference image ${f.name || ''} is larger than 25 MiB`, count: 0 };
			const buf = Buffer.from(await f.arrayBuffer());
			const dims = sniffDims(buf);
			if (!dims || !REF_TYPES.has(dims.type))
				return {
					error: `Reference image ${f.name || ''} is not a PNG, JPEG, WebP or BMP image`,
					count: 0,
				};
			tokens += imageInputTokens(dims.width, dims.height);
		}
		return { count: files.length, tokens };
	}
	const f = fields(req);
	const images = f.images;
	if (!Array.isArray(images) || !images.length)
		return { error: "Missing 'images' (array of {image_url})", count: 0 };
	if (!(model === 'alpha-image-2.5' || model.startsWith('beta-3.1-flash') || beta)) {
		return {
			error: `JSON image edits are not supported on the channel of ${model}; use multipart`,
			count: 0,
		};
	}
	let tokens = 0;
	for (const [i, item] of images.entries()) {
		const url =
			item && typeof item === 'object' ? (item as Record<string, unknown>).image_url : undefined;
		const u =
			typeof url === 'string'
				? url
				: url && typeof url === 'object'
					? (url as Record<string, unknown>).url
					: undefined;
		if (typeof u !== 'string') return { error: `images[${i}].image_url is missing`, count: 0 };
		if (u.startsWith('data:')) {
			const m = /^data:(image\/[a-z+.-]+);base64,([A-Za-z0-9+/=\s]+)$/.exec(u);
			if (!m || u.includes('...'))
				return { error: `images[${i}].image_url is not a complete Data URL`, count: 0 };
			const buf = Buffer.from(m[2], 'base64');
			if (buf.length > MAX_REF_BYTES)
				return { error: `images[${i}] is larger than 25 MiB`, count: 0 };
			const dims = sniffDims(buf);
			if (!dims || !REF_TYPES.has(dims.type))
				return { error: `images[${i}] is not a decodable PNG, JPEG, WebP or BMP image`, count: 0 };
			tokens += imageInputTokens(dims.width, dims.height);
			continue;
		}
		if (!beta) return { error: `images[${i}]: ${model} accepts Data URLs only`, count: 0 };
		const refusal = publicUrlRefusal(u);
		if (refusal) return { error: `images[${i}]: ${refusal}`, count: 0 };
		tokens += URL_REFERENCE_TOKENS;
	}
	return { count: images.length, tokens };
}

/** An image's type and pixel size from its header, or undefined. */
function sniffDims(buf: Buffer): { type: string; width: number; height: number } | undefined {
	try {
		const d = imageSize(buf);
		return d.type && d.width && d.height
			? { type: d.type, width: d.width, height: d.height }
			: undefined;
	} catch {
		return undefined;
	}
}

/** Task outcome from the prompt's markers (see the README). */
function markerOutcome(prompt: string): ImageOutcome {
	if (prompt.includes('[fail]')) return 'fail';
	if (prompt.includes('[empty]')) return 'empty';
	if (prompt.includes('[uncertain]')) return 'uncertain-fail';
	if (prompt.includes('[cancel]')) return 'cancelled';
	if (prompt.includes('[expire]')) return 'expired';
	return 'ok';
}

/** n > 1 may partially fail (spec): with `[partial]` only half of the images (rounded up) arrive, all n are charged. */
function deliveredCount(prompt: string, n: number): number {
	return prompt.includes('[partial]') && n > 1 ? Math.ceil(n / 2) : n;
}

/** A positive integer; anything else is a parameter error. The spec does not cap n (it recommends 1). */
const MAX_N = 1000;

export async function imageSubmit(ctx: Ctx, edit: boolean): Promise<Answer> {
	const { sim, req, key, log } = ctx;
	const f = fields(req);
	const model = ctx.model(f.model);
	if (typeof model !== 'string') return model;
	const entry = sim.prices.model(model)!;
	if (entry.kind !== 'image')
		return openAiError(400, `Model ${model} is not an image model`, 'invalid_request_error');
	const prompt = f.prompt;
	if (typeof prompt !== 'string' || !prompt.trim())
		return openAiError(
			400,
			"Invalid 'prompt': must be a non-empty string",
			'invalid_request_error',
		);
	const mode = modeOf(req);
	if (f.stream === true && mode !== 'sync')
		return openAiError(
			400,
			'stream is not supported for asynchronous image tasks',
			'invalid_request_error',
		);
	if (model === 'alpha-image-2-az' && mode !== 'sync') {
		// The async layer injects response_format, which this channel refuses.
		return openAiError(400, "Unknown parameter: 'response_format'.", 'invalid_request_error');
	}
	if (model === 'alpha-image-2-az' && f.response_format !== undefined)
		return openAiError(400, "Unknown parameter: 'response_format'.", 'invalid_request_error');
	const n = f.n === undefined ? 1 : Number(f.n);
	if (!Number.isInteger(n) || n < 1)
		return openAiError(400, "Invalid 'n': must be a positive integer", 'invalid_request_error');
	if (n > MAX_N)
		return openAiError(
			400,
			`Invalid 'n': at most ${MAX_N} images per request`,
			'invalid_request_error',
		);
	if (
		f.quality !== undefined &&
		model === 'alpha-image-2.5' &&
		!['auto', 'high'].includes(String(f.quality))
	) {
		return openAiError(
			400,
			`Invalid 'quality' for alpha-image-2.5: use auto or high`,
			'invalid_request_error',
		);
	}
	const seed = sim.opts.seed + sim.sequence;
	const size = resolveSize(model, f.size, seed);
	if (!size.ok) return openAiError(400, size.message, 'invalid_request_error');
	let referenceTokens = 0;
	if (edit) {
		const refs = await checkReferences(ctx, model);
		if (refs.error) return openAiError(400, refs.error, 'invalid_request_error');
		referenceTokens = refs.tokens ?? 0;
	}
	// what a token-billed image model reports (OpenAI's image usage): text and reference-image input, 1290 output tokens an image
	const textTokens = Math.ceil(prompt.length / 4);
	const usage: TokenUsage = {
		prompt: textTokens + referenceTokens,
		image: referenceTokens,
		completion: IMAGE_OUTPUT_TOKENS * n,
	};
	const format = formatFor(sim, model, seed);
	if (ctx.upstream.lostBeforeCommit()) return DROP;
	const delivered = deliveredCount(prompt, n);

	if (mode === 'sync') {
		await new Promise((r) => setTimeout(r, sim.opts.syncLatencyMs));
		const outcome = markerOutcome(prompt);
		if (outcome === 'fail')
			return openAiError(500, 'upstream generation failed', 'upstream_error', 'api_error');
		if (entry.billing === 'per_token') chargeTokens(ctx, entry, usage);
		else chargePerCall(ctx, entry, n);
		const upstreamError = ctx.upstream.generationError('images');
		const data: Array<Record<string, string>> = [];
		if (outcome !== 'empty' && upstreamError === undefined) {
			for (let i = 0; i < delivered; i++) {
				const id = sim.nextId('img');
				sim.results.set(id, {
					kind: 'image',
					width: size.width,
					height: size.height,
					format,
					seed: seed + i,
				});
				if (f.response_format === 'b64_json')
					data.push({
						b64_json: (
							await resultImageBuffer(
								size.width,
								size.height,
								format,
								(seed + i) % 16,
								id,
								sim.opts.imageBytes,
							)
						).toString('base64'),
					});
				else data.push({ url: `${sim.urls.result}/r/${id}.${resultExt({ format })}` });
			}
		}
		if (ctx.upstream.lostAfterCommit()) return DROP;
		const error =
			upstreamError !== undefined
				? { message: upstreamError, type: 'upstream_error' }
				: outcome === 'empty'
					? { message: 'no image returned by upstream' }
					: undefined;
		const reported =
			entry.billing === 'per_token'
				? {
						usage: {
							input_tokens: usage.prompt,
							input_tokens_details: { text_tokens: textTokens, image_tokens: referenceTokens },
							output_tokens: usage.completion,
							total_tokens: usage.prompt + usage.completion,
						},
					}
				: {};
		return json(
			200,
			{ created: Math.floor(Date.now() / 1000), data, ...(error ? { error } : {}), ...reported },
			undefined,
			{ kind: 'image-answer', width: size.width, height: size.height },
		);
	}

	const task: ImageTask = {
		kind: 'image',
		...sim.newTask('imgtask', key.name, sim.opts.taskLatencyMs),
		model,
		outcome: markerOutcome(prompt),
		delivered,
		b64: prompt.includes('[b64]'),
		width: size.width,
		height: size.height,
		format,
		n,
		charged: 0,
		requestId: sim.nextId('req'),
	};
	ctx.upstream.imageTaskCreated(task);
	sim.tasks.set(task.id, task);
	log.taskId = task.id;
	task.billing = billingNow(ctx);
	task.charged =
		entry.billing === 'per_token'
			? chargeTokens(ctx, entry, usage, task.id)
			: chargePerCall(ctx, entry, n, { taskId: task.id, billing: task.billing });
	if (ctx.upstream.lostAfterCommit()) return DROP;
	return json(mode === 'async-202' ? 202 : 200, await imageTaskBody(sim, task, key), undefined, {
		kind: 'image-task',
		task,
		query: false,
	});
}
