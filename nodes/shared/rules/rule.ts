/** A rule of our input: its zod schema, values it accepts, and values it refuses with what the refusal says. */
import type { ZodType, ZodTypeDef } from 'zod';

export interface Rule<T = unknown> {
	/** reads the value (e.g. "30" → 30; undefined when not set) or refuses it */
	schema: ZodType<T, ZodTypeDef, unknown>;
	/** values the rule accepts */
	good: unknown[];
	/** values the rule refuses, each with the start of the refusal; each becomes a case of the bad-input corpus */
	bad: Array<{ value: unknown; says: string }>;
}

/** A checked field of a node: its label as the editor shows it, and its rule. */
export interface Field<T = unknown> {
	label: string;
	rule: Rule<T>;
}

/** The checked fields of one place (a node's options collection, its top-level fields), by parameter name. */
export type Fields = Record<string, Field>;

export type FieldValues<F extends Fields> = {
	[K in keyof F]: F[K]['rule'] extends Rule<infer T> ? T : never;
};

const registry = new Map<string, Fields>();

/** Names a set of fields so the bad-input corpus can find it (a set the corpus does not place fails its test). */
export function fieldSet<F extends Fields>(name: string, fields: F): F {
	registry.set(name, fields);
	return fields;
}

export function registeredFieldSets(): ReadonlyMap<string, Fields> {
	return registry;
}

/** How a refusal shows the value it got: numbers as written (NaN, Infinity), everything else as JSON. */
export const shown = (v: unknown): string =>
	typeof v === 'number' ? String(v) : (JSON.stringify(v) ?? String(v));
