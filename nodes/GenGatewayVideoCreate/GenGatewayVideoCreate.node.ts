import type { IExecuteFunctions, INodeExecutionData, INodeType } from 'n8n-workflow';
import { createTransport } from '../shared/credentials';
import { forEachItem } from '../shared/router';
import { readVideoRequest, submitVideo, videoOrigin, videoOutput, type VideoCreateOptions } from '../shared/video/create';
import { searchVideoModels } from '../shared/video/models';
import { VideoPriceHints } from '../shared/video/price';
import { videoCreateDescription } from './description';

export class GenGatewayVideoCreate implements INodeType {
	description = videoCreateDescription;

	methods = { listSearch: { searchVideoModels } };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const { submitTimeoutMs } = this.getNodeParameter('options', 0, {}) as VideoCreateOptions;
		const transport = await createTransport(this, { videoSubmit: submitTimeoutMs && submitTimeoutMs > 0 ? submitTimeoutMs : undefined });
		const origin = videoOrigin(transport);
		const prices = new VideoPriceHints(transport);
		const hinted = new Set<string>();
		const hint = (message: string | undefined) => {
			if (!message || hinted.has(message)) return;
			hinted.add(message);
			this.addExecutionHints?.({ message, location: 'outputPane' });
		};
		return [
			await forEachItem(this, async (i) => {
				const req = await readVideoRequest(this, i, transport);
				req.hints.forEach(hint);
				const out = await submitVideo(transport, req);
				const json = videoOutput(req, origin, out);
				const expected = await prices.get(req.family, req.model, json.with_reference_video === true);
				if (expected) {
					json.expected_cost = expected;
					hint(expected);
				}
				return { json };
			}),
		];
	}
}
