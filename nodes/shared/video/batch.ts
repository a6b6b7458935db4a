/** Video Create's part of the item pipeline: read and check an item, create the task once, shape the output item. */
import type { IExecuteFunctions } from 'n8n-workflow';
import type { PaidBatch } from '../pipeline/batch';
import { pickTaskId } from '../status';
import type { GatewayTransport, SubmitOutcome } from '../transport/http';
import { readVideoRequest, submitVideo, videoOrigin, videoOutput, type VideoRequest } from './create';
import { VideoPriceHints } from './price';

export function videoBatch(ctx: IExecuteFunctions, transport: GatewayTransport): PaidBatch<VideoRequest, SubmitOutcome> {
	const origin = videoOrigin(transport);
	const prices = new VideoPriceHints(transport);
	const hinted = new Set<string>();
	const hint = (message: string | undefined) => {
		if (!message || hinted.has(message)) return;
		hinted.add(message);
		ctx.addExecutionHints?.({ message, location: 'outputPane' });
	};
	return {
		prepare: (i) => readVideoRequest(ctx, i, transport),
		async beforeSend(prepared) {
			for (const req of prepared) req?.hints.forEach(hint);
		},
		send: (req) => submitVideo(transport, req),
		taskIdOf: (out) => (out.kind === 'accepted' ? pickTaskId(out.body) : undefined),
		async finish(req, out) {
			const json = videoOutput(req, origin, out);
			const expected = await prices.get(req.family, req.model, json.with_reference_video === true);
			if (expected) {
				json.expected_cost = expected;
				hint(expected);
			}
			return { json };
		},
	};
}
