/**
 * Chat's and Responses' part of the item pipeline: read and check an item's body, send it once (a stream is read to
 * its end within the same exchange), and shape the answer. One request at a time, in item order, so answers stream
 * to n8n's chat in order. An answer that breaks after the gateway answered 2xx is a failed item, never a throw.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import type { FollowUp, PaidOperation } from '../runners/paid';
import { failure, type PaidFailure } from '../runners/failures';
import type { GatewayTransport } from '../transport';
import { readTextOptions } from './description';
import { sendText, textItem, type TextKind, type TextOutcome } from './run';
import { reportTokenUsage } from './tokenUsage';
import { tokenCountOf } from '../money/tokens';
import { NodeOperationError } from 'n8n-workflow';
import {
	checkAgainstSchema,
	repairFailure,
	repairPrompt,
	type JsonSchemaFormat,
} from './jsonSchema';
import type { LedgerEntry } from '../runners/ledger';

type Body = Record<string, unknown>;

/** What an item's build hands the text operation (everything checked already). */
export interface BuiltText {
	model: string;
	/** Response Format JSON Schema: the answer is checked, and gets one repair request when it does not validate */
	schema?: JsonSchemaFormat;
	/** the request body as sent: the item's images are read (and checked) again now (./images.ts withItemImages) */
	body(): Promise<Body>;
}

export interface PreparedText extends BuiltText {
	simplify: boolean;
	idleMs: number;
	maxDurationMs: number;
}

/** What the text operation's phases share: the node's context, its transport, and which endpoint it sends to. */
interface TextRun {
	ctx: IExecuteFunctions;
	transport: GatewayTransport;
	kind: TextKind;
	/** `POST /v1/chat/completions` or `POST /v1/responses` */
	endpoint: string;
}

/** `build` reads the item's own fields (messages or input) into a checked request body. */
export function textOperation(
	ctx: IExecuteFunctions,
	transport: GatewayTransport,
	kind: TextKind,
	build: (i: number, extraBody: unknown) => Promise<BuiltText>,
): PaidOperation<PreparedText, TextOutcome> {
	const endpoint = `POST ${kind === 'chat' ? '/v1/chat/completions' : '/v1/responses'}`;
	const run: TextRun = { ctx, transport, kind, endpoint };
	return {
		prepare: (i) => prepareText(ctx, build, i),
		// with a JSON Schema an item may need a repair request: the cap and a quote count both requests of a per-call
		// model, the record the requests sent (per-token: the usage of both)
		pricedAs: (p) => ({ model: p.model, calls: 1, requests: p.schema ? 2 : 1 }),
		quoteFields: (p) => ({ model: p.model, endpoint }),
		usagesOf: (outcome) =>
			outcome.requestUsages?.map((u) => tokenCountOf(u)) ?? [
				outcome.uncertain === undefined ? tokenCountOf(outcome.usage) : undefined,
			],
		send: (p, i) => sendChecked(run, p, i),
		followUp: (p, first, i) => repairFollowUp(run, p, first, i),
		finish: (p, outcome) => finishText(run, p, outcome),
	};
}

/** check: the item's body and its options (the stream's idle and total time, Simplify Output). */
async function prepareText(
	ctx: IExecuteFunctions,
	build: (i: number, extraBody: unknown) => Promise<BuiltText>,
	i: number,
): Promise<PreparedText> {
	const options = readTextOptions(ctx, i);
	return {
		...(await build(i, options.extraBody)),
		simplify: options.simplify,
		idleMs: options.idleMs,
		maxDurationMs: options.maxDurationMs,
	};
}

/** send: the request, once; with a JSON Schema its answer is checked before anything of it reaches n8n's chat. */
async function sendChecked(run: TextRun, p: PreparedText, i: number): Promise<TextOutcome> {
	const { ctx, transport, kind } = run;
	const opts = { idleMs: p.idleMs, maxDurationMs: p.maxDurationMs };
	const body = await p.body();
	if (!p.schema) return sendText(ctx, transport, kind, body, i, opts);
	const first = await sendText(ctx, transport, kind, body, i, { ...opts, forward: false });
	if (first.uncertain !== undefined || first.failed || first.toolCalls?.length) return first;
	const check = checkAgainstSchema(first.text, p.schema.schema);
	return check.ok
		? { ...first, structured: check.value }
		: { ...first, schemaErrors: check.errors };
}

/**
 * One repair request for an answer that did not validate: its own paid send (spend scope, 429 rule, ledger place),
 * never more, and whatever happens to it the first request stays answered and paid.
 */
function repairFollowUp(
	run: TextRun,
	p: PreparedText,
	first: TextOutcome,
	i: number,
): FollowUp<TextOutcome> | undefined {
	const { ctx, transport, kind } = run;
	const schema = p.schema;
	const errors = first.schemaErrors;
	if (!schema || !errors) return undefined;
	const opts = { idleMs: p.idleMs, maxDurationMs: p.maxDurationMs, forward: false };
	return {
		// the conversation as first sent (its images read again), the answer, and what to repair
		send: async () => {
			const body = await p.body();
			const messages = [
				...((body.messages as unknown[]) ?? []),
				{ role: 'assistant', content: first.text },
				{ role: 'user', content: repairPrompt(errors) },
			];
			return sendText(ctx, transport, kind, { ...body, messages }, i, opts);
		},
		join: (second) =>
			joinRepair(ctx, i, schema, { ...first, schemaErrors: undefined }, errors, second),
	};
}

/** finish: the answer into the item (its structured output, the repair's account), or the item's failure. */
async function finishText(
	run: TextRun,
	p: PreparedText,
	outcome: TextOutcome,
): Promise<INodeExecutionData | PaidFailure> {
	const repair = outcome.repair ? { json_schema_repair: outcome.repair } : {};
	if (outcome.failed)
		return failure(outcome.failed.error, 'answer', true, {
			fields: {
				model: p.model,
				endpoint: run.endpoint,
				...outcome.failed.fields,
				...repair,
			} as IDataObject,
		});
	if (outcome.uncertain === undefined) reportTokenUsage(run.ctx, outcome.usage);
	const json = textItem(outcome, p.simplify, { kind: run.kind, model: p.model });
	return {
		json:
			outcome.uncertain === undefined && outcome.structured !== undefined
				? { ...json, output: outcome.structured as IDataObject, ...repair }
				: { ...json, ...repair },
	};
}

/** An answer that did not validate, with what its repair request got: the item's outcome. */
function joinRepair(
	ctx: IExecuteFunctions,
	i: number,
	schema: JsonSchemaFormat,
	first: TextOutcome,
	errors: string[],
	second: LedgerEntry<TextOutcome> | { refused: unknown },
): TextOutcome {
	const repair = { errors, first_usage: first.usage ?? null } as IDataObject;
	const failed = (message: string, description: string, fields: IDataObject): TextOutcome => ({
		...first,
		repair,
		failed: {
			error: new NodeOperationError(ctx.getNode(), message, { itemIndex: i, description }),
			fields: { text: first.text, schema_errors: errors, ...fields },
		},
	});
	if ('refused' in second) {
		const why = second.refused instanceof Error ? second.refused.message : String(second.refused);
		return failed(
			`The answer does not match the JSON Schema "${schema.name}", and its repair request was refused: ${why}`,
			`The first answer failed with: ${errors.join('; ')}. It was answered and may be billed; the repair request created nothing and is not sent again.`,
			{},
		);
	}
	if ('lost' in second) {
		const why = second.lost instanceof Error ? second.lost.message : String(second.lost);
		return {
			...first,
			repair,
			uncertain: `the JSON Schema repair request left and then failed: ${why}`,
			requestUsages: [first.usage, undefined],
		};
	}
	const answer = second.sent;
	const usage = sumUsage(first.usage, answer.usage);
	const requestUsages = [first.usage, answer.uncertain === undefined ? answer.usage : undefined];
	if (answer.uncertain !== undefined || answer.failed)
		return { ...answer, usage, repair, requestUsages };
	const again = checkAgainstSchema(answer.text, schema.schema);
	if (again.ok) return { ...answer, usage, repair, requestUsages, structured: again.value };
	const words = repairFailure(schema.name, errors, again.errors);
	return {
		...answer,
		usage,
		repair,
		requestUsages,
		failed: {
			error: new NodeOperationError(ctx.getNode(), `The answer ${words.message}`, {
				itemIndex: i,
				description: words.description,
			}),
			fields: { text: answer.text, schema_errors: again.errors },
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
