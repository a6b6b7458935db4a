/**
 * Chat's and Responses' part of the item pipeline: read and check an item's body, send it once (a stream is read to
 * its end within the same exchange), and shape the answer. One request at a time, in item order, so answers stream
 * to n8n's chat in order. An answer that breaks after the gateway answered 2xx is a failed item, never a throw.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import type { PaidBatch } from '../runners/paid';
import { failure } from '../runners/failures';
import type { GatewayTransport } from '../transport';
import { readTextOptions } from './description';
import { sendText, textItem, type TextKind, type TextOutcome } from './run';
import { reportTokenUsage } from './tokenUsage';
import { tokenCountOf } from '../money/cost';

export interface PreparedText {
	body: Record<string, unknown>;
	model: string;
	simplify: boolean;
	idleMs: number;
	maxDurationMs: number;
}

/** `build` reads the item's own fields (messages or input) into a checked request body. */
export function textBatch(ctx: IExecuteFunctions, transport: GatewayTransport, kind: TextKind, build: (i: number, extraBody: unknown) => { body: Record<string, unknown>; model: string }): PaidBatch<PreparedText, TextOutcome> {
	return {
		prepare: async (i) => {
			const options = readTextOptions(ctx, i);
			const { body, model } = build(i, options.extraBody);
			return { body, model, simplify: options.simplify, idleMs: options.idleMs, maxDurationMs: options.maxDurationMs };
		},
		pricedAs: (p) => ({ model: p.model, calls: 1 }),
		quoteFields: (p) => ({ model: p.model, endpoint: `POST ${kind === 'chat' ? '/v1/chat/completions' : '/v1/responses'}` }),
		usageOf: (outcome) => (outcome.uncertain === undefined ? tokenCountOf(outcome.usage) : undefined),
		send: (p, i) => sendText(ctx, transport, kind, p.body, i, { idleMs: p.idleMs, maxDurationMs: p.maxDurationMs }),
		async finish(p, outcome) {
			if (outcome.failed) return failure(outcome.failed.error, 'answer', true, { fields: { model: p.model, endpoint: `POST ${kind === 'chat' ? '/v1/chat/completions' : '/v1/responses'}`, ...outcome.failed.fields } as IDataObject });
			if (outcome.uncertain === undefined) reportTokenUsage(ctx, outcome.usage);
			return { json: textItem(outcome, p.simplify, { kind, model: p.model }) };
		},
	};
}
