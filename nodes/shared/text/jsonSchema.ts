/**
 * Structured output: the JSON Schema a user gives (Response Format: JSON Schema), the request field that asks for it
 * (chat `response_format: {type: "json_schema", json_schema: {name, schema, strict}}`, responses
 * `text.format: {type: "json_schema", name, schema, strict}`), and the check of the answer against it. The schema is
 * checked with @cfworker/json-schema (drafts 4, 7, 2019-09 and 2020-12; no code generation, no dependencies). A model
 * may still answer with text that does not validate: the caller sends at most one repair request (the invalid
 * answer and what is wrong with it), never more.
 */
import { Validator, type Schema } from '@cfworker/json-schema';
import type { INodeProperties } from 'n8n-workflow';
import { FLAG_RULE } from '../rules/options';
import { readField, refuse } from '../validate';

export interface JsonSchemaFormat {
	/** the format's name (the wire requires one: [A-Za-z0-9_-], at most 64) */
	name: string;
	schema: Record<string, unknown>;
	/** ask the gateway to hold the model to the schema strictly (OpenAI's `strict`) */
	strict: boolean;
}

/** How many validation errors a repair request or an error message names at most. */
const MAX_ERRORS = 5;

/** Reads the Schema field (a JSON object as text, or an object from an expression) and the name; refuses before any request. */
export function readJsonSchemaFormat(
	field: string,
	schemaValue: unknown,
	name: unknown,
	strict: unknown,
): JsonSchemaFormat {
	let schema: unknown = schemaValue;
	if (typeof schema === 'string') {
		if (!schema.trim())
			refuse([
				{
					field,
					rule: 'is empty: give a JSON Schema (a JSON object such as {"type":"object","properties":{…},"required":[…]})',
				},
			]);
		try {
			schema = JSON.parse(schema);
		} catch (err) {
			refuse([{ field, rule: `is not valid JSON (${(err as Error).message})` }]);
		}
	}
	if (!schema || typeof schema !== 'object' || Array.isArray(schema))
		refuse([{ field, rule: 'must be a JSON object (a JSON Schema)' }]);
	const n = typeof name === 'string' && name.trim() ? name.trim() : 'answer';
	if (!/^[A-Za-z0-9_-]{1,64}$/.test(n))
		refuse([{ field: 'Schema Name', rule: 'must be 1 to 64 letters, digits, _ or -' }]);
	try {
		new Validator(schema as Schema, '2020-12', false);
	} catch (err) {
		refuse([{ field, rule: `is not a usable JSON Schema (${(err as Error).message})` }]);
	}
	const strictRead = readField('Strict Schema', FLAG_RULE, strict) ?? true;
	return { name: n, schema: schema as Record<string, unknown>, strict: strictRead };
}

/** The chat body's field. */
export const chatResponseFormat = (f: JsonSchemaFormat) => ({
	type: 'json_schema',
	json_schema: { name: f.name, schema: f.schema, strict: f.strict },
});

/** The responses body's `text` field. */
export const responsesTextFormat = (f: JsonSchemaFormat) => ({
	format: { type: 'json_schema', name: f.name, schema: f.schema, strict: f.strict },
});

export type SchemaCheck = { ok: true; value: unknown } | { ok: false; errors: string[] };

/** Whether the answer's text is JSON that validates against the schema; what is wrong when not (at most MAX_ERRORS lines). */
export function checkAgainstSchema(text: string, schema: Record<string, unknown>): SchemaCheck {
	let value: unknown;
	const trimmed = text.trim();
	// a model may wrap its JSON in a Markdown code fence
	const fenced = /^```(?:json)?\s*\n([\s\S]*?)\n?```$/i.exec(trimmed);
	try {
		value = JSON.parse(fenced ? fenced[1] : trimmed);
	} catch (err) {
		return {
			ok: false,
			errors: [`the answer is not JSON (${(err as Error).message.slice(0, 120)})`],
		};
	}
	const result = new Validator(schema as Schema, '2020-12', false).validate(value);
	if (result.valid) return { ok: true, value };
	// the leaf errors say what is wrong; the ones above them only say that a subschema failed
	const leaves = result.errors.filter(
		(e) =>
			!result.errors.some(
				(o) =>
					o !== e &&
					o.instanceLocation.startsWith(e.instanceLocation) &&
					o.keywordLocation.startsWith(`${e.keywordLocation}/`),
			),
	);
	const lines = (leaves.length ? leaves : result.errors).map(
		(e) => `${e.instanceLocation.replace(/^#/, '') || '(the whole answer)'}: ${e.error}`,
	);
	return { ok: false, errors: [...new Set(lines)].slice(0, MAX_ERRORS) };
}

/** The user message of the one repair request. */
export function repairPrompt(errors: string[]): string {
	return (
		`Your previous answer does not match the required JSON Schema:\n- ` +
		`${errors.join('\n- ')}\nAnswer again with only the JSON value that matches the ` +
		`schema, nothing else.`
	);
}

/** The Response Format fields of the Chat node and the Chat Model, by name (each node places them in its panel). */
type ResponseFormatFields = Record<
	'responseFormat' | 'jsonSchema' | 'schemaName' | 'strictSchema',
	INodeProperties
>;

/** The schema the JSON Schema field starts with (also what an unchanged field, which n8n does not store, reads as). */
const EXAMPLE_SCHEMA =
	'{\n  "type": "object",\n  "properties": {\n    "answer": { "type": "string" }\n  },\n  "required": ["answer"],\n  "additionalProperties": false\n}';

/** Version 1 of the Chat node and the Chat Model (workflows made before 1.1) keeps the four fields as options of their own. */
const V1 = { '@version': [1] };
/** Version 1.1 (new nodes): the fields sit in one Response Format option, and the schema shows as soon as JSON Schema is picked. */
const V11 = { '@version': [{ _cnd: { gte: 1.1 } }] };

/**
 * The four fields, declared once for the Chat node and the Chat Model; `afterRepair` says what follows when the one
 * repair request fails too (the Chat node's item fails; the Chat Model's agent gets an error). The three schema fields
 * show when the Response Format field beside them says JSON Schema: inside the Response Format option (version 1.1)
 * and, in version 1, among the node's options.
 */
function formatFields(afterRepair: string): ResponseFormatFields {
	const forSchema = () => ({ show: { responseFormat: ['json_schema'] } });
	return {
		responseFormat: {
			displayName: 'Response Format',
			name: 'responseFormat',
			type: 'options',
			options: [
				{ name: 'Text', value: 'text' },
				{
					name: 'JSON',
					value: 'json_object',
					description: 'JSON mode (response_format json_object): say so in the prompt too',
				},
				{
					name: 'JSON Schema',
					value: 'json_schema',
					description:
						'The answer must validate against the JSON Schema (response_format json_schema; one repair request at most)',
				},
			],
			default: 'text',
		},
		jsonSchema: {
			displayName: 'JSON Schema',
			name: 'jsonSchema',
			type: 'json',
			default: EXAMPLE_SCHEMA,
			description:
				`The schema the answer must validate against. An answer that does not gets one ` +
				`repair request (counted in the cost and Max Expected Spend), never more; then ${afterRepair}.`,
			displayOptions: forSchema(),
		},
		schemaName: {
			displayName: 'Schema Name',
			name: 'schemaName',
			type: 'string',
			default: 'answer',
			description: 'The name the request gives the schema (letters, digits, _ and -)',
			displayOptions: forSchema(),
		},
		strictSchema: {
			displayName: 'Strict Schema',
			name: 'strictSchema',
			type: 'boolean',
			default: true,
			description:
				'Whether to ask the gateway to hold the model to the schema strictly (strict: true). The answer is checked here either way.',
			displayOptions: forSchema(),
		},
	};
}

/** Adds a version condition to a field's own display conditions. */
const atVersion = (p: INodeProperties, version: typeof V1 | typeof V11): INodeProperties => ({
	...p,
	displayOptions: { ...p.displayOptions, show: { ...p.displayOptions?.show, ...version } },
});

/**
 * The Response Format options of the Chat node and the Chat Model, for their Options collection. Version 1.1: one
 * option, Response Format (`options.format.values`), that starts at JSON Schema with the schema field under it, as n8n's
 * own OpenAI Chat Model groups its Response Format; version 1: the four options of before, by the same names
 * (`options.responseFormat`, `options.jsonSchema`, …), which `readResponseFormat` reads too.
 */
export function responseFormatOptions(afterRepair: string): {
	/** version 1.1's one option */
	format: INodeProperties;
	/** version 1's four options, by name (each node keeps them where they were in its panel) */
	v1: ResponseFormatFields;
} {
	const fields = formatFields(afterRepair);
	const v1 = Object.fromEntries(
		Object.entries(fields).map(([name, p]) => [name, atVersion(p, V1)]),
	) as ResponseFormatFields;
	return {
		format: {
			displayName: 'Response Format',
			name: 'format',
			type: 'fixedCollection',
			default: { values: { responseFormat: 'json_schema' } },
			description:
				'What the answer must be: text, JSON, or JSON that validates against a JSON Schema (the schema shows when JSON Schema is picked)',
			displayOptions: { show: V11 },
			options: [
				{
					displayName: 'Format',
					name: 'values',
					values: [
						{ ...fields.responseFormat, displayName: 'Type' },
						fields.jsonSchema,
						fields.schemaName,
						fields.strictSchema,
					],
				},
			],
		},
		v1,
	};
}

/** What the Response Format options say: the format, and with JSON Schema the schema (refused before any request when unusable). */
export interface ResponseFormatChoice {
	type: 'text' | 'json_object' | 'json_schema';
	schema?: JsonSchemaFormat;
}

/**
 * Reads the Response Format of a node's options: version 1.1's Response Format option (`format.values`), else version
 * 1's four options (a workflow saved before 1.1). A field n8n left out because it holds its default reads as that default.
 */
export function readResponseFormat(options: Record<string, unknown>): ResponseFormatChoice {
	const inner = (options.format as { values?: Record<string, unknown> } | undefined)?.values;
	const o = inner ?? options;
	const raw = o.responseFormat ?? 'text';
	const type = raw === 'json_object' || raw === 'json_schema' ? raw : 'text';
	if (type !== 'json_schema') return { type };
	const schema = o.jsonSchema ?? (inner ? EXAMPLE_SCHEMA : '');
	return {
		type,
		schema: readJsonSchemaFormat('JSON Schema', schema, o.schemaName, o.strictSchema),
	};
}

/** The tool n8n's AI Agent offers the model when a Structured Output Parser is attached: its parameters are the parser's schema. */
export const PARSER_TOOL = 'format_final_json_response';

/**
 * Whether a text answer fits the Structured Output Parser's schema the way n8n's agent reads a text answer: the JSON
 * value is the parser's `output` (the agent wraps it), or an object that holds `output` itself. Lenient on purpose:
 * what fails here also fails in the agent, with n8n's words "Model output doesn't fit required format".
 */
export function checkAgainstParser(text: string, toolSchema: unknown): SchemaCheck {
	if (!toolSchema || typeof toolSchema !== 'object') return { ok: true, value: undefined };
	const whole = toolSchema as Record<string, unknown>;
	const output = (whole.properties as Record<string, unknown> | undefined)?.output;
	// the output's schema keeps the definitions its references may point to
	const shared = Object.fromEntries(
		['$schema', '$defs', 'definitions'].filter((k) => k in whole).map((k) => [k, whole[k]]),
	);
	const asOutput =
		output && typeof output === 'object'
			? checkAgainstSchema(text, { ...shared, ...(output as Record<string, unknown>) })
			: undefined;
	if (asOutput?.ok) return asOutput;
	const asWhole = checkAgainstSchema(text, whole);
	return asWhole.ok || !asOutput ? asWhole : asOutput;
}

/** What the Chat Model says when its answer cannot fit the agent's Structured Output Parser and it has no schema of its own. */
export function parserMismatch(errors: string[]): { message: string; description: string } {
	return {
		message: `the AI Agent has a Structured Output Parser, and the model answered text that does not fit its schema: ${errors.join('; ')}`,
		description:
			"Give the GenGateway Chat Model the parser's schema: Options → Response Format " +
			"→ JSON Schema, and paste the Structured Output Parser's JSON schema there. The " +
			'request then asks the gateway for that schema (response_format) and the answer ' +
			'is checked, with one repair request at most. This answer was sent once and may ' +
			'be billed; no further request was made.',
	};
}

/** What a JSON Schema answer that failed its one repair request says (the Chat node's item, the Chat Model's turn). */
export function repairFailure(
	schemaName: string,
	firstErrors: string[],
	againErrors: string[],
): { message: string; description: string } {
	return {
		message: `does not match the JSON Schema "${schemaName}", also after one repair request: ${againErrors.join('; ')}`,
		description:
			`The first answer failed with: ${firstErrors.join('; ')}. Both calls were sent ` +
			`once each and may be billed; no further request is made. Make the schema ` +
			`simpler, describe the fields in the prompt, or use another model.`,
	};
}
