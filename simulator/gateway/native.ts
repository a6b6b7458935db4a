/** `/v1beta/models/{model}:generateContent`: waits and answers content parts; no task ID. */
import { resultImageBuffer } from '../media/padding';
import { resolveSize } from '../catalog/sizes';
import { json, openAiError, type Answer } from './answer';
import { chargeUsage } from './charges';
import type { Ctx } from './context';

/** The real format of an image from its first bytes (the limits table's PNG, JPEG, WebP, BMP). */
function sniffImage(head: Buffer): string {
	if (head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
		return 'image/png';
	if (head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'image/jpeg';
	if (
		head.subarray(0, 4).toString('latin1') === 'RIFF' &&
		head.subarray(8, 12).toString('latin1') === 'WEBP'
	)
		return 'image/webp';
	if (
		head.subarray(0, 2).toString('latin1') === 'BM' &&
		head.length >= 18 &&
		head.readUInt32LE(14) >= 12
	)
		return 'image/bmp';
	return '';
}

const SIZE_FOR_SUFFIX: Record<string, string> = { '1k': '1K', '2k': '2K', '4k': '4K' };

export async function generateContent(ctx: Ctx, model: string): Promise<Answer> {
	const { sim, req } = ctx;
	const refused = ctx.model(model);
	if (typeof refused !== 'string') return refused;
	const entry = sim.prices.model(model)!;
	if (!model.startsWith('beta-') || entry.kind !== 'image')
		return openAiError(
			400,
			`Model ${model} does not support generateContent`,
			'invalid_request_error',
		);
	const body = (req.json ?? {}) as Record<string, unknown>;
	if ('model' in body)
		return openAiError(
			400,
			'The model is taken from the path; the body must not carry a model field',
			'invalid_request_error',
		);
	const contents = body.contents;
	if (!Array.isArray(contents) || !contents.length)
		return openAiError(400, "'contents' must hold at least one item", 'invalid_request_error');
	const parts = (contents[0] as Record<string, unknown>)?.parts;
	if (!Array.isArray(parts) || !parts.length)
		return openAiError(400, 'contents[0].parts must not be empty', 'invalid_request_error');
	let prompt = '';
	for (const [i, p] of parts.entries()) {
		const part = p as Record<string, unknown>;
		if (typeof part.text === 'string') prompt += part.text;
		const inline = (part.inlineData ?? part.inline_data) as Record<string, unknown> | undefined;
		if (inline) {
			const data = String(inline.data ?? '');
			if (data.startsWith('data:'))
				return openAiError(
					400,
					`parts[${i}].inlineData.data must be plain Base64 without a data: prefix`,
					'invalid_request_error',
				);
			const mime = String(inline.mimeType ?? inline.mime_type ?? '');
			const real = sniffImage(Buffer.from(data.slice(0, 32), 'base64'));
			if (!real || real !== mime)
				return openAiError(
					400,
					`parts[${i}].inlineData.mimeType '${mime}' does not match the data (${real || 'unknown format'})`,
					'invalid_request_error',
				);
		}
	}
	const cfg = (body.generationConfig ?? {}) as Record<string, unknown>;
	const imageConfig = (cfg.imageConfig ?? {}) as Record<string, unknown>;
	const suffix = /-(1k|2k|4k)$/.exec(model)?.[1];
	const imageSize = imageConfig.imageSize as string | undefined;
	if (imageSize !== undefined && !['1K', '2K', '4K'].includes(imageSize))
		return openAiError(400, `imageSize must be 1K, 2K or 4K`, 'invalid_request_error');
	if (suffix && imageSize && SIZE_FOR_SUFFIX[suffix] !== imageSize)
		return openAiError(
			400,
			`imageSize ${imageSize} does not match the model tier ${SIZE_FOR_SUFFIX[suffix]}`,
			'invalid_request_error',
		);
	await new Promise((r) => setTimeout(r, sim.opts.syncLatencyMs));
	if (prompt.includes('[block]'))
		return json(200, {
			promptFeedback: { blockReason: 'SAFETY' },
			usageMetadata: { promptTokenCount: 12 },
		});
	if (prompt.includes('[noimage]')) {
		return json(200, {
			candidates: [
				{
					content: { role: 'model', parts: [{ text: 'I cannot draw that.' }] },
					finishReason: 'IMAGE_SAFETY',
				},
			],
		});
	}
	const ratio = String(imageConfig.aspectRatio ?? '1:1');
	const [a, b] = ratio.split(':').map(Number);
	const tier = suffix ?? (imageSize ?? '1K').toLowerCase();
	const long = { '1k': 1024, '2k': 2048, '4k': 4096 }[tier] ?? 1024;
	const size =
		a && b
			? a >= b
				? `${long}x${Math.round((long * b) / a)}`
				: `${Math.round((long * a) / b)}x${long}`
			: `${long}x${long}`;
	const r = resolveSize(model, size, sim.sequence);
	if (!r.ok) return openAiError(400, r.message, 'invalid_request_error');
	const responseId = sim.nextId('gen');
	const promptTokenCount = Math.ceil(prompt.length / 4);
	chargeUsage(ctx, entry, { prompt: promptTokenCount, completion: 1290 });
	const upstreamError = ctx.upstream.generationError('native');
	if (upstreamError !== undefined)
		return json(200, {
			error: { code: 400, message: upstreamError, status: 'INVALID_ARGUMENT' },
			responseId,
		});
	const png = await resultImageBuffer(
		r.width,
		r.height,
		'png',
		sim.sequence % 16,
		responseId,
		sim.opts.imageBytes,
	);
	const inlineKey = sim.sequence % 2 ? 'inline_data' : 'inlineData';
	const mimeKey = inlineKey === 'inline_data' ? 'mime_type' : 'mimeType';
	const answer = {
		candidates: [
			{
				content: {
					role: 'model',
					parts: [
						{ text: 'Here is your image.' },
						{ [inlineKey]: { [mimeKey]: 'image/png', data: png.toString('base64') } },
					],
				},
				finishReason: 'STOP',
			},
		],
		usageMetadata: { promptTokenCount, candidatesTokenCount: 1290 },
		responseId,
	};
	return json(200, answer, undefined, { kind: 'native-image', width: r.width, height: r.height });
}
