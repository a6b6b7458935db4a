/** Exact decimal arithmetic for quota amounts: rationals over bigint, rounded half-up to whole quota units. */
export interface Rational {
	n: bigint;
	d: bigint;
}

/** The decimal a number is written as (0.8 is 8/10, not the nearest binary fraction). */
export function rational(x: number | bigint | string): Rational {
	if (typeof x === 'bigint') return { n: x, d: 1n };
	const text = typeof x === 'number' ? String(x) : x.trim();
	const m = /^(-?)(\d*)(?:\.(\d*))?(?:e([+-]?\d+))?$/i.exec(text);
	if (!m || (!m[2] && !m[3])) throw new Error(`not a decimal: ${text}`);
	const frac = m[3] ?? '';
	const exp = Number(m[4] ?? 0) - frac.length;
	let n = BigInt(`${m[2] || '0'}${frac}`);
	let d = 1n;
	if (exp >= 0) n *= 10n ** BigInt(exp);
	else d = 10n ** BigInt(-exp);
	return { n: m[1] ? -n : n, d };
}

export function mul(...xs: Array<Rational | number | bigint | string>): Rational {
	let n = 1n;
	let d = 1n;
	for (const x of xs) {
		const r = typeof x === 'object' ? x : rational(x);
		n *= r.n;
		d *= r.d;
	}
	return { n, d };
}

export function add(...xs: Array<Rational | number | bigint | string>): Rational {
	let n = 0n;
	let d = 1n;
	for (const x of xs) {
		const r = typeof x === 'object' ? x : rational(x);
		n = n * r.d + r.n * d;
		d *= r.d;
	}
	return { n, d };
}

/** Whole quota units, half-up (halves away from zero). */
export function roundHalfUp(r: Rational): number {
	const neg = r.n < 0n !== r.d < 0n;
	const n = r.n < 0n ? -r.n : r.n;
	const d = r.d < 0n ? -r.d : r.d;
	const q = (2n * n + d) / (2n * d);
	return Number(neg ? -q : q);
}
