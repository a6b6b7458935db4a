/** Request rules for chat completions and responses, checked before anything is sent. */
import { z } from 'zod';
import { EXTRA_BODY_RULE } from '../rules/json';
import { fieldSet, type Rule } from '../rules/rule';
import { readField, refuse } from '../validate';

export const CHAT_ROLES = ['system', 'user', 'assistant', 'tool', 'developer'] as const;

const role = z.enum(CHAT_ROLES, { errorMap: () => ({ message: `must be one of ${CHAT_ROLES.join(', ')}` }) });

const contentPart = z.record(z.unknown(), { errorMap: () => ({ message: 'must be a content part object' }) });

export const chatMessageSchema = z
	.object(
		{
			role,
			content: z.union([z.string(), z.array(contentPart), z.null()], { errorMap: () => ({ message: 'must be text or an array of content parts' }) }).optional(),
		},
		{ errorMap: () => ({ message: 'must be a {role, content} object' }) },
	)
	.passthrough()
	.superRefine((m, ctx) => {
		const calls = (m as Record<string, unknown>).tool_calls;
		const hasCalls = Array.isArray(calls) && calls.length > 0;
		if (m.content === undefined || m.content === null) {
			// only an assistant message that carries tool calls may go without content
			if (!(m.role === 'assistant' && hasCalls)) ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['content'], message: 'is required' });
			return;
		}
		if ((m.role === 'system' || m.role === 'user' || m.role === 'developer') && typeof m.content === 'string' && m.content.trim() === '') {
			ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['content'], message: `must not be empty for a ${m.role} message` });
		}
		if (Array.isArray(m.content) && m.content.length === 0) ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['content'], message: 'must hold at least one content part' });
	});

export const chatMessagesSchema = z
	.array(chatMessageSchema, { errorMap: () => ({ message: 'must be an array of {role, content} messages' }) })
	.min(1, 'must hold at least one message');

export const modelSchema = z.string({ required_error: 'is required', invalid_type_error: 'must be a model ID' }).trim().min(1, 'is required');

export const chatBodySchema = z.object({ model: modelSchema, messages: chatMessagesSchema, stream: z.boolean({ invalid_type_error: 'must be true or false' }) }).passthrough();

export const responsesBodySchema = z
	.object({
		model: modelSchema,
		input: z.union([z.string().refine((s) => s.trim() !== '', 'must not be empty'), z.array(z.record(z.unknown())).min(1, 'must hold at least one input item')], {
			errorMap: (issue, ctx) => (issue.code === z.ZodIssueCode.invalid_union ? { message: 'must be text or an array of input items' } : { message: ctx.defaultError }),
		}),
		stream: z.boolean({ invalid_type_error: 'must be true or false' }),
	})
	.passthrough();

/** Fields the node sets itself; Extra Body Fields must not set them. */
export const RESERVED_FIELDS = { chat: ['model', 'messages', 'stream'], responses: ['model', 'input', 'stream'] } as const;

/**
 * Reads the Extra Body Fields option (a JSON object, as text or already an object) and merges it
 * into the body. Setting a field the node sets itself is refused rather than silently dropped.
 */
export function mergeExtra(body: Record<string, unknown>, extra: unknown, field: string, reserved: readonly string[] = Object.keys(body)): Record<string, unknown> {
	const obj = readField(field, EXTRA_BODY_RULE, extra);
	if (!obj) return body;
	const clash = Object.keys(obj).filter((k) => reserved.includes(k));
	if (clash.length) refuse([{ field, rule: `must not set ${clash.join(', ')}: the node's own fields set ${clash.length === 1 ? 'it' : 'them'}` }]);
	return { ...body, ...obj };
}

const MESSAGES = 'must be a JSON array of {role, content} messages';
const kindOf = (v: unknown) => (v === null ? 'null' : typeof v === 'object' ? 'an object' : `a ${typeof v}`);

/** Messages given as JSON (text, or an array from an expression); the messages themselves are checked with the body. */
export const MESSAGES_JSON_RULE: Rule<unknown[]> = {
	schema: z.unknown().transform((raw, ctx): unknown[] => {
		let v = raw;
		const fail = (message: string) => {
			ctx.addIssue({ code: z.ZodIssueCode.custom, message });
			return z.NEVER;
		};
		if (typeof v === 'string') {
			if (v.trim() === '') return fail('is empty: give a JSON array of {role, content} messages');
			try {
				v = JSON.parse(v);
			} catch {
				return fail(`${MESSAGES} (the text is not valid JSON)`);
			}
		}
		return Array.isArray(v) ? v : fail(`${MESSAGES}, but the value is ${kindOf(v)}`);
	}),
	good: ['[{"role":"user","content":"x"}]', [{ role: 'user', content: 'x' }]],
	bad: [
		{ value: ' ', says: 'is empty' },
		{ value: '[{"role":', says: `${MESSAGES} (the text is not valid JSON)` },
		{ value: 'hello', says: `${MESSAGES} (the text is not valid JSON)` },
		{ value: { role: 'user' }, says: `${MESSAGES}, but the value is an object` },
		{ value: null, says: `${MESSAGES}, but the value is null` },
	],
};

export const CHAT_MESSAGE_FIELDS = fieldSet('Chat messages', { messagesJson: { label: 'Messages JSON', rule: MESSAGES_JSON_RULE } });

/** Messages given as JSON; a value that is not an array is refused naming `field`, before any request. */
export function messagesFromJson(value: unknown, field: string): unknown[] {
	return readField(field, MESSAGES_JSON_RULE, value);
}
