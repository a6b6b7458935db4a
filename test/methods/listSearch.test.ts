import type { ILoadOptionsFunctions } from 'n8n-workflow';
import { useSimulator } from '../harness/simulator';
import { familyOf, isRetired } from '../../nodes/shared/models';
import { modelSearch } from '../../nodes/shared/methods/listSearch';

describe('model pickers (resource locator list search) fed by GET /v1/models', () => {
	const sim = useSimulator({ quiet: true });
	const ctx = (apiKey: string) =>
		({
			getCredentials: async () => ({ apiKey, baseUrl: `${sim.baseUrl}/v1` }),
			getNode: () => ({ name: 'x' }),
		}) as unknown as ILoadOptionsFunctions;

	it('filters by family, keeps IDs exact, searches, and follows the key', async () => {
		const images = (await modelSearch('image').call(ctx(sim.keys.demo))).results.map(
			(r) => r.value,
		);
		expect(images).toEqual(
			expect.arrayContaining([
				'alpha-image-2-4k',
				'beta-3-pro-image-preview-1k',
				'alpha-image-2-az',
			]),
		);
		expect(images.every((id) => /image/.test(String(id)))).toBe(true);
		const videos = (await modelSearch('video').call(ctx(sim.keys.demo))).results.map(
			(r) => r.value,
		);
		expect(videos).toEqual([
			'delta-video-2-0-fast-260128',
			'delta-video-2-0-mini-260615',
			'gamma-video-1.0',
			'gamma-video-1.5',
		]);
		const lang = (await modelSearch('language').call(ctx(sim.keys.demo), '4o')).results.map(
			(r) => r.value,
		);
		expect(lang).toEqual(['alpha-chat-4o', 'alpha-chat-4o-mini']);
		const limited = (await modelSearch('image').call(ctx(sim.keys.limited))).results.map(
			(r) => r.value,
		);
		expect(limited).not.toContain('alpha-image-2-4k');
	});

	it('never offers the retired beta special series', () => {
		expect(isRetired('beta-2.5-special-image-preview')).toBe(true);
		expect(isRetired('beta-3-pro-image-preview')).toBe(false);
		expect(familyOf('delta-video-2-0-mini-260615')).toBe('video');
	});
});
