/** Image size rules per model family and tier (validation and the pixels actually delivered). */
export const ALPHA_25_SIZES: Record<string, string> = {
	'1024x1024': '1:1',
	'1536x1024': '3:2',
	'1024x1536': '2:3',
	'1536x864': '16:9',
	'864x1536': '9:16',
	'1536x1152': '4:3',
	'1152x1536': '3:4',
	'1680x720': '21:9',
};

export const ALPHA_2_TIER_CAP: Record<string, number> = { '1k': 1024, '2k': 2048, '4k': 2880 };

const PRO_RATIOS = ['1:1', '2:3', '3:2', '3:4', '4:3', '4:5', '5:4', '9:16', '16:9', '21:9'];
const FLASH_RATIOS = [...PRO_RATIOS, '1:4', '1:8', '4:1', '8:1'];
const TIER_LONG_SIDE: Record<string, number> = { '1k': 1024, '2k': 2048, '4k': 4096 };

export type SizeResult = { ok: true; width: number; height: number } | { ok: false; message: string };

function parsePixels(size: string): [number, number] | undefined {
	const m = /^(\d{2,5})x(\d{2,5})$/.exec(size);
	return m ? [Number(m[1]), Number(m[2])] : undefined;
}

export function alphaTier(model: string): string {
	const m = /-(1k|2k|4k)$/.exec(model);
	return m ? m[1] : '1k';
}

/** What the gateway would deliver for a request, or why it refuses it. `seed` varies delivered pixels as real channels do. */
export function resolveSize(model: string, size: unknown, seed: number): SizeResult {
	const s = typeof size === 'string' && size !== '' ? size : undefined;
	if (model === 'alpha-image-2.5' || model === 'alpha-image-2-az') {
		const req = s ?? '1024x1024';
		if (req === 'auto') return { ok: true, width: 1024, height: 1024 };
		if (!ALPHA_25_SIZES[req]) return { ok: false, message: `Invalid size '${req}' for ${model}: supported sizes are ${Object.keys(ALPHA_25_SIZES).join(', ')}` };
		const [w, h] = parsePixels(req)!;
		if (model === 'alpha-image-2.5' && w === h && seed % 2 === 1) return { ok: true, width: 1254, height: 1254 };
		return { ok: true, width: w, height: h };
	}
	if (model.startsWith('alpha-image-2')) {
		const tier = alphaTier(model);
		const cap = ALPHA_2_TIER_CAP[tier];
		const req = s ?? `${Math.min(cap, 1024)}x${Math.min(cap, 1024)}`;
		const px = parsePixels(req);
		if (!px) return { ok: false, message: `Invalid size '${req}': expected <width>x<height>` };
		const [w, h] = px;
		if (w % 16 || h % 16) return { ok: false, message: `Invalid size '${req}': width and height must be multiples of 16` };
		if (w > cap || h > cap || w < 256 || h < 256) return { ok: false, message: `Invalid size '${req}' for tier ${tier.toUpperCase()}: each side must be 256 to ${cap} pixels` };
		return { ok: true, width: w, height: h };
	}
	if (model.startsWith('beta-')) {
		const flash = model.includes('flash');
		const suffix = /-(1k|2k|4k)$/.exec(model)?.[1];
		const px = s ? parsePixels(s) : [1024, 1024];
		// A ratio string such as 16:9 is not parsed as a size: it falls back to a square.
		const [rw, rh] = px ?? [1024, 1024];
		const tier = suffix ?? (Math.max(rw, rh) <= 1024 ? '1k' : Math.max(rw, rh) <= 2048 ? '2k' : '4k');
		const ratios = flash ? FLASH_RATIOS : PRO_RATIOS;
		const target = rw / rh;
		let best = '1:1';
		let bestDiff = Infinity;
		for (const r of ratios) {
			const [a, b] = r.split(':').map(Number);
			const d = Math.abs(Math.log(a / b) - Math.log(target));
			if (d < bestDiff) {
				bestDiff = d;
				best = r;
			}
		}
		const [a, b] = best.split(':').map(Number);
		const long = TIER_LONG_SIDE[tier];
		const width = a >= b ? long : Math.round((long * a) / b / 16) * 16;
		const height = a >= b ? Math.round((long * b) / a / 16) * 16 : long;
		return { ok: true, width, height };
	}
	return { ok: false, message: `Model ${model} does not generate images` };
}
