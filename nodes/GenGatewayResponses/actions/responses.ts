import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { createTransport } from '../../shared/credentials';
import { runPaidItems } from '../../shared/runners/paid';
import { readStream, transportTimeout } from '../../shared/text/description';
import { textOperation } from '../../shared/text/paid';
import { RESERVED_FIELDS, mergeExtra, responsesBodySchema } from '../../shared/text/schemas';
import { withItemImages, withResponsesImages } from '../../shared/text/images';
import { readModel } from '../../shared/models';
import { parseOrThrow } from '../../shared/validate';

/** Responses: each item's input sent once on the paid pipeline (one at a time), plain or streamed. */
export async function sendResponses(ctx: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const transport = await createTransport(ctx, { text: transportTimeout(ctx) });
	return runPaidItems(
		ctx,
		transport,
		textOperation(ctx, transport, 'responses', async (i, extraBody) => {
			const model = readModel(ctx, i);
			const input = ctx.getNodeParameter('input', i, '');
			const stream = readStream(ctx, i);
			const sendable = await withItemImages(
				ctx,
				i,
				(t) => transport.redact(t) !== t,
				(images) =>
					parseOrThrow(
						responsesBodySchema,
						mergeExtra(
							{ model, input: withResponsesImages(input, images), stream },
							extraBody,
							'Extra Body Fields',
							RESERVED_FIELDS.responses,
						),
					),
			);
			return { ...sendable, model };
		}),
		{ maxConcurrency: 1, refusalWindowMs: transport.timeouts.submit },
	);
}
