import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { createTransport } from '../../shared/credentials';
import { runPaidItems } from '../../shared/runners/paid';
import { readStream, transportTimeout } from '../../shared/text/description';
import { textOperation } from '../../shared/text/paid';
import { messagesFromJson } from './messagesJson';
import { RESERVED_FIELDS, chatBodySchema, mergeExtra } from '../../shared/text/schemas';
import { withChatImages, withItemImages } from '../../shared/text/images';
import { chatResponseFormat, readResponseFormat } from '../../shared/text/jsonSchema';
import { readModel } from '../../shared/models';
import { parseOrThrow } from '../../shared/validate';

/** Chat: each item's messages sent once on the paid pipeline (one at a time), plain or streamed. */
export async function sendChat(ctx: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const transport = await createTransport(ctx, { text: transportTimeout(ctx) });
	return runPaidItems(
		ctx,
		transport,
		textOperation(ctx, transport, 'chat', async (i, extraBody) => {
			const messages =
				ctx.getNodeParameter('messagesFrom', i, 'ui') === 'json'
					? messagesFromJson(ctx.getNodeParameter('messagesJson', i), 'Messages JSON')
					: ((ctx.getNodeParameter('messages', i, {}) as { values?: unknown[] }).values ?? []);
			const model = readModel(ctx, i);
			const { type, schema } = readResponseFormat(
				ctx.getNodeParameter('options', i, {}) as Record<string, unknown>,
			);
			const format = schema
				? { response_format: chatResponseFormat(schema) }
				: type === 'json_object'
					? { response_format: { type: 'json_object' } }
					: {};
			const own = { model, stream: readStream(ctx, i), ...format };
			const sendable = await withItemImages(
				ctx,
				i,
				(t) => transport.redact(t) !== t,
				(images) =>
					parseOrThrow(
						chatBodySchema,
						mergeExtra(
							{ ...own, messages: withChatImages(messages, images) },
							extraBody,
							'Extra Body Fields',
							[...RESERVED_FIELDS.chat, ...Object.keys(format)],
						),
					),
			);
			return { ...sendable, model, schema };
		}),
		{ maxConcurrency: 1, refusalWindowMs: transport.timeouts.submit },
	);
}
