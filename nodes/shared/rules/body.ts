/**
 * Rules of request bodies, the twin of ./rule.ts for whole bodies: each rule is declared beside its schema with the
 * field its refusal names and what it says. The schemas refuse only through these declarations (`violate`, or a
 * declared rule's words as a zod check's message), so the bad-input corpus generated from them has a case for every
 * rule. Each rule has example bodies it accepts and refuses: declared with it, or (Video Create's many examples) in a
 * test module beside the corpus (`test/fixtures/video-rules.ts`), so the runtime does not carry them.
 */
import type { RefinementCtx, ZodTypeAny } from 'zod';
import type { Obj } from '../jsonObject';

export interface BodyRule {
	/** the field its refusal names, as the refusal shows it: size, metadata.content, messages[0].role */
	field: string;
	/** the fixed words of its refusal (a refusal may add the value it got around them) */
	says: string;
}

/** The example bodies of a rule. */
export interface BodyExamples {
	/** changes to the set's valid body that the rule accepts (null removes a field) */
	good: Obj[];
	/** changes to the set's valid body that break this rule alone; each becomes a case of the bad-input corpus */
	bad: Obj[];
}

/** A set's rules by id; a rule's examples are here or in the test module that declares them for the set. */
export type BodyRules = Record<string, BodyRule & Partial<BodyExamples>>;

export interface BodyRuleSet {
	schema: () => ZodTypeAny;
	/** a body every rule of the set accepts; the examples change it (with the examples: here or in the tests) */
	valid?: Obj;
	rules: BodyRules;
}

const registry = new Map<string, BodyRuleSet>();

/** Names the rules of one body schema so the bad-input corpus can find them (a set the corpus does not place fails its test). */
export function bodyRuleSet<R extends BodyRules>(
	name: string,
	set: { schema: () => ZodTypeAny; valid?: Obj; rules: R },
): R {
	registry.set(name, set);
	return set.rules;
}

export function registeredBodyRuleSets(): ReadonlyMap<string, BodyRuleSet> {
	return registry;
}

/** The body an example stands for: the valid body with the example's fields, a null removing one (as Extra Body Fields do). */
export function withChanges(valid: Obj, changes: Obj): Obj {
	const out: Obj = { ...valid, ...changes };
	for (const [k, v] of Object.entries(changes)) if (v === null) delete out[k];
	return out;
}

/** Refuses a body by a declared rule at `path` (the rule's field unless given); `message` holds the rule's words with the value. */
export function violate(
	ctx: RefinementCtx,
	rule: BodyRule,
	path: Array<string | number> = rule.field.split('.'),
	message = rule.says,
): void {
	ctx.addIssue({ code: 'custom', path, message });
}
