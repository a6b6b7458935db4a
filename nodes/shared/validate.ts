/** The one place input is refused: zod issues and rule violations become an InputRuleError naming each field. */
import { z, type ZodType, type ZodTypeDef, type ZodIssue } from 'zod';
import { InputRuleError, type RuleViolation } from './errors';
import type { FieldValues, Fields, Rule } from './rules/rule';

function issueToViolation(issue: ZodIssue, labels: Record<string, string> = {}): RuleViolation {
	const [head, ...rest] = issue.path;
	if (typeof head === 'string' && labels[head] && !rest.length)
		return { field: labels[head], rule: issue.message };
	const field = issue.path.length
		? issue.path
				.map((p) => (typeof p === 'number' ? `[${p}]` : p))
				.join('.')
				.replace(/\.\[/g, '[')
		: '(body)';
	return { field, rule: issue.message };
}

/** Parses with a zod schema; every violated rule is reported at once with its field path. Nothing is sent on failure. */
export function parseOrThrow<T>(schema: ZodType<T, ZodTypeDef, unknown>, value: unknown): T {
	const res = schema.safeParse(value);
	if (res.success) return res.data;
	throw new InputRuleError(res.error.issues.map((i) => issueToViolation(i)));
}

/** Checks one value against one rule, naming the field by its label. */
export function readField<T>(label: string, rule: Rule<T>, value: unknown): T {
	const res = rule.schema.safeParse(value);
	if (res.success) return res.data;
	throw new InputRuleError(res.error.issues.map((i) => ({ field: label, rule: i.message })));
}

/** Checks every field of a set at once (`raw` by parameter name): the values, or every violation named by its label. */
export function checkFields<F extends Fields>(
	fields: F,
	raw: Record<string, unknown> | undefined,
):
	{ values: FieldValues<F>; violations: [] } | { values?: undefined; violations: RuleViolation[] } {
	const shape = Object.fromEntries(
		Object.entries(fields).map(([name, f]) => [name, f.rule.schema]),
	);
	const labels = Object.fromEntries(Object.entries(fields).map(([name, f]) => [name, f.label]));
	const res = z.object(shape).safeParse(raw ?? {});
	if (res.success) return { values: res.data as FieldValues<F>, violations: [] };
	return { violations: res.error.issues.map((i) => issueToViolation(i, labels)) };
}

/** Like checkFields, refusing at once when a field breaks its rule. */
export function readFields<F extends Fields>(
	fields: F,
	raw: Record<string, unknown> | undefined,
): FieldValues<F> {
	const res = checkFields(fields, raw);
	if (res.values) return res.values;
	throw new InputRuleError(res.violations);
}

/** Refuses rules that depend on more than one field or on the input's binaries (not a single value's schema). */
export function refuse(violations: RuleViolation[]): never {
	throw new InputRuleError(violations);
}
