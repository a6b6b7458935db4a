/** Builds and sends one image request in the chosen mode: async task, synchronous, or native content parts. */
import { normaliseImageTask, type NormalisedTask, type ResultRef } from '../../shared/tasks/phases';
import type { GatewayTransport, SubmitOutcome } from '../../shared/transport';
import type { RuleViolation } from '../../shared/errors';
import { imageFamily, tierSuffix, betaTierFor, type ImageRequest } from './rules';

export type ImageMode = 'async' | 'sync' | 'native';

export interface ReferenceImage {
	data: Buffer;
	mimeType: string;
	fileName: string;
}

export interface SubmitInput {
	/** where under /v1/images/ the operation is sent */
	endpoint: 'generations' | 'edits';
	mode: ImageMode;
	req: ImageRequest;
	references: ReferenceImage[];
	referenceUrls: string[];
	editEncoding: 'multipart' | 'json';
	aspectRatio: string;
	nativeImageSize: '1K' | '2K' | '4K';
}

export type SubmitResult =
	| {
			kind: 'task';
			body: Record<string, unknown>;
			task: NormalisedTask;
			status: number;
			mode: ImageMode;
	  }
	| {
			kind: 'images';
			refs: ResultRef[];
			body: Record<string, unknown>;
			mode: ImageMode;
			text?: string;
	  }
	| { kind: 'uncertain'; reason: string; body?: unknown; mode: ImageMode };

/** alpha-image-2-az is always synchronous (its async layer injects response_format, which it refuses). */
export function effectiveMode(model: string, mode: ImageMode): ImageMode {
	return imageFamily(model) === 'alpha-az' ? 'sync' : mode;
}

/** The mode's rules (an operation adds its own: `problems` in its file). */
export function modeProblems(input: SubmitInput): RuleViolation[] {
	if (input.mode === 'native' && imageFamily(input.req.model) !== 'beta')
		return [{ field: 'Mode', rule: 'Native (generateContent) is for the beta family only' }];
	return [];
}

function jsonBody(input: SubmitInput): Record<string, unknown> {
	const { req } = input;
	const body: Record<string, unknown> = { model: req.model, prompt: req.prompt, n: req.n };
	if (req.size) body.size = req.size;
	if (req.quality) body.quality = req.quality;
	if (input.endpoint === 'edits') {
		body.images = [
			...input.references.map((r) => ({
				image_url: `data:${r.mimeType};base64,${r.data.toString('base64')}`,
			})),
			...input.referenceUrls.map((u) => ({ image_url: u })),
		];
	}
	return body;
}

function multipartBody(input: SubmitInput): FormData {
	const { req } = input;
	const form = new FormData();
	form.append('model', req.model);
	form.append('prompt', req.prompt);
	if (req.size) form.append('size', req.size);
	form.append('n', String(req.n));
	if (req.quality) form.append('quality', req.quality);
	const field = input.references.length > 1 ? 'image[]' : 'image';
	for (const r of input.references)
		form.append(field, new Blob([r.data], { type: r.mimeType }), r.fileName);
	return form;
}

function nativeBody(input: SubmitInput): Record<string, unknown> {
	const suffix = tierSuffix(input.req.model);
	const imageSize = suffix
		? (suffix.toUpperCase() as '1K' | '2K' | '4K')
		: input.req.size && /^\d+x\d+$/.test(input.req.size)
			? betaTierFor(input.req.size)
			: input.nativeImageSize;
	const parts: Array<Record<string, unknown>> = [{ text: input.req.prompt }];
	for (const r of input.references)
		parts.push({ inlineData: { mimeType: r.mimeType, data: r.data.toString('base64') } });
	return {
		contents: [{ role: 'user', parts }],
		generationConfig: {
			responseModalities: ['IMAGE'],
			imageConfig: { aspectRatio: input.aspectRatio, imageSize },
		},
	};
}

/** Explains a native answer without an image from error, finishReason, text parts and promptFeedback. */
export function explainNoImage(body: Record<string, unknown>): string {
	const reasons: string[] = [];
	const err = objectOf(body.error);
	if (err) reasons.push(`error: ${String(err.message ?? JSON.stringify(err))}`);
	const fb = objectOf(body.promptFeedback);
	if (fb?.blockReason) reasons.push(`prompt blocked: ${String(fb.blockReason)}`);
	const cands = objectsIn(body.candidates);
	for (const c of cands) {
		if (c.finishReason && c.finishReason !== 'STOP')
			reasons.push(`finishReason ${String(c.finishReason)}`);
		const text = objectsIn(objectOf(c.content)?.parts)
			.map((p) => (typeof p.text === 'string' ? p.text : ''))
			.join(' ')
			.trim();
		if (text) reasons.push(`model said: "${text.slice(0, 300)}"`);
	}
	if (!cands.length && !fb) reasons.push('no candidates');
	return `The answer held no image (${reasons.join('; ') || 'no reason given'})`;
}

export function nativeImages(body: Record<string, unknown>): { refs: ResultRef[]; text: string } {
	const refs: ResultRef[] = [];
	let text = '';
	for (const c of objectsIn(body.candidates)) {
		for (const p of objectsIn(objectOf(c.content)?.parts)) {
			const inline = objectOf(p.inlineData ?? p.inline_data);
			if (inline && typeof inline.data === 'string' && inline.data)
				refs.push({
					b64: inline.data,
					mimeType: String(inline.mimeType ?? inline.mime_type ?? ''),
				});
			if (typeof p.text === 'string') text += p.text;
		}
	}
	return { refs, text };
}

/** An answer's value when it is a JSON object (untrusted: null, a list or text is none). */
function objectOf(v: unknown): Record<string, unknown> | undefined {
	return v && typeof v === 'object' && !Array.isArray(v)
		? (v as Record<string, unknown>)
		: undefined;
}

/** The JSON objects of an answer's list (untrusted: not a list is none; null or text entries are skipped). */
function objectsIn(v: unknown): Array<Record<string, unknown>> {
	return Array.isArray(v) ? v.map(objectOf).filter((o) => o !== undefined) : [];
}

/** What came back for one paid image request, not yet interpreted. */
export interface ImageAnswer {
	mode: ImageMode;
	out: SubmitOutcome;
}

/** Sends the image request once; interpretation is `readImageAnswer`'s, after the spend is recorded. */
export async function sendImage(
	transport: GatewayTransport,
	input: SubmitInput,
): Promise<ImageAnswer> {
	const mode = effectiveMode(input.req.model, input.mode);
	const edit = input.endpoint === 'edits';
	if (mode === 'native') {
		return {
			mode,
			out: await transport.submit(
				`/v1beta/models/${encodeURIComponent(input.req.model)}:generateContent`,
				{ json: nativeBody(input) },
				{ timeout: 'syncImage' },
			),
		};
	}
	const path = `/v1/images/${input.endpoint}${mode === 'async' ? '/async' : ''}`;
	const payload =
		edit && input.editEncoding === 'multipart' && !input.referenceUrls.length
			? { form: multipartBody(input) }
			: { json: jsonBody(input) };
	return {
		mode,
		out: await transport.submit(path, payload, {
			timeout: mode === 'async' ? 'submit' : 'syncImage',
		}),
	};
}

/** What an answer means: a task, images, or an uncertain outcome. May throw on a shape nobody expected. */
export function readImageAnswer({ mode, out }: ImageAnswer): SubmitResult {
	if (out.kind === 'uncertain')
		return { kind: 'uncertain', reason: out.reason, body: out.body, mode };
	if (mode === 'native') {
		const { refs, text } = nativeImages(out.body);
		return { kind: 'images', refs, body: out.body, mode, text };
	}
	// a 200 from a plain path may be a task object (compatibility switches): detect task_id
	const looksLikeTask =
		'task_id' in out.body ||
		'poll_url' in out.body ||
		'poll_path' in out.body ||
		(typeof out.body.object === 'string' && /task/.test(out.body.object));
	if (out.taskId && (mode === 'async' || looksLikeTask))
		return {
			kind: 'task',
			body: out.body,
			task: { ...normaliseImageTask(out.body), taskId: out.taskId },
			status: out.status,
			mode,
		};
	const data = Array.isArray(out.body.data)
		? (out.body.data as Array<Record<string, unknown>>)
		: [];
	const refs = data
		.map((d) => ({
			url: typeof d.url === 'string' ? d.url : undefined,
			b64: typeof d.b64_json === 'string' ? d.b64_json : undefined,
		}))
		.filter((r) => r.url || r.b64);
	// accepted without a usable task ID: the task may exist and be billed, and there is nothing to poll
	if (!refs.length && (mode === 'async' || looksLikeTask)) {
		return {
			kind: 'uncertain',
			reason: `HTTP ${out.status}: the gateway accepted the request but gave no usable task ID (1 to 200 characters of A-Za-z0-9_-)`,
			body: out.body,
			mode,
		};
	}
	return { kind: 'images', refs, body: out.body, mode };
}
