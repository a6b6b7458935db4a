/**
 * Schema-following answers: a minimal instance of a JSON schema (what OpenAI's structured outputs return), and the
 * ways a model's answer fails one (a required property missing, or no JSON at all) for clients' repair requests.
 *
 * Covered: `type` (object, array, string, number, integer, boolean, null, or a list of them: the first that is not
 * null), `properties` with `required` (only required properties are filled), `additionalProperties`, `items`,
 * `minItems`, `enum`, `const`, `default`, `anyOf`/`oneOf` (the first branch), `allOf` (merged), `$ref` to `#/…`
 * (`$defs`, `definitions`), `minimum`/`maximum`/`exclusiveMinimum`/`exclusiveMaximum`/`multipleOf`,
 * `minLength`/`maxLength`, and the string formats date-time, date, time, email, uri, uuid. Not covered: `pattern`,
 * `if`/`then`, `not`, `patternProperties`, `dependentRequired`.
 */

type Schema = Record<string, unknown>;

const isObj = (v: unknown): v is Schema => !!v && typeof v === 'object' && !Array.isArray(v);

const FORMATS: Record<string, string> = {
	'date-time': '2024-01-01T00:00:00Z',
	date: '2024-01-01',
	time: '00:00:00',
	email: 'user@example.com',
	uri: 'https://example.com/',
	uuid: '00000000-0000-4000-8000-000000000000',
};

function resolveRef(root: Schema, ref: string): Schema {
	if (!ref.startsWith('#')) return {};
	let at: unknown = root;
	for (const part of ref.slice(1).split('/').filter(Boolean))
		at = isObj(at) ? at[part.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
	return isObj(at) ? at : {};
}

/** The schema with `$ref` and `allOf` resolved (shallowly merged), `anyOf`/`oneOf` narrowed to their first branch. */
function normalise(root: Schema, s: Schema, depth: number): Schema {
	if (depth > 32) return {};
	let out: Schema = s;
	if (typeof out.$ref === 'string') {
		const { $ref, ...rest } = out;
		out = { ...normalise(root, resolveRef(root, $ref as string), depth + 1), ...rest };
	}
	if (Array.isArray(out.allOf)) {
		const { allOf, ...rest } = out;
		let merged: Schema = {};
		for (const part of allOf as unknown[]) {
			const p = isObj(part) ? normalise(root, part, depth + 1) : {};
			merged = {
				...merged,
				...p,
				properties: { ...(merged.properties as Schema), ...(p.properties as Schema) },
				required: [...((merged.required as string[]) ?? []), ...((p.required as string[]) ?? [])],
			};
		}
		out = { ...merged, ...rest };
	}
	for (const k of ['anyOf', 'oneOf']) {
		const branches = out[k];
		if (Array.isArray(branches) && branches.length) {
			const rest = { ...out };
			delete rest[k];
			const first = branches.find((b) => !(isObj(b) && b.type === 'null')) ?? branches[0];
			out = { ...rest, ...(isObj(first) ? normalise(root, first, depth + 1) : {}) };
		}
	}
	return out;
}

function typeOf(s: Schema): string | undefined {
	if (Array.isArray(s.type)) return (s.type as string[]).find((t) => t !== 'null') ?? 'null';
	if (typeof s.type === 'string') return s.type;
	if (isObj(s.properties) || Array.isArray(s.required)) return 'object';
	if (s.items !== undefined) return 'array';
	return undefined;
}

function numberFor(s: Schema, integer: boolean): number {
	const lo =
		typeof s.minimum === 'number'
			? s.minimum
			: typeof s.exclusiveMinimum === 'number'
				? s.exclusiveMinimum + (integer ? 1 : 0.5)
				: undefined;
	const hi =
		typeof s.maximum === 'number'
			? s.maximum
			: typeof s.exclusiveMaximum === 'number'
				? s.exclusiveMaximum - (integer ? 1 : 0.5)
				: undefined;
	let v = lo ?? (hi !== undefined && hi < 0 ? hi : 0);
	if (integer) v = Math.ceil(v);
	const step = typeof s.multipleOf === 'number' && s.multipleOf > 0 ? s.multipleOf : undefined;
	if (step) v = Math.ceil(v / step) * step;
	return v;
}

/** A minimal instance of `schema`; `text` fills the first free-form string (the model's answer), other strings are "sample". */
export function instanceOf(schema: unknown, text = 'sample'): unknown {
	const root = isObj(schema) ? schema : {};
	let textUsed = false;
	const gen = (raw: unknown, depth: number): unknown => {
		if (raw === true || raw === undefined) return {};
		if (!isObj(raw) || depth > 32) return null;
		const s = normalise(root, raw, depth);
		if ('const' in s) return s.const;
		if (Array.isArray(s.enum) && s.enum.length) return s.enum[0];
		if ('default' in s) return s.default;
		switch (typeOf(s)) {
			case 'object': {
				const props = isObj(s.properties) ? s.properties : {};
				const out: Record<string, unknown> = {};
				for (const k of Array.isArray(s.required) ? (s.required as string[]) : [])
					out[k] = gen(props[k], depth + 1);
				return out;
			}
			case 'array': {
				const n = typeof s.minItems === 'number' ? s.minItems : 0;
				return Array.from({ length: n }, () => gen(s.items, depth + 1));
			}
			case 'string': {
				if (typeof s.format === 'string' && FORMATS[s.format]) return FORMATS[s.format];
				let v = 'sample';
				if (!textUsed) {
					textUsed = true;
					v = text;
				}
				const min = typeof s.minLength === 'number' ? s.minLength : 0;
				const max = typeof s.maxLength === 'number' ? s.maxLength : Infinity;
				if (v.length > max) v = v.slice(0, max);
				if (v.length < min) v = v.padEnd(min, 'x');
				return v;
			}
			case 'integer':
				return numberFor(s, true);
			case 'number':
				return numberFor(s, false);
			case 'boolean':
				return false;
			case 'null':
				return null;
			default:
				return {};
		}
	};
	return gen(root, 0);
}

/**
 * An answer that fails the schema. `missing`: the instance without its first required property (when the schema has
 * none, a property of the wrong type; when it has no properties, not JSON); `not-json`: prose around a cut-off object.
 */
export function invalidAnswer(
	schema: unknown,
	instance: unknown,
	how: 'missing' | 'not-json',
): string {
	const root = isObj(schema) ? normalise(schema, schema, 0) : {};
	if (how === 'missing' && isObj(instance)) {
		const required = Array.isArray(root.required) ? (root.required as string[]) : [];
		if (required.length) {
			const out = { ...instance };
			delete out[required[0]];
			return JSON.stringify(out);
		}
		const props = isObj(root.properties) ? root.properties : {};
		const typed = Object.keys(props).find(
			(k) => isObj(props[k]) && typeOf(normalise(root, props[k] as Schema, 1)) !== undefined,
		);
		if (typed)
			return JSON.stringify({
				...instance,
				[typed]:
					typeOf(normalise(root, props[typed] as Schema, 1)) === 'string'
						? 0
						: 'not the right type',
			});
	}
	const json = JSON.stringify(instance);
	return `Sure! Here is the JSON you asked for: ${json.slice(0, Math.max(1, Math.floor(json.length / 2)))}`;
}
