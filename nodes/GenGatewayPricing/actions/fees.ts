import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import type { FreeOperation } from '../../shared/runners/free';
import {
	estimateVideoCost,
	settleTask,
	type EstimateInputs,
	type ReferenceChoice,
	type SettleInputs,
} from './operations';
import type { GatewayTransport } from '../../shared/transport';
import type { OriginKind } from '../../shared/transport';

function feeInputs(ctx: IExecuteFunctions, i: number) {
	const options = ctx.getNodeParameter('options', i, {}) as { groupName?: string };
	return {
		groupRatio: ctx.getNodeParameter('groupRatio', i, 0) as unknown,
		groupName: options.groupName,
		reference: ctx.getNodeParameter('referenceVideo', i) as ReferenceChoice,
	};
}

function feeOperation<P>(
	check: (i: number) => P,
	run: (p: P) => Promise<IDataObject>,
): FreeOperation<P> {
	return { check, run: async (p) => ({ item: { json: await run(p) } }) };
}

/** Estimate Video Cost: a delta video's fee for a token count, before creating it. */
export const estimateVideoCostOperation = (ctx: IExecuteFunctions, transport: GatewayTransport) =>
	feeOperation(
		(i): EstimateInputs => {
			const fee = feeInputs(ctx, i);
			return {
				...fee,
				model: ctx.getNodeParameter('videoModel', i) as string,
				tokens: ctx.getNodeParameter('tokens', i),
				referenceJson:
					fee.reference === 'detect' ? ctx.getNodeParameter('referenceJson', i) : undefined,
			};
		},
		(inp) => estimateVideoCost(transport, inp),
	);

/** Settle Task: a finished delta video's fee from its usage (task object or task ID). */
export const settleTaskOperation = (ctx: IExecuteFunctions, transport: GatewayTransport) =>
	feeOperation(
		(i): SettleInputs => {
			const source = ctx.getNodeParameter('taskSource', i, 'json') as 'json' | 'id';
			return {
				...feeInputs(ctx, i),
				source,
				task: source === 'json' ? ctx.getNodeParameter('task', i) : undefined,
				taskId: source === 'id' ? ctx.getNodeParameter('taskId', i) : undefined,
				origin:
					source === 'id' ? (ctx.getNodeParameter('origin', i, 'video') as OriginKind) : 'video',
			};
		},
		(inp) => settleTask(transport, inp),
	);
