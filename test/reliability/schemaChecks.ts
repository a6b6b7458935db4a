/**
 * The messages a body schema's own zod checks give: check messages (min, int) and the custom type errors of its
 * parts, found by walking the schema. Refinements cannot be walked: the schemas refuse in them only through `violate`
 * with a declared rule (the corpus test reads the schema files for any other refusal).
 */
import { ZodEffects, ZodNullable, ZodOptional, ZodUnknown, type ZodTypeAny } from 'zod';

/** zod's own wording for a value of the wrong type, not a rule of ours */
const ZOD_DEFAULT = /^(Expected |Required$|Invalid input$)/;

export function checkMessages(schema: ZodTypeAny): string[] {
	const found = new Set<string>();
	const seen = new Set<ZodTypeAny>();
	const walk = (s: ZodTypeAny, root: boolean): void => {
		if (seen.has(s)) return;
		seen.add(s);
		const def = s._def as Record<string, unknown> & { checks?: Array<{ message?: string }> };
		// the body itself is always an object the node builds: its own type is no rule
		if (
			!root &&
			!(
				s instanceof ZodEffects ||
				s instanceof ZodOptional ||
				s instanceof ZodNullable ||
				s instanceof ZodUnknown
			)
		) {
			for (const wrong of [Symbol('wrong type'), undefined]) {
				const r = s.safeParse(wrong);
				const message = r.success ? undefined : r.error.issues[0].message;
				if (message && !ZOD_DEFAULT.test(message)) found.add(message);
			}
		}
		for (const c of def.checks ?? []) if (c.message) found.add(c.message);
		for (const k of ['minLength', 'maxLength', 'exactLength']) {
			const m = (def[k] as { message?: string } | null | undefined)?.message;
			if (m) found.add(m);
		}
		const shape =
			typeof def.shape === 'function' ? (def.shape as () => Record<string, ZodTypeAny>)() : {};
		const children = [
			def.schema,
			def.innerType,
			def.type,
			def.valueType,
			...((def.options as ZodTypeAny[] | undefined) ?? []),
			...Object.values(shape),
		];
		for (const c of children)
			if (c && typeof c === 'object' && '_def' in c) walk(c as ZodTypeAny, false);
	};
	walk(schema, true);
	return [...found];
}
