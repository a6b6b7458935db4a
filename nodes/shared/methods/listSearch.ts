/** The model pickers (resource locators' list searches): the key's models (GET /v1/models) of one family; IDs stay exact. */
import type { ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';
import { createTransport } from '../credentials';
import { familyOf, isRetired, listModelIds, type ModelFamily } from '../models';

async function search(
	ctx: ILoadOptionsFunctions,
	family: ModelFamily,
	filter: string | undefined,
	narrow: (id: string) => boolean = () => true,
): Promise<INodeListSearchResult> {
	const transport = await createTransport(ctx);
	const f = filter?.toLowerCase();
	const ids = (await listModelIds(transport)).filter(
		(id) =>
			familyOf(id) === family &&
			!isRetired(id) &&
			narrow(id) &&
			(!f || id.toLowerCase().includes(f)),
	);
	return { results: ids.sort().map((id) => ({ name: id, value: id })) };
}

export function modelSearch(family: ModelFamily) {
	return async function (
		this: ILoadOptionsFunctions,
		filter?: string,
	): Promise<INodeListSearchResult> {
		return search(this, family, filter);
	};
}

/** Video Create's picker: narrowed to the chosen family. */
export async function searchVideoModels(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	let family: unknown;
	try {
		family = this.getCurrentNodeParameter?.('family');
	} catch {
		family = undefined;
	}
	return search(this, 'video', filter, (id) =>
		family === 'delta' || family === 'gamma' ? id.startsWith(`${family}-video`) : true,
	);
}
