/** List My Models: GET /v1/models with the key (the authority), joined with the public prices. */
import type {
	IDataObject,
	IExecuteFunctions,
	INodeProperties,
	INodePropertyOptions,
} from 'n8n-workflow';
import { listModelIds } from '../../shared/models';
import { lowestPrice } from '../../shared/money/prices';
import { loadPricing } from '../../shared/money/lookup';
import { groupRatioOf } from '../../shared/money/delta';
import type { GatewayTransport } from '../../shared/transport';
import { displayHints, listOperation, type OperationResult } from './list';
import { priceRow } from './rows';
import { readFields } from '../../shared/validate';
import { PRICING_LIST_FIELDS } from './fields';

export const option: INodePropertyOptions = {
	name: 'List My Models',
	value: 'listModels',
	action: 'List the models of my key',
	description: 'GET /v1/models for the key, joined with the public prices',
};

export const properties: INodeProperties[] = [
	{
		displayName: 'Include Models Not Callable',
		name: 'includeOthers',
		type: 'boolean',
		default: true,
		description:
			'Whether to also list public catalog models this key cannot call (marked callable: false)',
		displayOptions: { show: { operation: ['listModels'] } },
	},
];

interface Catalog {
	rows: Map<string, IDataObject>;
	/** undefined: the public price list could not be read */
	ids?: string[];
}

/** The credential's Key's Group as a group and ratio (the prices are then the key's own); a hint says which. */
function keyGroupRatio(
	transport: GatewayTransport,
	groupRatio: Record<string, unknown>,
	hints: string[],
): { group: string; ratio: number } | undefined {
	const g = transport.keyGroup;
	if (!g) return undefined;
	if (g.ratio !== undefined) {
		hints.push(`Prices at your key's group multiplier ${g.ratio} (the credential's Key's Group)`);
		return { group: `multiplier ${g.ratio}`, ratio: g.ratio };
	}
	const ratio = g.groupName ? groupRatioOf(groupRatio, g.groupName) : undefined;
	if (g.groupName && ratio !== undefined && ratio > 0) {
		hints.push(
			`Prices at your key's group ${g.groupName} (public ratio ${ratio}; the credential's Key's Group)`,
		);
		return { group: g.groupName, ratio };
	}
	hints.push(
		`The credential's Key's Group "${g.groupName}" has no positive public ratio: prices are at the lowest public group`,
	);
	return undefined;
}

/** The public price rows by model; without them (said in a hint) the models are listed without prices. */
async function loadCatalog(transport: GatewayTransport, hints: string[]): Promise<Catalog> {
	try {
		const { pricing, display } = await loadPricing(transport);
		const at = keyGroupRatio(transport, pricing.group_ratio, hints);
		const rows = new Map(
			pricing.data.map((e) => [
				e.model_name,
				priceRow(
					lowestPrice(e, pricing, display.quotaPerUnit, undefined, at),
					display,
					pricing.usable_group,
				) as IDataObject,
			]),
		);
		const ids = pricing.data.map((e) => e.model_name);
		hints.push(...displayHints(display));
		return { rows, ids };
	} catch (err) {
		hints.push(
			`The public price list could not be read (${(err as Error).message}): models are listed without prices`,
		);
		return { rows: new Map() };
	}
}

export async function listMyModels(
	transport: GatewayTransport,
	includeOthers = true,
): Promise<OperationResult> {
	const ids = await listModelIds(transport);
	const hints: string[] = [];
	const { rows, ids: catalog } = await loadCatalog(transport, hints);
	const mine = new Set(ids);
	const items: IDataObject[] = ids.map((id) => {
		const row = rows.get(id);
		return {
			model: id,
			callable: true,
			in_catalog: catalog ? !!row : null,
			...(row ?? {}),
			...(catalog && !row
				? { note: 'callable with this key but not in the public price list' }
				: {}),
			model_id: id,
		};
	});
	if (includeOthers && catalog) {
		for (const id of catalog) {
			if (mine.has(id)) continue;
			const row = rows.get(id)!;
			const note = [
				'in the public catalog but not callable with this key (GET /v1/models is the authority)',
				row.note,
			]
				.filter(Boolean)
				.join('; ');
			items.push({ model: id, callable: false, in_catalog: true, ...row, note, model_id: id });
		}
	}
	return { items, hints };
}

export const operation = (ctx: IExecuteFunctions, transport: GatewayTransport) =>
	listOperation(ctx, (i) =>
		listMyModels(
			transport,
			readFields(PRICING_LIST_FIELDS, {
				includeOthers: ctx.getNodeParameter('includeOthers', i, true),
			}).includeOthers ?? true,
		),
	);
