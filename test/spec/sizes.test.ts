/**
 * Image sizes as the spec states them. alpha-image-2: "pixel sizes are normalised to multiples of 16 within the
 * aspect ratio and the tier's pixel cap" (1024x1024, 2048x2048, 2880x2880 pixels); only a size outside the tier or
 * not a `WxH` string is refused. The normalisation "does not apply to alpha-image-2.5 or alpha-image-2-az".
 * `n` is "recommended 1" with no maximum, and `size` is a pixel string (no "auto").
 */
import { GenGatewayImageSubmit } from '../../nodes/GenGatewayImageSubmit/GenGatewayImageSubmit.node';
import {
	ALPHA_25_SIZES,
	imageRequestSchema,
	normalisedSize,
	sizeNote,
} from '../../nodes/GenGatewayImageSubmit/actions/rules';
import { cleanupBinaryData, runWorkflow, type TestNode } from '../harness/workflow';
import { credsFor, imageTask, startGateway, type FakeGateway } from './support/gateway';

const model = (value: string) => ({ __rl: true, mode: 'id', value });
const check = (req: Record<string, unknown>) => {
	const r = imageRequestSchema.safeParse({ prompt: 'p', n: 1, ...req });
	return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
};

describe('alpha-image-2 normalisation (pure)', () => {
	it.each([
		['alpha-image-2-4k', '3840x2160', '3840x2160', false],
		['alpha-image-2-4k', '2880x2880', '2880x2880', false],
		['alpha-image-2-2k', '2560x1440', '2560x1440', false],
		['alpha-image-2', '1000x1000', '1008x1008', true],
		['alpha-image-2-1k', '1280x720', '1280x720', false],
		['alpha-image-2', '1025x1023', '1024x1024', true],
		['alpha-image-2', '100x50', '96x48', true],
		['alpha-image-2', '7x7', '16x16', true],
		// rounding to the nearest multiple would pass the cap: scaled down in the same ratio instead
		['alpha-image-2', '1016x1032', '1008x1024', true],
	])('%s %s → %s', (m, size, expected, changed) => {
		const n = normalisedSize(m, size)!;
		expect(n).toMatchObject({ requested: size, size: expected, changed });
		expect(n.width % 16).toBe(0);
		expect(n.height % 16).toBe(0);
		expect(n.width * n.height).toBeLessThanOrEqual(n.pixelCap);
	});

	it('keeps the aspect ratio, states the tier and its cap, and says delivered pixels can differ', () => {
		const n = normalisedSize('alpha-image-2-2k', '1999x1001')!;
		expect(n).toMatchObject({ tier: '2K', pixelCap: 2048 * 2048, size: '2000x1008' });
		expect(Math.abs(n.width / n.height - 1999 / 1001)).toBeLessThan(0.02);
		expect(n.note).toBe(
			'alpha-image-2-2k normalises 1999x1001 to 2000x1008 (multiples of 16, same aspect ratio, at most 2048x2048 pixels for the 2K tier); delivered pixels can still differ, the output reports the real size',
		);
		expect(normalisedSize('alpha-image-2', '1024x1024')!.note).toMatch(/takes 1024x1024 as it is/);
	});

	it('does not apply to alpha-image-2.5, alpha-image-2-az, beta, nor to refused or empty sizes', () => {
		for (const [m, s] of [
			['alpha-image-2.5', '1000x1000'],
			['alpha-image-2-az', '1000x1000'],
			['beta-3-pro-image-preview', '1000x1000'],
			['alpha-image-2', '2048x2048'],
			['alpha-image-2', '16:9'],
			['alpha-image-2', ''],
			['alpha-image-2', undefined],
		] as const) {
			expect(normalisedSize(m, s)).toBeUndefined();
		}
	});

	it("sizeNote: the alpha-image-2 normalisation, or a beta model's tier and nearest ratio", () => {
		expect(sizeNote('alpha-image-2', '1000x1000')).toMatch(/normalises 1000x1000 to 1008x1008/);
		expect(sizeNote('beta-3-pro-image-preview', '1500x850')).toMatch(
			/2K tier \(from the longest side\) at the nearest recognised ratio 16:9/,
		);
		expect(sizeNote('beta-3.1-flash-image-preview-4k', '400x1600')).toMatch(
			/4K tier \(locked by the model suffix\) at the nearest recognised ratio 1:4/,
		);
		expect(sizeNote('beta-3-pro-image-preview', '400x1600')).toMatch(
			/nearest recognised ratio 9:16/,
		);
		expect(sizeNote('alpha-image-2.5', '1024x1024')).toBeUndefined();
	});
});

describe('image request rules (pure)', () => {
	it("alpha-image-2: any WxH within the tier's pixel cap passes, multiples of 16 or not, with no minimum side", () => {
		for (const [m, size] of [
			['alpha-image-2-4k', '3840x2160'],
			['alpha-image-2-2k', '2560x1440'],
			['alpha-image-2', '1000x1000'],
			['alpha-image-2', '1280x720'],
			['alpha-image-2-1k', '200x200'],
			['alpha-image-2-4k', '2880x2880'],
		]) {
			expect(check({ model: m, size })).toEqual([]);
		}
	});

	it('alpha-image-2: over the pixel cap is refused, naming pixels, cap and the larger tiers', () => {
		expect(check({ model: 'alpha-image-2', size: '1040x1024' })).toEqual([
			'size: 1040x1024 is 1,064,960 pixels; the standard/1K tier of alpha-image-2 allows at most 1024x1024 = 1,048,576 pixels (alpha-image-2-2k and -4k allow more)',
		]);
		expect(check({ model: 'alpha-image-2-2k', size: '4096x4096' })[0]).toMatch(
			/^size: 4096x4096 is 16,777,216 pixels; the 2K tier of alpha-image-2-2k allows at most 2048x2048 = 4,194,304 pixels \(alpha-image-2-4k allows more\)$/,
		);
		expect(check({ model: 'alpha-image-2-4k', size: '3856x2160' })[0]).toMatch(
			/the 4K tier of alpha-image-2-4k allows at most 2880x2880 = 8,294,400 pixels$/,
		);
	});

	it('a size must be a WxH pixel string: "auto", ratios, zero sides and other text are refused', () => {
		for (const size of ['auto', '1024', '1024*1024', '0x1024', '1024x', 'big'])
			expect(check({ model: 'alpha-image-2.5', size })).toEqual([
				'size: must be a pixel string <width>x<height>, e.g. 1024x1024',
			]);
		expect(check({ model: 'beta-3-pro-image-preview', size: '16:9' })[0]).toMatch(
			/is a ratio, not a size/,
		);
	});

	it('alpha-image-2.5 keeps its own size list; alpha-image-2-az is not bound to it', () => {
		for (const size of ALPHA_25_SIZES)
			expect(check({ model: 'alpha-image-2.5', size })).toEqual([]);
		expect(check({ model: 'alpha-image-2.5', size: '1000x1000' })[0]).toMatch(
			/alpha-image-2.5 takes one of 1024x1024, 1536x1024/,
		);
		for (const size of ['1000x1000', '2048x2048', '1280x720'])
			expect(check({ model: 'alpha-image-2-az', size })).toEqual([]);
	});

	it('n: a whole number of at least 1, with no maximum (1 is recommended)', () => {
		expect(check({ model: 'alpha-image-2.5', n: 6 })).toEqual([]);
		expect(check({ model: 'alpha-image-2.5', n: 0 })).toEqual(['n: must be at least 1']);
		expect(check({ model: 'alpha-image-2.5', n: 1.5 })).toEqual(['n: must be a whole number']);
	});

	it('quality: alpha-image-2.5 auto/high only, beta none, other alpha models per channel', () => {
		expect(check({ model: 'alpha-image-2.5', quality: 'low' })).toEqual([
			'quality: alpha-image-2.5 takes auto or high (or leave it out)',
		]);
		expect(check({ model: 'beta-3-pro-image-preview', quality: 'high' })[0]).toMatch(
			/beta family does not take quality/,
		);
		expect(check({ model: 'alpha-image-2-az', quality: 'high' })).toEqual([]);
		expect(check({ model: 'alpha-image-2', quality: 'high' })).toEqual([]);
	});
});

describe('Image Submit: sizes through the node', () => {
	let gw: FakeGateway;
	beforeAll(async () => {
		gw = await startGateway();
	});
	afterAll(async () => {
		await gw.stop();
		cleanupBinaryData();
	});
	beforeEach(() => {
		gw.reset();
		let k = 0;
		gw.on('POST', /^\/v1\/images\/generations\/async$/, () => ({
			status: 202,
			json: imageTask(`t${++k}`, 'processing'),
		}));
		gw.on('POST', /^\/v1\/images\/generations$/, () => ({
			json: { created: 1, data: [{ b64_json: 'iVBORw0KGgo=' }] },
		}));
	});
	const submit = (m: string, size: string, extra: Record<string, unknown> = {}): TestNode => ({
		name: 'Submit',
		type: new GenGatewayImageSubmit(),
		parameters: {
			operation: 'generate',
			mode: 'async',
			model: model(m),
			prompt: 'a lighthouse',
			size,
			...extra,
		},
		onError: 'continueRegularOutput',
	});
	const posts = () => gw.log.filter((h) => h.method === 'POST');

	it.each([
		['alpha-image-2-4k', '3840x2160', {}],
		['alpha-image-2-2k', '2560x1440', {}],
		['alpha-image-2', '1000x1000', {}],
		['alpha-image-2', '1280x720', {}],
		['alpha-image-2.5', '1024x1024', { n: 6 }],
	])('%s with size %s is sent once, as given', async (m, size, extra) => {
		const r = await runWorkflow({ nodes: [submit(m, size, extra)], credentials: credsFor(gw) });
		expect(r.output('Submit')[0].json.error).toBeUndefined();
		expect(posts()).toHaveLength(1);
		expect(JSON.parse(posts()[0].body)).toMatchObject({
			model: m,
			size,
			n: (extra as { n?: number }).n ?? 1,
		});
	});

	it('alpha-image-2-az takes a size outside the alpha-image-2.5 list (sent synchronously)', async () => {
		const r = await runWorkflow({
			nodes: [submit('alpha-image-2-az', '1000x1000')],
			credentials: credsFor(gw),
		});
		expect(String(r.output('Submit')[0].json.error ?? '')).not.toMatch(/^size:/);
		expect(posts().map((p) => [p.path, JSON.parse(p.body).size])).toEqual([
			['/v1/images/generations', '1000x1000'],
		]);
	});

	it.each([
		['alpha-image-2', '1040x1024', /^size: 1040x1024 is 1,064,960 pixels; the standard\/1K tier/],
		['alpha-image-2-4k', '4096x4096', /^size: 4096x4096 is 16,777,216 pixels; the 4K tier/],
		['alpha-image-2.5', 'auto', /^size: must be a pixel string/],
		['alpha-image-2', '1024x1024px', /^size: must be a pixel string/],
	])('%s with size %s is refused and nothing is sent', async (m, size, rule) => {
		const r = await runWorkflow({ nodes: [submit(m, size)], credentials: credsFor(gw) });
		expect(String(r.output('Submit')[0].json.error)).toMatch(rule);
		expect(posts()).toHaveLength(0);
	});
});
