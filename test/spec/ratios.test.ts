/**
 * Native aspect ratios: "Ratios recognised for pro: 1:1, 2:3, 3:2, 3:4, 4:3, 4:5, 5:4, 9:16, 16:9, 21:9. Flash adds
 * 1:4, 1:8, 4:1, 8:1." Pro is neither offered nor allowed the flash-only ratios.
 */
import { NodeHelpers, type INodeProperties, type INodePropertyOptions } from 'n8n-workflow';
import { imageSubmitDescription } from '../../nodes/GenGatewayImageSubmit/description';
import { GenGatewayImageSubmit } from '../../nodes/GenGatewayImageSubmit/GenGatewayImageSubmit.node';
import {
	BETA_FLASH_ONLY_RATIOS,
	BETA_PRO_RATIOS,
	imageRequestSchema,
	nativeRatioProblem,
} from '../../nodes/GenGatewayImageSubmit/actions/rules';
import { cleanupBinaryData, runWorkflow } from '../harness/workflow';
import { credsFor, png, startGateway, type FakeGateway } from './support/gateway';

const FLASH_ONLY = [...BETA_FLASH_ONLY_RATIOS];

/** The Aspect Ratio options the editor shows for a model picked from the list or typed as an ID. */
function offered(model: string, mode: 'list' | 'id' = 'list'): string[] {
	const values = {
		operation: 'generate',
		mode: 'native',
		model: { __rl: true, mode, value: model },
	};
	const shown = imageSubmitDescription.properties.filter(
		(p: INodeProperties) =>
			p.name === 'aspectRatio' &&
			NodeHelpers.displayParameter(values, p, { typeVersion: 1 }, imageSubmitDescription),
	);
	expect(shown).toHaveLength(1);
	return (shown[0].options as INodePropertyOptions[]).map((o) => String(o.value));
}

describe('native aspect ratios per beta model', () => {
	it.each(['beta-3-pro-image-preview', 'beta-3-pro-image-preview-2k'])(
		'%s is offered the pro ratios only',
		(m) => {
			expect(offered(m)).toEqual([...BETA_PRO_RATIOS]);
			expect(offered(m, 'id')).toEqual(expect.not.arrayContaining(FLASH_ONLY));
			for (const r of FLASH_ONLY) expect(offered(m)).not.toContain(r);
		},
	);

	it.each(['beta-3.1-flash-image-preview', 'beta-3.1-flash-image-preview-1k'])(
		'%s is offered the pro ratios and its own four',
		(m) => {
			expect(offered(m).sort()).toEqual([...BETA_PRO_RATIOS, ...FLASH_ONLY].sort());
		},
	);

	it('the spec lists exactly these ratios', () => {
		expect([...BETA_PRO_RATIOS]).toEqual([
			'1:1',
			'2:3',
			'3:2',
			'3:4',
			'4:3',
			'4:5',
			'5:4',
			'9:16',
			'16:9',
			'21:9',
		]);
		expect(FLASH_ONLY).toEqual(['1:4', '1:8', '4:1', '8:1']);
	});

	it('the request rule refuses a flash-only ratio for pro (an expression or a stale value) and takes it for flash', () => {
		const issues = (model: string, aspectRatio: string) => {
			const r = imageRequestSchema.safeParse({ model, prompt: 'p', n: 1, aspectRatio });
			return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
		};
		for (const r of FLASH_ONLY) {
			expect(issues('beta-3-pro-image-preview-4k', r)).toEqual([
				`aspectRatio: ${r} is recognised by the beta flash models only; beta-3-pro-image-preview-4k takes 1:1, 2:3, 3:2, 3:4, 4:3, 4:5, 5:4, 9:16, 16:9, 21:9`,
			]);
			expect(issues('beta-3.1-flash-image-preview', r)).toEqual([]);
		}
		expect(issues('beta-3-pro-image-preview', '16:9')).toEqual([]);
		expect(issues('beta-3.1-flash-image-preview', '2:1')).toEqual([
			'aspectRatio: beta-3.1-flash-image-preview takes 1:1, 2:3, 3:2, 3:4, 4:3, 4:5, 5:4, 9:16, 16:9, 21:9, 1:4, 1:8, 4:1, 8:1',
		]);
		expect(nativeRatioProblem('alpha-image-2.5', '8:1')).toBeUndefined();
	});
});

describe('the ratio chosen is the ratio sent (the parameter is defined once per model kind)', () => {
	let gw: FakeGateway;
	beforeAll(async () => {
		gw = await startGateway();
	});
	afterAll(async () => {
		await gw.stop();
		cleanupBinaryData();
	});

	it.each([
		['beta-3-pro-image-preview-1k', '21:9'],
		['beta-3.1-flash-image-preview-1k', '8:1'],
		['beta-3-pro-image-preview-1k', undefined],
	])('%s with aspect ratio %s', async (m, ratio) => {
		gw.reset();
		const data = (await png()).toString('base64');
		gw.on('POST', /:generateContent$/, () => ({
			json: {
				candidates: [
					{
						content: { parts: [{ inlineData: { mimeType: 'image/png', data } }] },
						finishReason: 'STOP',
					},
				],
			},
		}));
		const parameters = {
			operation: 'generate',
			mode: 'native',
			model: { __rl: true, mode: 'id', value: m },
			prompt: 'a kite',
			...(ratio ? { aspectRatio: ratio } : {}),
		};
		const r = await runWorkflow({
			nodes: [{ name: 'Submit', type: new GenGatewayImageSubmit(), parameters }],
			credentials: credsFor(gw),
		});
		expect(r.error).toBeUndefined();
		const sent = JSON.parse(gw.hits('POST', /:generateContent$/)[0].body);
		expect(sent.generationConfig.imageConfig.aspectRatio).toBe(ratio ?? '1:1');
	});
});
