/** Messages given as JSON in the Chat node: a field rule (the messages themselves are body rules, ./schemas.ts). */
import { z } from 'zod';
import type { Rule } from '../../shared/rules/rule';
import { readField } from '../../shared/validate';

const MESSAGES = 'must be a JSON array of {role, content} messages';
const kindOf = (v: unknown) =>
	v === null ? 'null' : typeof v === 'object' ? 'an object' : `a ${typeof v}`;

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

/** Messages given as JSON; a value that is not an array is refused naming `field`, before any request. */
export function messagesFromJson(value: unknown, field: string): unknown[] {
	return readField(field, MESSAGES_JSON_RULE, value);
}
