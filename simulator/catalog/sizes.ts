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

/** alpha-image-2 tiers: a pixel budget (the validation sizes 1024², 2048², 2880²), not a per-side cap. */
export const ALPHA_2_TIER_PIXELS: Record<string, number> = {
	'1k': 1024 * 1024,
	'2k': 2048 * 2048,
	'4k': 2880 * 2880,
};

const PRO_RATIOS = ['1:1', '2:3', '3:2', '3:4', '4:3', '4:5', '5:4', '9:16', '16:9', '21:9'];
const FLASH_RATIOS = [...PRO_RATIOS, '1:4', '1:8', '4:1', '8:1'];
const TIER_LONG_SIDE: Record<string, number> = { '1k': 1024, '2k': 2048, '4k': 4096 };

export type SizeResult =
	{ ok: true; width: number; height: number } | { ok: false; message: string };

function parsePixels(size: string): [number, number] | undefined {
	const m = /^(\d{1,6})x(\d{1,6})$/.exec(size);
	if (!m) return undefined;
	const [w, h] = [Number(m[1]), Number(m[2])];
	return w > 0 && h > 0 ? [w, h] : undefined;
}

/** Multiples of 16 as close to the requested aspect ratio as the tier's pixel budget allows. */
export function normaliseAlpha2(w: number, h: number, budget: number): [number, number] {
	const down = (x: number) => Math.max(16, Math.floor(x / 16) * 16);
	const up = (x: number) => Math.max(16, Math.ceil(x / 16) * 16);
	const target = Math.log(w / h);
	let best: [number, number] = [down(w), down(h)];
	let bestScore = Infinity;
	for (const cw of [down(w), up(w)])
		for (const ch of [down(h), up(h)]) {
			if (cw * ch > budget) continue;
			// closest ratio first, then the area closest to the request
			const score =
				Math.abs(Math.log(cw / ch) - target) * 1e6 + Math.abs(cw * ch - w * h) / (w * h);
			if (score < bestScore) {
				bestScore = score;
				best = [cw, ch];
			}
		}
	return best;
}

export function alphaTier(model: string): string {
	const m = /-(1k|2k|4k)$/.exec(model);
	return m ? m[1] : '1k';
}

/** What the gateway would deliver for a request, or why it refuses it. `seed` varies delivered pixels as real channels do. */
export function resolveSize(model: string, size: unknown, seed: number): SizeResult {
	if (size !== undefined && typeof size !== 'string')
		return {
			ok: false,
			message: `Invalid size ${JSON.stringify(size)}: expected a pixel string <width>x<height>`,
		};
	const s = size || undefined;
	if (model === 'alpha-image-2.5') {
		const req = s ?? '1024x1024';
		if (!ALPHA_25_SIZES[req])
			return {
				ok: false,
				message: `Invalid size '${req}' for ${model}: supported sizes are ${Object.keys(ALPHA_25_SIZES).join(', ')}`,
			};
		const [w, h] = parsePixels(req)!;
		if (w === h && seed % 2 === 1) return { ok: true, width: 1254, height: 1254 };
		return { ok: true, width: w, height: h };
	}
	if (model === 'alpha-image-2-az') {
		// the spec does not show the az size rules: any pixel string is passed through as asked
		const req = s ?? '1024x1024';
		const px = parsePixels(req);
		if (!px)
			return {
				ok: false,
				message: `Invalid size '${req}': expected a pixel string <width>x<height>`,
			};
		return { ok: true, width: px[0], height: px[1] };
	}
	if (model.startsWith('alpha-image-2')) {
		const tier = alphaTier(model);
		const budget = ALPHA_2_TIER_PIXELS[tier];
		const req = s ?? '1024x1024';
		const px = parsePixels(req);
		if (!px)
			return {
				ok: false,
				message: `Invalid size '${req}': expected a pixel string <width>x<height>`,
			};
		const [w, h] = px;
		if (w * h > budget)
			return {
				ok: false,
				message: `Invalid size '${req}' for tier ${tier.toUpperCase()}: ${w * h} pixels exceed the tier's ${budget}`,
			};
		const [width, height] = normaliseAlpha2(w, h, budget);
		return { ok: true, width, height };
	}
	if (model.startsWith('beta-')) {
		const flash = model.includes('flash');
		const suffix = /-(1k|2k|4k)$/.exec(model)?.[1];
		const px = s ? parsePixels(s) : [1024, 1024];
		// A ratio string such as 16:9 (or 'auto') is not parsed as a size: it falls back to a square.
		const [rw, rh] = px ?? [1024, 1024];
		const tier =
			suffix ?? (Math.max(rw, rh) <= 1024 ? '1k' : Math.max(rw, rh) <= 2048 ? '2k' : '4k');
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
