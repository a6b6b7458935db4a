/** The one task-ID rule: 1 to 200 characters of A-Z a-z 0-9 _ - (it goes into a request path). */
import { z } from 'zod';
import type { Rule } from './rule';

/** the characters of a task ID, for patterns of paths that end in one */
export const TASK_ID_CHARS = '[A-Za-z0-9_-]{1,200}';

export const TASK_ID_PATTERN = new RegExp(`^${TASK_ID_CHARS}$`);

export const isTaskId = (v: unknown): v is string =>
	typeof v === 'string' && TASK_ID_PATTERN.test(v);

/**
 * The task ID an answer carries, read once where it enters (the transport's accepted outcome): `task_id`, `id`,
 * `data.task_id` or `data.id` (the spec's image task, delta and gamma shapes), the first that is a valid task ID.
 */
export function taskIdIn(body: unknown): string | undefined {
	if (!body || typeof body !== 'object' || Array.isArray(body)) return undefined;
	const b = body as Record<string, unknown>;
	const data =
		b.data && typeof b.data === 'object' && !Array.isArray(b.data)
			? (b.data as Record<string, unknown>)
			: undefined;
	for (const v of [b.task_id, b.id, data?.task_id, data?.id]) if (isTaskId(v)) return v;
	return undefined;
}

const EMPTY = 'is empty: map the task_id of the submitting node';
const SHAPE = 'must be 1 to 200 characters of A-Z a-z 0-9 _ -';

/** A task ID as text (trimmed) or a whole number from an expression. */
export const TASK_ID_RULE: Rule<string> = {
	schema: z.unknown().transform((raw, ctx): string => {
		const id =
			typeof raw === 'string'
				? raw.trim()
				: typeof raw === 'number' && Number.isSafeInteger(raw) && raw >= 0
					? String(raw)
					: raw;
		if (isTaskId(id)) return id;
		ctx.addIssue({
			code: z.ZodIssueCode.custom,
			message: id === undefined || id === null || id === '' ? EMPTY : SHAPE,
		});
		return z.NEVER;
	}),
	good: ['task_01HZX', ' abc-123 ', 12345, 'a'.repeat(200)],
	bad: [
		{ value: '', says: EMPTY },
		{ value: null, says: EMPTY },
		{ value: 'abc/../x', says: SHAPE },
		{ value: 'a'.repeat(201), says: SHAPE },
		{ value: { id: 'x' }, says: SHAPE },
	],
};
