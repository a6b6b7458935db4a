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
	return `Your previous answer does not match the required JSON Schema:\n- ${errors.join('\n- ')}\nAnswer again with only the JSON value that matches the schema, nothing else.`;
}

/** The Response Format options of the Chat node and the Chat Model, by name (each node places them in its panel). */
type ResponseFormatFields = Record<
	'responseFormat' | 'jsonSchema' | 'schemaName' | 'strictSchema',
	INodeProperties
>;

/**
 * The Response Format options, declared once for the Chat node and the Chat Model; `afterRepair` says what follows
 * when the one repair request fails too (the Chat node's item fails; the Chat Model's agent gets an error).
 */
export function responseFormatFields(afterRepair: string): ResponseFormatFields {
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
			default:
				'{\n  "type": "object",\n  "properties": {\n    "answer": { "type": "string" }\n  },\n  "required": ["answer"],\n  "additionalProperties": false\n}',
			description: `The schema the answer must validate against. An answer that does not gets one repair request (counted in the cost and Max Expected Spend), never more; then ${afterRepair}.`,
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

/** What a JSON Schema answer that failed its one repair request says (the Chat node's item, the Chat Model's turn). */
export function repairFailure(
	schemaName: string,
	firstErrors: string[],
	againErrors: string[],
): { message: string; description: string } {
	return {
		message: `does not match the JSON Schema "${schemaName}", also after one repair request: ${againErrors.join('; ')}`,
		description: `The first answer failed with: ${firstErrors.join('; ')}. Both calls were sent once each and may be billed; no further request is made. Make the schema simpler, describe the fields in the prompt, or use another model.`,
	};
}
