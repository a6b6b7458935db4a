/**
 * Exact decimal arithmetic for fees. Prices such as 11.638 or ratios such as 0.8 are not exact binary
 * floats, so `Math.round(tokens / 1e6 * 11.638 * 1.5 * 500000)` can land on the wrong side of a .5.
 * Here every factor is read as the decimal it prints as (JavaScript's shortest round-trip form) and the
 * product is rounded once, half away from zero, with BigInt.
 */

interface Fraction {
	num: bigint;
	den: bigint;
}

/** The exact decimal a finite number prints as, e.g. 11.638 → 11638/1000, 1e-7 → 1/10000000. */
export function toFraction(x: number): Fraction {
	if (!Number.isFinite(x)) throw new Error(`not a finite number: ${x}`);
	const m = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]?\d+))?$/i.exec(String(x));
	if (!m) throw new Error(`cannot read ${x} as a decimal`);
	const [, sign, int, frac = '', expText] = m;
	const exp = Number(expText ?? 0) - frac.length;
	let num = BigInt(int + frac);
	let den = 1n;
	if (exp >= 0) num *= 10n ** BigInt(exp);
	else den = 10n ** BigInt(-exp);
	return { num: sign ? -num : num, den };
}

/** Product of decimals divided by `divisor`, rounded to an integer half away from zero. */
export function roundedProduct(factors: number[], divisor = 1): number {
	let num = 1n;
	let den = 1n;
	for (const f of [...factors]) {
		const q = toFraction(f);
		num *= q.num;
		den *= q.den;
	}
	const d = toFraction(divisor);
	num *= d.den;
	den *= d.num;
	if (den === 0n) throw new Error('division by zero');
	if (den < 0n) {
		num = -num;
		den = -den;
	}
	const negative = num < 0n;
	const abs = negative ? -num : num;
	const rounded = (abs * 2n + den) / (den * 2n);
	return Number(negative ? -rounded : rounded);
}

/** Sum of products of decimals, rounded once to an integer half away from zero (e.g. (a + b × c) × d = a×d + b×c×d). */
export function roundedSumOfProducts(terms: number[][]): number {
	let num = 0n;
	let den = 1n;
	for (const factors of terms) {
		let n = 1n;
		let d = 1n;
		for (const f of factors) {
			const q = toFraction(f);
			n *= q.num;
			d *= q.den;
		}
		num = num * d + n * den;
		den *= d;
	}
	const negative = num < 0n;
	const abs = negative ? -num : num;
	const rounded = (abs * 2n + den) / (den * 2n);
	return Number(negative ? -rounded : rounded);
}
