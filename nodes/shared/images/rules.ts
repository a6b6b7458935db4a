/** Image request rules per model family and tier (checked before any request). */
import { z } from 'zod';

export const ALPHA_25_SIZES = ['1024x1024', '1536x1024', '1024x1536', '1536x864', '864x1536', '1536x1152', '1152x1536', '1680x720'] as const;
export const ALPHA_2_TIER_CAP: Record<string, number> = { '1k': 1024, '2k': 2048, '4k': 2880 };

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

const PIXELS = /^(\d{2,5})x(\d{2,5})$/;

export const imageRequestSchema = z
	.object({
		model: z.string().min(1, 'is required'),
		prompt: z.string({ invalid_type_error: 'must be text' }).refine((s) => s.trim() !== '', 'must not be empty'),
		size: z.string().optional(),
		n: z.number({ invalid_type_error: 'must be a number' }).int('must be a whole number').min(1, 'must be at least 1').max(4, 'at most 4 (1 is recommended: more images risk partial failure and unclear billing)'),
		quality: z.string().optional(),
	})
	.superRefine((v, ctx) => {
		const fam = imageFamily(v.model);
		if (!fam) {
			ctx.addIssue({ code: 'custom', path: ['model'], message: `${v.model} is not an image model this node supports (the retired 'special' beta series is not offered)` });
			return;
		}
		const size = v.size;
		if (size !== undefined && size !== '') {
			if (/^\d+:\d+$/.test(size)) {
				ctx.addIssue({ code: 'custom', path: ['size'], message: `"${size}" is a ratio, not a size: use a pixel string such as 1536x864 (a ratio string falls back to a square)` });
				return;
			}
			const m = PIXELS.exec(size);
			if (!m && !(fam === 'alpha-2.5' && size === 'auto')) {
				ctx.addIssue({ code: 'custom', path: ['size'], message: 'must be a pixel string <width>x<height>, e.g. 1024x1024' });
				return;
			}
			if (fam === 'alpha-2.5' || fam === 'alpha-az') {
				if (size !== 'auto' && !(ALPHA_25_SIZES as readonly string[]).includes(size)) ctx.addIssue({ code: 'custom', path: ['size'], message: `${v.model} takes one of ${ALPHA_25_SIZES.join(', ')}` });
			} else if (fam === 'alpha-2' && m) {
				const tier = tierSuffix(v.model) ?? '1k';
				const cap = ALPHA_2_TIER_CAP[tier];
				const [w, h] = [Number(m[1]), Number(m[2])];
				if (w % 16 || h % 16) ctx.addIssue({ code: 'custom', path: ['size'], message: `width and height must be multiples of 16 for ${v.model}` });
				if (w > cap || h > cap || w < 256 || h < 256) ctx.addIssue({ code: 'custom', path: ['size'], message: `each side must be 256 to ${cap} px for the ${tier.toUpperCase()} tier of ${v.model}${tier !== '4k' ? ' (use a larger tier model for more)' : ''}` });
			}
		}
		if (v.quality !== undefined && v.quality !== '') {
			if (fam === 'alpha-2.5' && !['auto', 'high'].includes(v.quality)) ctx.addIssue({ code: 'custom', path: ['quality'], message: 'alpha-image-2.5 takes auto or high (or leave it out)' });
			if (fam === 'beta') ctx.addIssue({ code: 'custom', path: ['quality'], message: 'the beta family does not take quality (its adaptation forwards prompt, size, n and references only)' });
			if (fam === 'alpha-az') ctx.addIssue({ code: 'custom', path: ['quality'], message: 'alpha-image-2-az does not take quality here' });
		}
	});

export type ImageRequest = z.infer<typeof imageRequestSchema>;

/** Whether the spec confirms the JSON data-URL edit form for this model. */
export function jsonEditConfirmed(model: string): boolean {
	return model === 'alpha-image-2.5' || model.startsWith('beta-3.1-flash-image-preview');
}
