/**
 * "A retired 'special' series of the beta family is no longer in the enabled catalog and is not used for new
 * integrations", and "GET /v1/models is the authority for a key": the model picker offers what the key lists,
 * except the retired series, even when a gateway still lists it.
 */
import type { ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';
import { GenGatewayImageSubmit } from '../../nodes/GenGatewayImageSubmit/GenGatewayImageSubmit.node';
import { startGateway, type FakeGateway } from './support/gateway';

let gw: FakeGateway;
beforeAll(async () => {
	gw = await startGateway();
});
afterAll(() => gw.stop());

const IDS = [
	'beta-2.5-special-image-preview',
	'beta-3-special-image-preview-2k',
	'beta-3-pro-image-preview',
	'beta-3.1-flash-image-preview-1k',
	'alpha-image-2-4k',
	'alpha-chat-4o',
	'delta-video-2-0-mini-260615',
];

async function pick(filter?: string): Promise<string[]> {
	const ctx = {
		getCredentials: async () => ({ apiKey: 'sk-spec-test', baseUrl: gw.baseUrl }),
		getNode: () => ({ name: 'Image Submit' }),
	} as unknown as ILoadOptionsFunctions;
	const search = new GenGatewayImageSubmit().methods.listSearch.searchImageModels as (
		this: ILoadOptionsFunctions,
		filter?: string,
	) => Promise<INodeListSearchResult>;
	return (await search.call(ctx, filter)).results.map((r) => String(r.value));
}

describe("Image Submit's model picker", () => {
	beforeEach(() => {
		gw.reset();
		gw.on('GET', /^\/v1\/models$/, () => ({
			json: { object: 'list', data: IDS.map((id) => ({ id, object: 'model', owned_by: '' })) },
		}));
	});

	it("offers the key's image models, exact IDs, without the retired special series", async () => {
		expect(await pick()).toEqual([
			'alpha-image-2-4k',
			'beta-3-pro-image-preview',
			'beta-3.1-flash-image-preview-1k',
		]);
		expect(gw.hits('GET', /^\/v1\/models$/)[0].auth).toBe(true);
	});

	it('a search for "special" finds nothing', async () => {
		expect(await pick('special')).toEqual([]);
		expect(await pick('beta')).toEqual([
			'beta-3-pro-image-preview',
			'beta-3.1-flash-image-preview-1k',
		]);
	});
});
