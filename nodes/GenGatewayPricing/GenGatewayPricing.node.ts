import {
	NodeConnectionTypes,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';
import { createTransport } from '../shared/credentials';
import { InputRuleError } from '../shared/errors';
import { listModelIds } from '../shared/models';
import { deltaVideoFee, fetchPricing, lowestPrice, settlementTokens, toDisplay, type DisplaySettings, type ModelPrice } from '../shared/pricing';
import { forEachItem } from '../shared/router';
import type { GatewayTransport } from '../shared/transport/http';

function priceJson(p: ModelPrice, display: DisplaySettings): IDataObject {
	const show = (usd: number | undefined) => (usd === undefined ? undefined : toDisplay(usd, display));
	const perCall = show(p.perCallUsd);
	const input = show(p.inputPer1MUsd);
	const output = show(p.outputPer1MUsd);
	return {
		model: p.model,
		billing: p.billing === 'per_call' ? 'per call' : 'per token',
		dynamic_pricing: p.dynamic,
		group: p.group ?? null,
		group_ratio: p.groupRatio ?? null,
		currency: (perCall ?? input)?.currency ?? toDisplay(0, display).currency,
		symbol: (perCall ?? input)?.symbol ?? toDisplay(0, display).symbol,
		price_per_call: perCall?.amount ?? null,
		input_per_1m_tokens: input?.amount ?? null,
		output_per_1m_tokens: output?.amount ?? null,
		...(p.skippedGroups.length ? { skipped_groups: p.skippedGroups, note: `group(s) ${p.skippedGroups.join(', ')} have no ratio in group_ratio and were skipped (never treated as 0)` } : {}),
		...(!p.group && !p.dynamic ? { note: 'no publicly selectable group enables this model' } : {}),
		...(p.dynamic ? { note: 'dynamic (tiered) pricing: no fixed number' } : {}),
	};
}

async function getPrices(transport: GatewayTransport): Promise<INodeExecutionData[]> {
	const { pricing, display } = await fetchPricing(transport);
	return pricing.data.map((e) => ({ json: priceJson(lowestPrice(e, pricing), display) }));
}

async function listMyModels(transport: GatewayTransport): Promise<INodeExecutionData[]> {
	const ids = await listModelIds(transport);
	let prices: Map<string, IDataObject> = new Map();
	let catalog: string[] = [];
	try {
		const { pricing, display } = await fetchPricing(transport);
		prices = new Map(pricing.data.map((e) => [e.model_name, priceJson(lowestPrice(e, pricing), display)]));
		catalog = pricing.data.map((e) => e.model_name);
	} catch {
		// prices are an extra; the key's list is the authority
	}
	const mine = new Set(ids);
	const out: INodeExecutionData[] = ids.map((id) => ({ json: { model: id, callable: true, ...(prices.get(id) ?? {}), model_id: id } }));
	for (const id of catalog) if (!mine.has(id)) out.push({ json: { ...(prices.get(id) ?? {}), model: id, callable: false, note: 'in the public catalog but not callable with this key' } });
	return out;
}

export class GenGatewayPricing implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'GenGateway Pricing',
		name: 'genGatewayPricing',
		icon: { light: 'file:../../icons/pricing.svg', dark: 'file:../../icons/pricing.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle: '={{$parameter["operation"]}}',
		description: 'Public prices in the display currency, the models your key can call, delta-video cost estimates and settlement',
		defaults: { name: 'GenGateway Pricing' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'genGatewayApi', required: true }],
		properties: [
			{
				displayName: 'Operation',
				name: 'operation',
				type: 'options',
				noDataExpression: true,
				options: [
					{ name: 'Estimate Video Cost', value: 'estimateVideoCost', action: 'Estimate a delta video cost', description: 'Fee of a delta-video task from a token count' },
					{ name: 'Get Prices', value: 'getPrices', action: 'Get public prices', description: 'Lowest public price per model in the display currency (no key used)' },
					{ name: 'List My Models', value: 'listModels', action: 'List the models of my key', description: 'GET /v1/models for the key, joined with prices' },
					{ name: 'Settle Task', value: 'settleTask', action: 'Settle a finished delta video task', description: 'Fee of a finished delta-video task from its usage' },
				],
				default: 'getPrices',
			},
			{
				displayName: 'Model',
				name: 'videoModel',
				type: 'options',
				options: [
					{ name: 'delta-video-2-0-mini-260615', value: 'delta-video-2-0-mini-260615' },
					{ name: 'delta-video-2-0-fast-260128', value: 'delta-video-2-0-fast-260128' },
				],
				default: 'delta-video-2-0-mini-260615',
				displayOptions: { show: { operation: ['estimateVideoCost'] } },
			},
			{
				displayName: 'Video Tokens',
				name: 'tokens',
				type: 'number',
				default: 50400,
				typeOptions: { minValue: 0 },
				description: 'Video tokens (they depend on resolution, duration and reference video)',
				displayOptions: { show: { operation: ['estimateVideoCost'] } },
			},
			{
				displayName: 'Has Reference Video',
				name: 'withReferenceVideo',
				type: 'boolean',
				default: false,
				description: 'Whether the task has a reference video. Image or audio references count as no reference video.',
				displayOptions: { show: { operation: ['estimateVideoCost'] } },
			},
			{
				displayName: 'Task',
				name: 'task',
				type: 'json',
				default: '={{ $json }}',
				description: 'The finished task object (e.g. Task Wait output), or a string task ID to query with the key',
				displayOptions: { show: { operation: ['settleTask'] } },
			},
			{
				displayName: 'Group Multiplier',
				name: 'groupRatio',
				type: 'number',
				default: 1,
				typeOptions: { minValue: 0.0001, numberPrecision: 4 },
				description: "Your key's group ratio (see Get Prices' group_ratio); it is never 0",
				displayOptions: { show: { operation: ['estimateVideoCost', 'settleTask'] } },
			},
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const operation = this.getNodeParameter('operation', 0) as string;
		const transport = await createTransport(this);
		if (operation === 'getPrices' || operation === 'listModels') {
			// One list for the whole run, paired with the first item.
			const items = await forEachItem(this, async (i) => (i === 0 ? (operation === 'getPrices' ? getPrices(transport) : listMyModels(transport)) : []));
			return [items];
		}
		return [
			await forEachItem(this, async (i) => {
				const groupRatio = this.getNodeParameter('groupRatio', i) as number;
				if (operation === 'estimateVideoCost') {
					const model = this.getNodeParameter('videoModel', i) as string;
					const tokens = this.getNodeParameter('tokens', i) as number;
					const withRef = this.getNodeParameter('withReferenceVideo', i) as boolean;
					if (typeof tokens !== 'number' || !Number.isFinite(tokens) || tokens < 0) throw new InputRuleError([{ field: 'Video Tokens', rule: 'must be a non-negative number' }]);
					return { json: { model, ...deltaVideoFee(model, tokens, withRef, groupRatio) } };
				}
				let task = this.getNodeParameter('task', i) as unknown;
				if (typeof task === 'string' && /^[A-Za-z0-9_-]{1,200}$/.test(task.trim())) {
					task = (await transport.getJson(`/v1/videos/${task.trim()}`, { origin: 'video' })).body;
				} else if (typeof task === 'string') {
					try {
						task = JSON.parse(task);
					} catch {
						throw new InputRuleError([{ field: 'Task', rule: 'must be a task object or a task ID' }]);
					}
				}
				const t = (task ?? {}) as IDataObject;
				const inner = (t.task && typeof t.task === 'object' ? t.task : t) as IDataObject;
				const model = String(inner.model ?? t.model ?? '');
				const tokens = settlementTokens(inner) ?? settlementTokens(t);
				const withRef = t.with_reference_video === true;
				if (tokens === undefined) {
					return { json: { task_id: inner.id ?? t.task_id ?? null, model, status: 'needs_manual_check', note: 'no trusted usage: the reservation is kept and must be checked in the usage logs (it is not free)' } };
				}
				return { json: { task_id: inner.id ?? t.task_id ?? null, status: 'settled', ...deltaVideoFee(model, tokens, withRef, groupRatio), model } };
			}),
		];
	}
}
