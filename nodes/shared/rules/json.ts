/** Fields that hold a JSON object, given as an object or as its JSON text. */
import { z } from 'zod';
import { isObj, type Obj } from '../jsonObject';
import type { Rule } from './rule';

const kindOf = (v: unknown) =>
	v === null
		? 'null'
		: Array.isArray(v)
			? 'an array'
			: typeof v === 'object'
				? 'an object'
				: `a ${typeof v}`;

/** `says`: what the field must hold, e.g. "must be a JSON object". Empty text and `{}` read as not set when `optional`. */
export function jsonObjectRule(says: string, opts: { optional: true }): Rule<Obj | undefined>;
export function jsonObjectRule(says: string, opts?: { optional?: false }): Rule<Obj>;
export function jsonObjectRule(
	says: string,
	opts: { optional?: boolean } = {},
): Rule<Obj | undefined> {
	return {
		schema: z.unknown().transform((raw, ctx): Obj | undefined => {
			let v = raw;
			if (typeof v === 'string') {
				const t = v.trim();
				if (opts.optional && t === '') return undefined;
				try {
					v = JSON.parse(t);
				} catch {
					ctx.addIssue({
						code: z.ZodIssueCode.custom,
						message: `${says} (the text is not valid JSON)`,
					});
					return z.NEVER;
				}
			} else if (opts.optional && (v === undefined || v === null)) return undefined;
			if (isObj(v)) return v;
			ctx.addIssue({ code: z.ZodIssueCode.custom, message: `${says}, not ${kindOf(v)}` });
			return z.NEVER;
		}),
		good: [{ a: 1 }, '{"a": 1}', ...(opts.optional ? ['', undefined] : [])],
		bad: [
			{ value: '[1,2]', says: `${says}, not an array` },
			{ value: 'oops', says: `${says} (the text is not valid JSON)` },
			{ value: 42, says: `${says}, not a number` },
		],
	};
}

/** Extra Body Fields of every node: a JSON object merged into the request body; empty means none. */
export const EXTRA_BODY_RULE = jsonObjectRule('must be a JSON object', { optional: true });
