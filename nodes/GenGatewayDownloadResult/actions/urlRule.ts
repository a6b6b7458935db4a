/** Addresses a node fetches itself (without the key): http(s) only. */
import { z } from 'zod';
import type { Rule } from '../../shared/rules/rule';

const SAYS = 'must be an http(s) address';

export const HTTP_URL_RULE: Rule<string> = {
	schema: z.unknown().transform((raw, ctx): string => {
		const url = typeof raw === 'string' ? raw.trim() : '';
		if (/^https?:\/\/\S+$/i.test(url)) return url;
		ctx.addIssue({ code: z.ZodIssueCode.custom, message: SAYS });
		return z.NEVER;
	}),
	good: ['https://media.example/x.png', ' http://media.example/v.mp4 '],
	bad: [
		{ value: 'ftp://media.example/x.png', says: SAYS },
		{ value: 'media.example/x.png', says: SAYS },
		{ value: '', says: SAYS },
	],
};
