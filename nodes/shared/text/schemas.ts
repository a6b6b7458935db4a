/** Request rules for chat completions and responses, checked before anything is sent. */
import { z, type ZodTypeAny } from 'zod';
import { bodyRuleSet, violate } from '../rules/body';
import { EXTRA_BODY_RULE } from '../rules/json';
import { readField, refuse } from '../validate';

export const CHAT_ROLES = ['system', 'user', 'assistant', 'tool', 'developer'] as const;

const user = (content: unknown) => ({ role: 'user', content });
const toolCall = { id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{}' } };

/** Rules of both bodies: the model and the stream flag (the Model field refuses an empty model before the body is built). */
const MODEL_AND_STREAM = {
	modelRequired: {
		field: 'model',
		says: 'is required',
		good: [{ model: ' alpha-chat-4o ' }],
		bad: [{ model: ' ' }, { model: null }],
	},
	modelId: {
		field: 'model',
		says: 'must be a model ID',
		good: [{ model: 'omega-chat-1' }],
		bad: [{ model: 42 }],
	},
	stream: {
		field: 'stream',
		says: 'must be true or false',
		good: [{ stream: true }],
		bad: [{ stream: 'yes' }],
	},
};

/** The chat-completions body's rules, with the examples of the bad-input corpus. */
export const CHAT_RULES = bodyRuleSet('Chat body', {
	schema: (): ZodTypeAny => chatBodySchema,
	valid: { model: 'alpha-chat-4o', messages: [user('hello')], stream: false },
	rules: {
		...MODEL_AND_STREAM,
		messagesArray: {
			field: 'messages',
			says: 'must be an array of {role, content} messages',
			good: [{ messages: [user('a'), { role: 'assistant', content: 'b' }] }],
			bad: [{ messages: 'hello' }],
		},
		messagesNotEmpty: {
			field: 'messages',
			says: 'must hold at least one message',
			good: [{ messages: [user('a')] }],
			bad: [{ messages: [] }],
		},
		messageObject: {
			field: 'messages[0]',
			says: 'must be a {role, content} object',
			good: [{ messages: [{ role: 'system', content: 'be brief' }, user('a')] }],
			bad: [{ messages: ['hello'] }],
		},
		role: {
			field: 'messages[0].role',
			says: `must be one of ${CHAT_ROLES.join(', ')}`,
			good: CHAT_ROLES.map((role) => ({ messages: [{ role, content: 'a' }] })),
			bad: [{ messages: [{ role: 'robot', content: 'a' }] }, { messages: [{ content: 'a' }] }],
		},
		content: {
			field: 'messages[0].content',
			says: 'must be text or an array of content parts',
			good: [{ messages: [user([{ type: 'text', text: 'a' }])] }],
			bad: [{ messages: [user(5)] }, { messages: [user(['a'])] }],
		},
		contentRequired: {
			field: 'messages[0].content',
			says: 'is required',
			good: [
				{
					messages: [
						user('a'),
						{ role: 'assistant', tool_calls: [toolCall] },
						{ role: 'tool', tool_call_id: 'call_1', content: '{}' },
					],
				},
			],
			bad: [
				{ messages: [{ role: 'user' }] },
				{ messages: [user(null)] },
				{ messages: [{ role: 'assistant', tool_calls: [] }] },
			],
		},
		contentNotEmpty: {
			field: 'messages[0].content',
			says: 'must not be empty for a',
			good: [{ messages: [{ role: 'assistant', content: '' }, user('a')] }],
			bad: [{ messages: [user(' ')] }, { messages: [{ role: 'system', content: '' }] }],
		},
		contentParts: {
			field: 'messages[0].content',
			says: 'must hold at least one content part',
			good: [{ messages: [user([{ type: 'text', text: 'a' }])] }],
			bad: [{ messages: [user([])] }],
		},
	},
});

/** The responses body's rules, with the examples of the bad-input corpus. */
export const RESPONSES_RULES = bodyRuleSet('Responses body', {
	schema: (): ZodTypeAny => responsesBodySchema,
	valid: { model: 'alpha-chat-4o', input: 'hello', stream: false },
	rules: {
		...MODEL_AND_STREAM,
		inputNotEmpty: {
			field: 'input',
			says: 'must not be empty',
			good: [{ input: ' hello ' }],
			bad: [{ input: '  ' }, { input: '' }],
		},
		inputItems: {
			field: 'input',
			says: 'must hold at least one input item',
			good: [{ input: [user('hello')] }],
			bad: [{ input: [] }],
		},
		input: {
			field: 'input',
			says: 'must be text or an array of input items',
			good: [{ input: [{ type: 'message', role: 'user', content: 'hello' }] }],
			bad: [{ input: 5 }, { input: ['hello'] }],
		},
	},
});
const C = CHAT_RULES;

const role = z.enum(CHAT_ROLES, { errorMap: () => ({ message: C.role.says }) });

// a part that is not an object is reported by the content union (text or an array of parts), not here
const contentPart = z.record(z.unknown());

export const chatMessageSchema = z
	.object(
		{
			role,
			content: z
				.union([z.string(), z.array(contentPart), z.null()], {
					errorMap: () => ({ message: C.content.says }),
				})
				.optional(),
		},
		{ errorMap: () => ({ message: C.messageObject.says }) },
	)
	.passthrough()
	.superRefine((m, ctx) => {
		const calls = (m as Record<string, unknown>).tool_calls;
		const hasCalls = Array.isArray(calls) && calls.length > 0;
		if (m.content === undefined || m.content === null) {
			// only an assistant message that carries tool calls may go without content
			if (!(m.role === 'assistant' && hasCalls)) violate(ctx, C.contentRequired, ['content']);
			return;
		}
		if (
			(m.role === 'system' || m.role === 'user' || m.role === 'developer') &&
			typeof m.content === 'string' &&
			m.content.trim() === ''
		) {
			violate(ctx, C.contentNotEmpty, ['content'], `${C.contentNotEmpty.says} ${m.role} message`);
		}
		if (Array.isArray(m.content) && m.content.length === 0)
			violate(ctx, C.contentParts, ['content']);
	});

export const chatMessagesSchema = z
	.array(chatMessageSchema, { errorMap: () => ({ message: C.messagesArray.says }) })
	.min(1, C.messagesNotEmpty.says);

export const modelSchema = z
	.string({ required_error: C.modelRequired.says, invalid_type_error: C.modelId.says })
	.trim()
	.min(1, C.modelRequired.says);

export const chatBodySchema = z
	.object({
		model: modelSchema,
		messages: chatMessagesSchema,
		stream: z.boolean({ invalid_type_error: C.stream.says }),
	})
	.passthrough();

export const responsesBodySchema = z
	.object({
		model: modelSchema,
		input: z.union(
			[
				z.string().superRefine((s, ctx) => {
					if (s.trim() === '') violate(ctx, RESPONSES_RULES.inputNotEmpty, []);
				}),
				z.array(z.record(z.unknown())).min(1, RESPONSES_RULES.inputItems.says),
			],
			{
				errorMap: (issue, ctx) =>
					issue.code === z.ZodIssueCode.invalid_union
						? { message: RESPONSES_RULES.input.says }
						: { message: ctx.defaultError },
			},
		),
		stream: z.boolean({ invalid_type_error: RESPONSES_RULES.stream.says }),
	})
	.passthrough();

/** Fields the node sets itself; Extra Body Fields must not set them. */
export const RESERVED_FIELDS = {
	chat: ['model', 'messages', 'stream'],
	responses: ['model', 'input', 'stream'],
} as const;

/**
 * Reads the Extra Body Fields option (a JSON object, as text or already an object) and merges it
 * into the body. Setting a field the node sets itself is refused rather than silently dropped.
 */
export function mergeExtra(
	body: Record<string, unknown>,
	extra: unknown,
	field: string,
	reserved: readonly string[] = Object.keys(body),
): Record<string, unknown> {
	const obj = readField(field, EXTRA_BODY_RULE, extra);
	if (!obj) return body;
	const clash = Object.keys(obj).filter((k) => reserved.includes(k));
	if (clash.length)
		refuse([
			{
				field,
				rule: `must not set ${clash.join(', ')}: the node's own fields set ${clash.length === 1 ? 'it' : 'them'}`,
			},
		]);
	return { ...body, ...obj };
}
