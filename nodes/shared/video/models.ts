/** Model picker for Video Create: the key's video models (GET /v1/models), narrowed to the chosen family. */
import type { ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';
import { createTransport } from '../credentials';
import { familyOf, isRetired, listModelIds } from '../models';

export async function searchVideoModels(this: ILoadOptionsFunctions, filter?: string): Promise<INodeListSearchResult> {
	let family: unknown;
	try {
		family = this.getCurrentNodeParameter?.('family');
	} catch {
		family = undefined;
	}
	const transport = await createTransport(this);
	const f = filter?.toLowerCase();
	const ids = (await listModelIds(transport))
		.filter((id) => familyOf(id) === 'video' && !isRetired(id))
		.filter((id) => (family === 'delta' || family === 'gamma' ? id.startsWith(`${family}-video`) : true))
		.filter((id) => !f || id.toLowerCase().includes(f))
		.sort();
	return { results: ids.map((id) => ({ name: id, value: id })) };
}
