/**
 * Image Submit's request rules per model family and tier (checked before any request), and what the gateway makes of
 * a size.
 */
import { z, type ZodTypeAny } from 'zod';
import { familyOf, isRetired } from '../../shared/models';
import { bodyRuleSet, violate } from '../../shared/rules/body';

/** alpha-image-2.5 request sizes (targets: a 1024 square may come back as 1024 or 1254). */
export const ALPHA_25_SIZES = [
	'1024x1024',
	'1536x1024',
	'1024x1536',
	'1536x864',
	'864x1536',
	'1536x1152',
	'1152x1536',
	'1680x720',
] as const;
/** alpha-image-2 tiers: the side of the square the spec validates with; the tier's pixel cap is that side squared. */
export const ALPHA_2_TIER_CAP: Record<'1k' | '2k' | '4k', number> = {
	'1k': 1024,
	'2k': 2048,
	'4k': 2880,
};
/** Aspect ratios the beta pro models recognise; flash adds BETA_FLASH_ONLY_RATIOS. */
export const BETA_PRO_RATIOS = [
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
] as const;
export const BETA_FLASH_ONLY_RATIOS = ['1:4', '1:8', '4:1', '8:1'] as const;

export type ImageFamily = 'alpha-2.5' | 'alpha-2' | 'alpha-az' | 'beta';

export function imageFamily(model: string): ImageFamily | undefined {
	if (model === 'alpha-image-2.5') return 'alpha-2.5';
	if (model === 'alpha-image-2-az') return 'alpha-az';
	if (/^alpha-image-2(-1k|-2k|-4k)?$/.test(model)) return 'alpha-2';
	if (/^beta-.*image/.test(model) && !/special/i.test(model)) return 'beta';
	return undefined;
}

export function tierSuffix(model: string): '1k' | '2k' | '4k' | undefined {
	return (/-(1k|2k|4k)$/.exec(model)?.[1] as '1k' | '2k' | '4k' | undefined) ?? undefined;
}

/** Tier of an unsuffixed beta model from the requested size: longest side ≤1024 → 1K, ≤2048 → 2K, else 4K. */
export function betaTierFor(size: string): '1K' | '2K' | '4K' {
	const [w, h] = size.split('x').map(Number);
	const long = Math.max(w, h);
	return long <= 1024 ? '1K' : long <= 2048 ? '2K' : '4K';
}

/** Whether a beta model is a flash model (the wider ratio set). */
export function isBetaFlash(model: string): boolean {
	return imageFamily(model) === 'beta' && /flash/i.test(model);
}

/** Aspect ratios a beta model recognises: pro's ten, flash's fourteen. */
export function betaRatios(model: string): readonly string[] {
	return isBetaFlash(model) ? [...BETA_PRO_RATIOS, ...BETA_FLASH_ONLY_RATIOS] : BETA_PRO_RATIOS;
}

/** Why a native aspect ratio does not fit the model, or undefined when it does. */
export function nativeRatioProblem(model: string, ratio: string): string | undefined {
	if (imageFamily(model) !== 'beta') return undefined;
	if (betaRatios(model).includes(ratio)) return undefined;
	if ((BETA_FLASH_ONLY_RATIOS as readonly string[]).includes(ratio))
		return `${ratio} is recognised by the beta flash models only; ${model} takes ${BETA_PRO_RATIOS.join(', ')}`;
	return `${model} takes ${betaRatios(model).join(', ')}`;
}

/** A pixel string `<width>x<height>` with positive sides, or undefined. */
export function parsePixels(size: string): { width: number; height: number } | undefined {
	const m = /^(\d{1,6})x(\d{1,6})$/.exec(size);
	if (!m) return undefined;
	const [width, height] = [Number(m[1]), Number(m[2])];
	return width > 0 && height > 0 ? { width, height } : undefined;
}

/** The alpha-image-2 tier of a model ('1k' for the unsuffixed standard model), or undefined for other models. */
export function alpha2Tier(model: string): '1k' | '2k' | '4k' | undefined {
	return imageFamily(model) === 'alpha-2' ? (tierSuffix(model) ?? '1k') : undefined;
}

const TIER_NAME = { '1k': 'standard/1K', '2k': '2K', '4k': '4K' } as const;
const grouped = (n: number) => n.toLocaleString('en-US');

export interface NormalisedSize {
	/** the size as given */
	requested: string;
	/** what the gateway normalises it to: multiples of 16, the same aspect ratio, within the tier's pixel cap */
	size: string;
	width: number;
	height: number;
	changed: boolean;
	tier: '1K' | '2K' | '4K';
	/** the tier's pixel cap (1024², 2048², 2880²) */
	pixelCap: number;
	/** one sentence for an execution hint or the output */
	note: string;
}

function toMultiplesOf16(w: number, h: number, cap: number): [number, number] {
	const snap = (v: number, f: (x: number) => number) => Math.max(16, f(v / 16) * 16);
	let [nw, nh] = [snap(w, Math.round), snap(h, Math.round)];
	if (nw * nh <= cap) return [nw, nh];
	const s = Math.sqrt(cap / (w * h));
	[nw, nh] = [snap(w * s, Math.floor), snap(h * s, Math.floor)];
	if (nw * nh > cap) {
		if (nw >= nh) nw = Math.max(16, Math.floor(cap / nh / 16) * 16);
		else nh = Math.max(16, Math.floor(cap / nw / 16) * 16);
	}
	return [nw, nh];
}

/**
 * What an alpha-image-2 family gateway makes of a requested size: sides rounded to multiples of 16 keeping the
 * aspect ratio, within the tier's pixel cap. Undefined for other models (the normalisation does not apply to
 * alpha-image-2.5 or alpha-image-2-az), an empty size, a size that is not `WxH`, or one over the cap (refused).
 * Delivered pixels can still differ by channel: the output reports the real size.
 */
export function normalisedSize(
	model: string,
	size: string | undefined,
): NormalisedSize | undefined {
	const tier = alpha2Tier(model);
	const px = size ? parsePixels(size) : undefined;
	if (!tier || !px || !size) return undefined;
	const side = ALPHA_2_TIER_CAP[tier];
	const pixelCap = side * side;
	if (px.width * px.height > pixelCap) return undefined;
	const [width, height] = toMultiplesOf16(px.width, px.height, pixelCap);
	const out = `${width}x${height}`;
	const changed = out !== size;
	const rule = `multiples of 16, same aspect ratio, at most ${side}x${side} pixels for the ${TIER_NAME[tier]} tier`;
	const note = changed
		? `${model} normalises ${size} to ${out} (${rule}); delivered pixels can still differ, the output reports the real size`
		: `${model} takes ${size} as it is (${rule}); delivered pixels can still differ`;
	return {
		requested: size,
		size: out,
		width,
		height,
		changed,
		tier: tier.toUpperCase() as '1K' | '2K' | '4K',
		pixelCap,
		note,
	};
}

/** The recognised ratio nearest to a pixel size (the beta adapter picks the nearest supported aspect ratio). */
export function nearestBetaRatio(model: string, width: number, height: number): string {
	const dist = (r: string) => {
		const [a, b] = r.split(':').map(Number);
		return Math.abs(Math.log(width / height) - Math.log(a / b));
	};
	return betaRatios(model).reduce((best, r) => (dist(r) < dist(best) ? r : best));
}

/**
 * One sentence on what the gateway will make of a size, for an execution hint or the output: alpha-image-2's
 * normalisation, or a beta model's tier and nearest ratio. Undefined when there is nothing to say (other models,
 * no size, a size that is refused anyway).
 */
/** For a model the package has no rules for: what the execution hint says. */
export function unknownModelNote(model: string): string | undefined {
	if (imageFamily(model) || isRetired(model) || familyOf(model) !== 'image') return undefined;
	return `${model}: this package has no local rules for this model, so size, quality and references are sent as given and the gateway decides; check its answer`;
}

export function sizeNote(model: string, size: string | undefined): string | undefined {
	const alpha = normalisedSize(model, size);
	if (alpha) return alpha.note;
	const px = size ? parsePixels(size) : undefined;
	if (imageFamily(model) !== 'beta' || !px || !size) return undefined;
	const suffix = tierSuffix(model);
	const tier = suffix
		? `${suffix.toUpperCase()} tier (locked by the model suffix)`
		: `${betaTierFor(size)} tier (from the longest side)`;
	return `${model}: ${size} asks for the ${tier} at the nearest recognised ratio ${nearestBetaRatio(model, px.width, px.height)}; delivered pixels can differ, the output reports the real size`;
}

/** Why an alpha-image-2 size is refused (over the tier's pixel cap), or undefined. */
function alpha2SizeProblem(
	model: string,
	px: { width: number; height: number },
): string | undefined {
	const tier = alpha2Tier(model)!;
	const side = ALPHA_2_TIER_CAP[tier];
	const pixels = px.width * px.height;
	if (pixels <= side * side) return undefined;
	const larger =
		tier === '1k'
			? ' (alpha-image-2-2k and -4k allow more)'
			: tier === '2k'
				? ' (alpha-image-2-4k allows more)'
				: '';
	return `${px.width}x${px.height} is ${grouped(pixels)} pixels; the ${TIER_NAME[tier]} tier of ${model} allows at most ${side}x${side} = ${grouped(side * side)} pixels${larger}`;
}

const RATIO_LIST = `takes ${BETA_PRO_RATIOS.join(', ')}`;

/** The image request's rules; `model` changes pick the family a rule is about. */
export const IMAGE_REQUEST_RULES = bodyRuleSet('Image request', {
	schema: (): ZodTypeAny => imageRequestSchema,
	valid: { model: 'alpha-image-2.5', prompt: 'a red fox', size: '1024x1024', n: 1 },
	rules: {
		modelRequired: {
			field: 'model',
			says: 'is required',
			good: [{ model: 'alpha-image-2' }],
			bad: [{ model: '' }],
		},
		promptText: {
			field: 'prompt',
			says: 'must be text',
			good: [{ prompt: 'a fox, 42 times' }],
			bad: [{ prompt: 42 }, { prompt: ['a fox'] }],
		},
		promptNotEmpty: {
			field: 'prompt',
			says: 'must not be empty',
			good: [{ prompt: ' a fox ' }],
			bad: [{ prompt: '   ' }, { prompt: '' }],
		},
		nNumber: { field: 'n', says: 'must be a number', good: [{ n: 4 }], bad: [{ n: 'two' }] },
		nWhole: { field: 'n', says: 'must be a whole number', good: [{ n: 2 }], bad: [{ n: 1.5 }] },
		nAtLeastOne: {
			field: 'n',
			says: 'must be at least 1',
			good: [{ n: 1 }],
			bad: [{ n: 0 }, { n: -2 }],
		},
		retired: {
			field: 'model',
			says: "belongs to the retired 'special' beta series",
			good: [{ model: 'beta-3-pro-image-preview' }],
			bad: [{ model: 'beta-2-special-image' }],
		},
		imageModel: {
			field: 'model',
			says: 'is not an image model',
			good: [{ model: 'omega-image-9' }],
			bad: [{ model: 'alpha-chat-4o' }],
		},
		sizeNotRatio: {
			field: 'size',
			says: 'is a ratio, not a size',
			good: [{ size: '1536x864' }],
			bad: [{ size: '16:9' }],
		},
		sizePixels: {
			field: 'size',
			says: 'must be a pixel string <width>x<height>',
			good: [{ model: 'beta-3-pro-image-preview', size: '1000x700' }],
			bad: [{ size: 'large' }, { model: 'beta-3-pro-image-preview', size: '0x512' }],
		},
		alpha25Size: {
			field: 'size',
			says: `takes one of ${ALPHA_25_SIZES.join(', ')}`,
			good: ALPHA_25_SIZES.map((size) => ({ size })),
			bad: [{ size: '1000x1000' }, { size: '2048x2048' }],
		},
		alpha2TierCap: {
			field: 'size',
			says: 'pixels; the',
			good: [
				{ model: 'alpha-image-2', size: '1024x1024' },
				{ model: 'alpha-image-2-2k', size: '2048x2048' },
				{ model: 'alpha-image-2-4k', size: '2880x2880' },
				{ model: 'alpha-image-2-1k', size: '1000x1000' },
			],
			bad: [
				{ model: 'alpha-image-2', size: '1536x1024' },
				{ model: 'alpha-image-2-2k', size: '4096x4096' },
				{ model: 'alpha-image-2-4k', size: '2896x2896' },
			],
		},
		alpha25Quality: {
			field: 'quality',
			says: 'alpha-image-2.5 takes auto or high',
			good: [{ quality: 'auto' }, { quality: 'high' }],
			bad: [{ quality: 'low' }],
		},
		betaNoQuality: {
			field: 'quality',
			says: 'the beta family does not take quality',
			good: [{ model: 'beta-3-pro-image-preview' }],
			bad: [{ model: 'beta-3-pro-image-preview', quality: 'high' }],
		},
		nativeRatio: {
			field: 'aspectRatio',
			says: RATIO_LIST,
			good: [
				{ model: 'beta-3-pro-image-preview', aspectRatio: '21:9' },
				{ model: 'beta-3.1-flash-image-preview', aspectRatio: '1:8' },
			],
			bad: [
				{ model: 'beta-3-pro-image-preview', aspectRatio: '1:4' },
				{ model: 'beta-3.1-flash-image-preview', aspectRatio: '7:3' },
			],
		},
	},
});
const R = IMAGE_REQUEST_RULES;

export const imageRequestSchema = z
	.object({
		model: z.string().min(1, R.modelRequired.says),
		prompt: z.string({ invalid_type_error: R.promptText.says }).superRefine((s, ctx) => {
			if (s.trim() === '') violate(ctx, R.promptNotEmpty, []);
		}),
		size: z.string().optional(),
		// the spec recommends 1 and sets no maximum
		n: z
			.number({ invalid_type_error: R.nNumber.says })
			.int(R.nWhole.says)
			.min(1, R.nAtLeastOne.says),
		quality: z.string().optional(),
		/** native mode only */
		aspectRatio: z.string().optional(),
	})
	.superRefine((v, ctx) => {
		const fam = imageFamily(v.model);
		if (isRetired(v.model)) {
			violate(
				ctx,
				R.retired,
				['model'],
				`${v.model} ${R.retired.says}, which is no longer in the gateway's catalog`,
			);
			return;
		}
		if (!fam && familyOf(v.model) !== 'image') {
			violate(
				ctx,
				R.imageModel,
				['model'],
				`${v.model} ${R.imageModel.says} (the list offers the image models your key can call)`,
			);
			return;
		}
		// an image model the package has no rules for goes as given: the catalogue changes, and the gateway is the authority
		if (!fam) return;
		const size = v.size;
		if (size !== undefined && size !== '') {
			const px = parsePixels(size);
			if (/^\d+:\d+$/.test(size)) {
				violate(
					ctx,
					R.sizeNotRatio,
					['size'],
					`"${size}" ${R.sizeNotRatio.says}: use a pixel string such as 1536x864 (a ratio string falls back to a square)`,
				);
			} else if (!px) {
				violate(ctx, R.sizePixels, ['size'], `${R.sizePixels.says}, e.g. 1024x1024`);
			} else if (fam === 'alpha-2.5' && !(ALPHA_25_SIZES as readonly string[]).includes(size)) {
				violate(ctx, R.alpha25Size, ['size'], `${v.model} ${R.alpha25Size.says}`);
			} else if (fam === 'alpha-2') {
				const why = alpha2SizeProblem(v.model, px);
				if (why) violate(ctx, R.alpha2TierCap, ['size'], why);
			}
		}
		if (v.quality !== undefined && v.quality !== '') {
			if (fam === 'alpha-2.5' && !['auto', 'high'].includes(v.quality))
				violate(ctx, R.alpha25Quality, ['quality'], `${R.alpha25Quality.says} (or leave it out)`);
			if (fam === 'beta')
				violate(
					ctx,
					R.betaNoQuality,
					['quality'],
					`${R.betaNoQuality.says} (its adaptation forwards prompt, size, n and references only)`,
				);
		}
		if (v.aspectRatio !== undefined && v.aspectRatio !== '') {
			const why = nativeRatioProblem(v.model, v.aspectRatio);
			if (why) violate(ctx, R.nativeRatio, ['aspectRatio'], why);
		}
	});

export type ImageRequest = z.infer<typeof imageRequestSchema>;

/** Whether the spec confirms the JSON data-URL edit form for this model. */
export function jsonEditConfirmed(model: string): boolean {
	return model === 'alpha-image-2.5' || model.startsWith('beta-3.1-flash-image-preview');
}
