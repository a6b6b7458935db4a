/** Every node's `methods`: its model picker, if any, and the credential test with advice. What they hand n8n leaves through the exit. */
import type { ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';
import { credentialTest } from '../credentials';
import { runSupply } from '../exit';
import { modelSearch, searchVideoModels as videoSearch } from './listSearch';

type Search = (this: ILoadOptionsFunctions, filter?: string) => Promise<INodeListSearchResult>;
/** A list search whose results and errors leave through the one exit (a model ID could echo the key). */
const throughExit = (search: Search): Search =>
	async function (this: ILoadOptionsFunctions, filter?: string) {
		return runSupply(this, () => search.call(this, filter));
	};
const searchVideoModels = throughExit(videoSearch);

export const plainMethods = { credentialTest };
export const imageModelMethods = {
	listSearch: { searchImageModels: throughExit(modelSearch('image')) },
	credentialTest,
};
export const videoModelMethods = { listSearch: { searchVideoModels }, credentialTest };
export const languageModelMethods = {
	listSearch: { searchLanguageModels: throughExit(modelSearch('language')) },
	credentialTest,
};
