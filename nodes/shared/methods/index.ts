/** Every node's `methods`: its model picker, if any, and the credential test with advice. */
import { credentialTest } from '../credentials';
import { modelSearch, searchVideoModels } from './listSearch';

export const plainMethods = { credentialTest };
export const imageModelMethods = { listSearch: { searchImageModels: modelSearch('image') }, credentialTest };
export const videoModelMethods = { listSearch: { searchVideoModels }, credentialTest };
export const languageModelMethods = { listSearch: { searchLanguageModels: modelSearch('language') }, credentialTest };
