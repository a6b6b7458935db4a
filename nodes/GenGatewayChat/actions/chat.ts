import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { createTransport } from '../../shared/credentials';
import { runPaidItems } from '../../shared/runners/paid';
import { readStream, transportTimeout } from '../../shared/text/description';
import { textOperation } from '../../shared/text/paid';
import { messagesFromJson } from './messagesJson';
import { RESERVED_FIELDS, chatBodySchema, mergeExtra } from '../../shared/text/schemas';
import { itemImages, withChatImages } from '../../shared/text/images';
import { chatResponseFormat, readJsonSchemaFormat } from '../../shared/text/jsonSchema';
import { readModel } from '../../shared/ui';
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
			const o = ctx.getNodeParameter('options', i, {}) as {
				responseFormat?: string;
				jsonSchema?: unknown;
				schemaName?: unknown;
				strictSchema?: unknown;
			};
			const schema =
				o.responseFormat === 'json_schema'
					? readJsonSchemaFormat('JSON Schema', o.jsonSchema ?? '', o.schemaName, o.strictSchema)
					: undefined;
			const format = schema
				? { response_format: chatResponseFormat(schema) }
				: o.responseFormat === 'json_object'
					? { response_format: { type: 'json_object' } }
					: {};
			const own = {
				model,
				messages: withChatImages(messages, await itemImages(ctx, i)),
				stream: readStream(ctx, i),
				...format,
			};
			const body = mergeExtra(own, extraBody, 'Extra Body Fields', [
				...RESERVED_FIELDS.chat,
				...Object.keys(format),
			]);
			return { body: parseOrThrow(chatBodySchema, body), model, schema };
		}),
		{ maxConcurrency: 1, refusalWindowMs: transport.timeouts.submit },
	);
}
