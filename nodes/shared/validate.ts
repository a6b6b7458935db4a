import type { ZodType, ZodIssue } from 'zod';
import { InputRuleError, type RuleViolation } from './errors';

function issueToViolation(issue: ZodIssue): RuleViolation {
	const field = issue.path.length ? issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : p)).join('.').replace(/\.\[/g, '[') : '(body)';
	return { field, rule: issue.message };
}

/** Parses with a zod schema; every violated rule is reported at once with its field path. Nothing is sent on failure. */
export function parseOrThrow<T>(schema: ZodType<T>, value: unknown): T {
	const res = schema.safeParse(value);
	if (res.success) return res.data;
	throw new InputRuleError(res.error.issues.map(issueToViolation));
}
