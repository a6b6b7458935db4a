import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { createTransport } from '../../shared/credentials';
import { runPaidBatch } from '../../shared/runners/paid';
import { transportTimeout } from '../../shared/text/description';
import { textBatch } from '../../shared/text/batch';
import { messagesFromJson } from '../../shared/text/messagesJson';
import { RESERVED_FIELDS, chatBodySchema, mergeExtra } from '../../shared/text/schemas';
import { readModel } from '../../shared/ui';
import { parseOrThrow } from '../../shared/validate';

/** Chat: each item's messages sent once on the paid pipeline (one at a time), plain or streamed. */
export async function sendChat(ctx: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const transport = await createTransport(ctx, { text: transportTimeout(ctx) });
	return runPaidBatch(
		ctx,
		transport,
		textBatch(ctx, transport, 'chat', (i, extraBody) => {
			const messages =
				ctx.getNodeParameter('messagesFrom', i, 'ui') === 'json'
					? messagesFromJson(ctx.getNodeParameter('messagesJson', i), 'Messages JSON')
					: ((ctx.getNodeParameter('messages', i, {}) as { values?: unknown[] }).values ?? []);
			const model = readModel(ctx, i);
			const body = mergeExtra({ model, messages, stream: ctx.getNodeParameter('stream', i, false) }, extraBody, 'Extra Body Fields', RESERVED_FIELDS.chat);
			return { body: parseOrThrow(chatBodySchema, body), model };
		}),
		{ maxConcurrency: 1, refusalWindowMs: transport.timeouts.submit },
	);
}
