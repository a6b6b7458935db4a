/**
 * Chat's and Responses' part of the item pipeline: read and check an item's body, send it once (a stream is read to
 * its end within the same exchange), and shape the answer. One request at a time, in item order, so answers stream
 * to n8n's chat in order. An answer that breaks after the gateway answered 2xx is a failed item, never a throw.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import type { PaidOperation } from '../runners/paid';
import { failure } from '../runners/failures';
import type { GatewayTransport } from '../transport';
import { readTextOptions } from './description';
import { sendText, textItem, type TextKind, type TextOutcome } from './run';
import { reportTokenUsage } from './tokenUsage';
import { tokenCountOf } from '../money/cost';
import { NodeOperationError } from 'n8n-workflow';
import { checkAgainstSchema, repairPrompt, type JsonSchemaFormat } from './jsonSchema';

export interface PreparedText {
	body: Record<string, unknown>;
	model: string;
	/** Response Format JSON Schema: the answer is checked, and gets one repair request when it does not validate */
	schema?: JsonSchemaFormat;
	simplify: boolean;
	idleMs: number;
	maxDurationMs: number;
}

/** `build` reads the item's own fields (messages or input) into a checked request body. */
export function textOperation(
	ctx: IExecuteFunctions,
	transport: GatewayTransport,
	kind: TextKind,
	build: (
		i: number,
		extraBody: unknown,
	) => Promise<{ body: Record<string, unknown>; model: string; schema?: JsonSchemaFormat }>,
): PaidOperation<PreparedText, TextOutcome> {
	const endpoint = `POST ${kind === 'chat' ? '/v1/chat/completions' : '/v1/responses'}`;
	return {
		prepare: async (i) => {
			const options = readTextOptions(ctx, i);
			const { body, model, schema } = await build(i, options.extraBody);
			return {
				body,
				model,
				schema,
				simplify: options.simplify,
				idleMs: options.idleMs,
				maxDurationMs: options.maxDurationMs,
			};
		},
		// with a JSON Schema an item may need a repair request: a per-call model counts as two calls (per-token: the usage of both)
		pricedAs: (p) => ({ model: p.model, calls: p.schema ? 2 : 1 }),
		quoteFields: (p) => ({
			model: p.model,
			endpoint: `POST ${kind === 'chat' ? '/v1/chat/completions' : '/v1/responses'}`,
		}),
		usageOf: (outcome) =>
			outcome.uncertain === undefined ? tokenCountOf(outcome.usage) : undefined,
		send: async (p, i) => {
			const opts = { idleMs: p.idleMs, maxDurationMs: p.maxDurationMs };
			if (!p.schema) return sendText(ctx, transport, kind, p.body, i, opts);
			// the answer is checked before anything of it reaches n8n's chat
			const first = await sendText(ctx, transport, kind, p.body, i, { ...opts, forward: false });
			if (first.uncertain !== undefined || first.failed || first.toolCalls?.length) return first;
			const check = checkAgainstSchema(first.text, p.schema.schema);
			if (check.ok) return { ...first, structured: check.value };
			// one repair request (inside the item's one paid place, after the first answer came back 2xx), never more
			const messages = [
				...((p.body.messages as unknown[]) ?? []),
				{ role: 'assistant', content: first.text },
				{ role: 'user', content: repairPrompt(check.errors) },
			];
			const second = await sendText(ctx, transport, kind, { ...p.body, messages }, i, {
				...opts,
				forward: false,
			});
			const usage = sumUsage(first.usage, second.usage);
			const repair = { errors: check.errors, first_usage: first.usage ?? null } as IDataObject;
			if (second.uncertain !== undefined || second.failed) return { ...second, usage, repair };
			const again = checkAgainstSchema(second.text, p.schema.schema);
			if (again.ok) return { ...second, usage, repair, structured: again.value };
			const error = new NodeOperationError(
				ctx.getNode(),
				`The answer does not match the JSON Schema "${p.schema.name}", also after one repair request: ${again.errors.join('; ')}`,
				{
					itemIndex: i,
					description: `The first answer failed with: ${check.errors.join('; ')}. Both calls were sent once each and may be billed; no further request is made. Make the schema simpler, describe the fields in the prompt, or use another model.`,
				},
			);
			return {
				...second,
				usage,
				repair,
				failed: { error, fields: { text: second.text, schema_errors: again.errors } },
			};
		},
		async finish(p, outcome) {
			const repair = outcome.repair ? { json_schema_repair: outcome.repair } : {};
			if (outcome.failed)
				return failure(outcome.failed.error, 'answer', true, {
					fields: { model: p.model, endpoint, ...outcome.failed.fields, ...repair } as IDataObject,
				});
			if (outcome.uncertain === undefined) reportTokenUsage(ctx, outcome.usage);
			const json = textItem(outcome, p.simplify, { kind, model: p.model });
			return {
				json:
					outcome.uncertain === undefined && outcome.structured !== undefined
						? { ...json, output: outcome.structured as IDataObject, ...repair }
						: { ...json, ...repair },
			};
		},
	};
}

/** Two answers' usage together (an answer and its repair request): every count summed, field by field. */
export function sumUsage(
	a: IDataObject | undefined,
	b: IDataObject | undefined,
): IDataObject | undefined {
	if (!a || !b) return a ?? b;
	const out: IDataObject = { ...a };
	for (const [k, v] of Object.entries(b)) {
		const mine = out[k];
		if (typeof v === 'number' && typeof mine === 'number') out[k] = mine + v;
		else if (
			v &&
			typeof v === 'object' &&
			!Array.isArray(v) &&
			mine &&
			typeof mine === 'object' &&
			!Array.isArray(mine)
		)
			out[k] = sumUsage(mine as IDataObject, v as IDataObject);
		else if (mine === undefined) out[k] = v;
	}
	return out;
}
