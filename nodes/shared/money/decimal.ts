/**
 * Exact decimal arithmetic for fees. Prices such as 11.638 or ratios such as 0.8 are not exact binary
 * floats, so `Math.round(tokens / 1e6 * 11.638 * 1.5 * 500000)` can land on the wrong side of a .5.
 * Here every factor is read as the decimal it prints as (JavaScript's shortest round-trip form) and the
 * product is rounded once, half away from zero, with BigInt.
 */

export interface Fraction {
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

/** The exact decimal a text holds ("0.146", " 2.01 ", "1e-3"), or undefined when it is not a plain decimal. */
export function fractionOfText(text: string): Fraction | undefined {
	const t = text.trim();
	if (!/^-?\d+(?:\.\d+)?(?:e[+-]?\d+)?$/i.test(t)) return undefined;
	const n = Number(t);
	if (!Number.isFinite(n)) return undefined;
	const [mant, expText] = t.toLowerCase().split('e');
	const [int, frac = ''] = mant.replace('-', '').split('.');
	const exp = Number(expText ?? 0) - frac.length;
	let num = BigInt(int + frac);
	let den = 1n;
	if (exp >= 0) num *= 10n ** BigInt(exp);
	else den = 10n ** BigInt(-exp);
	return { num: mant.startsWith('-') ? -num : num, den };
}

/** (product of `num`) / (product of `den`), each a decimal as written (a number as it prints, or a Fraction): exact. */
export function quotient(
	num: Array<number | Fraction>,
	den: Array<number | Fraction> = [],
): Fraction {
	const f = (x: number | Fraction) => (typeof x === 'number' ? toFraction(x) : x);
	let n = 1n;
	let d = 1n;
	for (const x of num) {
		const q = f(x);
		n *= q.num;
		d *= q.den;
	}
	for (const x of den) {
		const q = f(x);
		n *= q.den;
		d *= q.num;
	}
	if (d === 0n) throw new Error('division by zero');
	return d < 0n ? { num: -n, den: -d } : { num: n, den: d };
}

/** The largest whole number not above an exact fraction. */
export function floorOf(f: Fraction): number {
	const q = f.num / f.den;
	return Number(f.num < 0n && q * f.den !== f.num ? q - 1n : q);
}

/** An exact fraction rounded half away from zero to `digits` decimals, as the number that prints so ("0.146"). */
export function roundTo(f: Fraction, digits: number): number {
	const scale = 10n ** BigInt(digits);
	const negative = f.num < 0n;
	const abs = (negative ? -f.num : f.num) * scale;
	const units = (abs * 2n + f.den) / (f.den * 2n);
	const int = units / scale;
	const frac = (units % scale).toString().padStart(digits, '0');
	return Number(`${negative ? '-' : ''}${int}${digits ? `.${frac}` : ''}`);
}
