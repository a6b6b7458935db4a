/**
 * The money properties' oracle: what a paid call costs, written from the spec's billing rules and the notes' Money
 * section (../shared/spec/gateway-interface.md "Billing", ../shared/notes/gateway-behaviour.md "Money") and the
 * simulator README's per-token formula — never from the package's code (nothing here imports from nodes/), and with
 * its own exact decimal arithmetic:
 *
 * - per call: model_price × group ratio × quota_per_unit, rounded half-up to whole ¤, × the images asked (n);
 * - per token: (plain prompt + cached × cache_ratio + cache writes × create_cache_ratio + image × image_ratio +
 *   audio × audio_ratio + text output × completion_ratio + audio output × audio_ratio × audio_completion_ratio)
 *   × model_ratio × group ratio, rounded half-up once (a ratio the list does not carry is 1);
 * - a key is charged at its own group's ratio; a cap in the display currency is amount × ¤ per unit (USD:
 *   quota_per_unit; CNY: quota_per_unit / usd_exchange_rate), rounded down.
 */

/** An exact decimal: n / 10^s. */
interface Dec {
	n: bigint;
	s: number;
}

function dec(x: number | string): Dec {
	const text = typeof x === 'number' ? numberText(x) : x.trim();
	const m = /^(-?)(\d*)(?:\.(\d*))?$/.exec(text);
	if (!m) throw new Error(`oracle: not a plain decimal: ${text}`);
	const frac = m[3] ?? '';
	const n = BigInt(`${m[1]}${m[2] || '0'}${frac}`);
	return { n, s: frac.length };
}

/** A number as plain decimal text (no exponent). */
function numberText(x: number): string {
	if (!Number.isFinite(x)) throw new Error(`oracle: not finite: ${x}`);
	const t = String(x);
	if (!/e/i.test(t)) return t;
	return x.toFixed(20).replace(/\.?0+$/, '');
}

const pow10 = (s: number) => 10n ** BigInt(s);
const mul = (a: Dec, b: Dec): Dec => ({ n: a.n * b.n, s: a.s + b.s });
function add(a: Dec, b: Dec): Dec {
	const s = Math.max(a.s, b.s);
	return { n: a.n * pow10(s - a.s) + b.n * pow10(s - b.s), s };
}
const product = (...xs: Array<number | string | Dec>): Dec =>
	xs.map((x) => (typeof x === 'object' ? x : dec(x))).reduce(mul, { n: 1n, s: 0 });

/** Rounded half-up to a whole number (non-negative amounts). */
function roundHalfUp(a: Dec): number {
	if (a.n < 0n) throw new Error('oracle: negative amount');
	if (a.s === 0) return Number(a.n);
	const d = pow10(a.s);
	return Number((a.n * 2n + d) / (2n * d));
}

/** Rounded down to a whole number. */
function floorOf(a: Dec): number {
	return Number(a.n / pow10(a.s));
}

/** The price list as the gateway publishes it (the simulator's `pricing` snapshot, hidden ratios beside it). */
export interface PriceFacts {
	data: Array<Record<string, unknown>>;
	group_ratio: Record<string, number>;
	usable_group: Record<string, string>;
	hidden_group_ratio: Record<string, number>;
	quotaPerUnit: number;
}

export function entryOf(facts: PriceFacts, model: string): Record<string, unknown> {
	const e = facts.data.find((d) => d.model_name === model);
	if (!e) throw new Error(`oracle: no price entry for ${model}`);
	return e;
}

/** The highest ratio the price list publishes for a group that enables the model (what a cap must count when the key's group is not known). */
export function highestPublished(facts: PriceFacts, model: string): number {
	const groups = (entryOf(facts, model).enable_groups as string[] | undefined) ?? [];
	const ratios = groups
		.map((g) => facts.group_ratio[g])
		.filter((r): r is number => typeof r === 'number' && r > 0);
	if (!ratios.length) throw new Error(`oracle: no positive published ratio for ${model}`);
	return Math.max(...ratios);
}

export const isPerCall = (facts: PriceFacts, model: string) =>
	Number(entryOf(facts, model).quota_type) === 1;

/** Per call: model_price × ratio × quota_per_unit, rounded half-up, × n. */
export function perCallPrice(facts: PriceFacts, model: string, ratio: number, n = 1): number {
	const price = entryOf(facts, model).model_price as number;
	return roundHalfUp(product(price, ratio, facts.quotaPerUnit)) * n;
}

/** The usage a chat answer reported (OpenAI's field names), by kind. */
export interface Usage {
	prompt: number;
	completion: number;
	cached: number;
	cacheWrite: number;
	image: number;
	audio: number;
	audioOut: number;
}

export function usageOfAnswer(u: unknown): Usage | undefined {
	if (!u || typeof u !== 'object') return undefined;
	const o = u as Record<string, any>;
	const prompt = o.prompt_tokens ?? o.input_tokens;
	const completion = o.completion_tokens ?? o.output_tokens;
	if (typeof prompt !== 'number' || typeof completion !== 'number') return undefined;
	const pd = o.prompt_tokens_details ?? o.input_tokens_details ?? {};
	const cd = o.completion_tokens_details ?? o.output_tokens_details ?? {};
	return {
		prompt,
		completion,
		cached: pd.cached_tokens ?? 0,
		cacheWrite: pd.cached_creation_tokens ?? 0,
		image: pd.image_tokens ?? 0,
		audio: pd.audio_tokens ?? 0,
		audioOut: cd.audio_tokens ?? 0,
	};
}

/** Per token, from the reported usage. */
export function perTokenPrice(facts: PriceFacts, model: string, u: Usage, ratio: number): number {
	const e = entryOf(facts, model);
	const r = (k: string) => (typeof e[k] === 'number' ? (e[k] as number) : 1);
	const plain = u.prompt - u.cached - u.cacheWrite - u.image - u.audio;
	const textOut = u.completion - u.audioOut;
	const weighted = [
		product(plain),
		product(u.cached, r('cache_ratio')),
		product(u.cacheWrite, r('create_cache_ratio')),
		product(u.image, r('image_ratio')),
		product(u.audio, r('audio_ratio')),
		product(textOut, r('completion_ratio')),
		product(u.audioOut, r('audio_ratio'), r('audio_completion_ratio')),
	].reduce(add);
	return roundHalfUp(product(weighted, e.model_ratio as number, ratio));
}

/** Whole ¤ of a Max Expected Spend in the display currency (TOKENS: the display shows raw ¤). */
export function displayToQuota(
	amount: string,
	display: { type: 'USD' } | { type: 'CNY'; rate: number } | { type: 'TOKENS' },
	quotaPerUnit: number,
): number {
	if (display.type === 'TOKENS') return floorOf(dec(amount));
	const a = product(amount, quotaPerUnit);
	if (display.type === 'USD') return floorOf(a);
	// amount × Q / rate, rounded down: compare a / rate exactly
	const rate = dec(display.rate);
	const s = Math.max(a.s, rate.s);
	const num = a.n * pow10(s - a.s);
	const den = rate.n * pow10(s - rate.s);
	return Number(num / den);
}

// ---- amounts in the display currency (docs/configuration.md, "Amounts as the currency shows them") ---------------

/** A site's display currency as /api/status gives it. */
export interface SiteDisplay {
	type: 'USD' | 'CNY' | 'CUSTOM';
	quotaPerUnit: number;
	/** usd_exchange_rate (CNY) or custom_currency_exchange_rate (CUSTOM), as written */
	rate: string;
	/** the custom currency's symbol */
	symbol: string;
}

/** An exact rational n / d (d > 0). */
interface Ratio {
	n: bigint;
	d: bigint;
}

const ratioOf = (x: Dec): Ratio => ({ n: x.n, d: pow10(x.s) });

/** ¤ in the display currency, exactly: ¤ ÷ quota_per_unit × the site's rate (USD: 1). */
function inDisplay(quota: Dec, site: SiteDisplay): Ratio {
	const q = ratioOf(quota);
	const per = ratioOf(dec(site.quotaPerUnit));
	const rate = ratioOf(dec(site.type === 'USD' ? '1' : site.rate));
	return { n: q.n * per.d * rate.n, d: q.d * per.n * rate.d };
}

/** The decimals the site's currency shows: USD and CNY 2; a custom currency 2, or 0 when its symbol is JPY. */
export const placesOf = (site: SiteDisplay) =>
	site.type === 'CUSTOM' && /^(JPY|円)$/i.test(site.symbol.trim()) ? 0 : 2;

/** n/d rounded half-up to `p` decimals, as decimal text. */
function roundedText(r: Ratio, p: number): string {
	const units = (r.n * pow10(p) * 2n + r.d) / (2n * r.d);
	const t = units.toString().padStart(p + 1, '0');
	return p ? `${t.slice(0, -p)}.${t.slice(-p)}` : t;
}

/**
 * What the site shows for an amount of ¤ (or an exact price in ¤): rounded half-up to the currency's decimals; below
 * one of its smallest units (and not 0), to 2 significant digits, without a zero after them.
 */
export function shownOf(
	quota: number | string,
	site: SiteDisplay,
): { amount: number; text: string } {
	const r = inDisplay(dec(quota), site);
	const places = placesOf(site);
	let p = places;
	if (r.n !== 0n && r.n * pow10(p) < r.d) {
		// the first significant digit's place, plus one
		p++;
		while (r.n * pow10(p) < r.d) p++;
		p++;
	}
	let text = roundedText(r, p);
	// a sub-unit amount is written without the zeros after its two digits (docs/configuration.md: ¤3000 is $0.006)
	while (p > places + 1 && text.endsWith('0')) {
		text = text.slice(0, -1);
		p--;
	}
	const sym = site.type === 'USD' ? '$' : site.type === 'CNY' ? '¥' : site.symbol;
	return { amount: Number(text), text: `${sym}${text}` };
}

/** The exact display amount of ¤ as decimal text, when it is a finite decimal of at most 12 places (else undefined). */
export function exactDisplayText(quota: number, site: SiteDisplay): string | undefined {
	const r = inDisplay(dec(quota), site);
	for (let p = 0; p <= 12; p++)
		if ((r.n * pow10(p)) % r.d === 0n) return p ? roundedText(r, p) : String(r.n / r.d);
	return undefined;
}

/** Whole ¤ per call at a ratio: model_price × ratio × quota_per_unit, rounded half-up. */
export function callQuota(modelPrice: number, ratio: number, quotaPerUnit: number): number {
	return roundHalfUp(product(modelPrice, ratio, quotaPerUnit));
}

/** ¤ per 1M tokens (a rate, exact): 1,000,000 × model_ratio × ratio (× completion_ratio for output), as decimal text. */
export function perMillionQuota(...factors: number[]): string {
	const p = product(1_000_000, ...factors);
	const t = p.n.toString().padStart(p.s + 1, '0');
	return p.s ? `${t.slice(0, -p.s)}.${t.slice(-p.s)}` : t;
}

/** The exact display amount of ¤ to 6 decimals: how an amount reads before it is rounded as the currency shows it. */
export function unroundedOf(quota: number | string, site: SiteDisplay): number {
	return Number(roundedText(inDisplay(dec(quota), site), 6));
}
