/** Request rules for chat and responses. */
import { z } from 'zod';

const role = z.enum(['system', 'user', 'assistant', 'tool', 'developer'], { errorMap: () => ({ message: 'must be one of system, user, assistant, tool, developer' }) });

export const chatMessagesSchema = z
	.array(
		z
			.object({
				role,
				content: z.union([z.string(), z.array(z.record(z.unknown()))], { errorMap: () => ({ message: 'must be text or an array of content parts' }) }),
			})
			.passthrough(),
		{ errorMap: () => ({ message: 'must be an array of {role, content} messages' }) },
	)
	.min(1, 'must hold at least one message');

export const modelSchema = z.string({ required_error: 'is required', invalid_type_error: 'must be a model ID' }).min(1, 'is required');

export const chatBodySchema = z.object({ model: modelSchema, messages: chatMessagesSchema, stream: z.boolean() }).passthrough();

export const responsesBodySchema = z
	.object({
		model: modelSchema,
		input: z.union([z.string().refine((s) => s.trim() !== '', 'must not be empty'), z.array(z.record(z.unknown())).min(1, 'must not be empty')], { errorMap: () => ({ message: 'must be text or an array of input items' }) }),
		stream: z.boolean(),
	})
	.passthrough();

/** Extra body fields must not override what the node sets. */
export function mergeExtra(body: Record<string, unknown>, extra: unknown, field: string): Record<string, unknown> {
	if (extra === undefined || extra === null || extra === '') return body;
	let obj = extra;
	if (typeof extra === 'string') {
		try {
			obj = JSON.parse(extra);
		} catch {
			throw new Error(`${field}: must be a JSON object`);
		}
	}
	if (!obj || typeof obj !== 'object' || Array.isArray(obj)) throw new Error(`${field}: must be a JSON object`);
	const out = { ...(obj as Record<string, unknown>) };
	for (const k of Object.keys(body)) delete out[k];
	return { ...body, ...out };
}
