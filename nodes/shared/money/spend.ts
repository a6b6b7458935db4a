/**
 * Max Expected Spend as a user writes it: an amount in the site's display currency ("1.50", "$2.01", "¥0.146",
 * "0.146 CNY") or in ¤ quota units ("¤750000"), read as the exact decimal it is written as. Converted to whole ¤ with
 * the site's own rate in exact decimals (never floating point): a cap equal to a price holds it. A currency other
 * than the site's display currency is refused naming both (no rate between them is published).
 */
import { z } from 'zod';
import { shown, type Rule } from '../rules/rule';
import { floorOf, fractionOfText, quotient, toFraction } from './decimal';
import type { DisplaySettings } from './prices';

export const SPEND_SAYS =
	'must be a positive amount in the display currency (e.g. 1.50), or ¤ quota units written with ¤ (e.g. ¤750000)';

export interface SpendAmount {
	/** the amount as written, a plain decimal ("0.146") */
	amount: string;
	/** `display`: the site's display currency; `quota`: ¤ quota units */
	unit: 'display' | 'quota';
	/** the currency the amount was written in, when it names one (USD, CNY, EUR, GBP, or a symbol as written) */
	currency?: string;
	/** the value as the user gave it, for messages */
	written: string;
}

const CODES: Record<string, string> = {
	$: 'USD',
	us$: 'USD',
	usd: 'USD',
	'¥': 'CNY',
	'￥': 'CNY',
	cny: 'CNY',
	rmb: 'CNY',
	元: 'CNY',
	'€': 'EUR',
	eur: 'EUR',
	'£': 'GBP',
	gbp: 'GBP',
};
const SHAPE =
	/^\s*(¤|US\$|[^\w\s.,+-]{1,2}|[A-Za-z]{3})?\s*([0-9]+(?:\.[0-9]+)?)\s*(¤|quota|[A-Za-z]{3}|元)?\s*$/i;

/** Reads a cap as written; undefined when it is not a positive amount with at most one currency mark. */
function readSpend(raw: unknown): SpendAmount | undefined {
	if (typeof raw === 'number')
		return Number.isFinite(raw) && raw > 0
			? { amount: String(raw), unit: 'display', written: String(raw) }
			: undefined;
	if (typeof raw !== 'string') return undefined;
	const m = SHAPE.exec(raw);
	if (!m || (m[1] && m[3]) || !(Number(m[2]) > 0)) return undefined;
	const mark = m[1] ?? m[3];
	const quota = mark === '¤' || mark?.toLowerCase() === 'quota';
	const currency = mark && !quota ? (CODES[mark.toLowerCase()] ?? mark.toUpperCase()) : undefined;
	return { amount: m[2], unit: quota ? 'quota' : 'display', currency, written: raw.trim() };
}

export const SPEND_RULE: Rule<SpendAmount | undefined> = {
	schema: z.unknown().transform((raw, ctx): SpendAmount | undefined => {
		if (raw === undefined || raw === null || (typeof raw === 'string' && raw.trim() === ''))
			return undefined;
		const read = readSpend(raw);
		if (read) return read;
		ctx.addIssue({ code: z.ZodIssueCode.custom, message: `${SPEND_SAYS} (got ${shown(raw)})` });
		return z.NEVER;
	}),
	good: [1.5, '1.50', '$2', '¤750000', '750000 ¤', '¥0.146', '0.146 CNY', ''],
	bad: [
		{ value: 0, says: SPEND_SAYS },
		{ value: -1, says: SPEND_SAYS },
		{ value: 'lots', says: SPEND_SAYS },
		{ value: '¤-5', says: SPEND_SAYS },
		{ value: '$1 USD', says: SPEND_SAYS },
		{ value: Number.POSITIVE_INFINITY, says: SPEND_SAYS },
	],
};

/** The site's display currency by name and symbol ("USD", "$"); TOKENS sites show ¤ quota units. */
export function displayCurrency(d: DisplaySettings): { code: string; symbol: string } {
	switch (d.type) {
		case 'CNY':
			return { code: 'CNY', symbol: '¥' };
		case 'TOKENS':
			return { code: '¤ quota units', symbol: '¤' };
		case 'CUSTOM':
			return { code: d.customSymbol, symbol: d.customSymbol };
		default:
			return { code: 'USD', symbol: '$' };
	}
}

/** Whether a written currency is the site's display currency (none written: it is). */
function sameCurrency(written: string | undefined, d: DisplaySettings): boolean {
	if (written === undefined) return true;
	const shows = displayCurrency(d);
	if (d.type === 'CUSTOM')
		return (
			written.toUpperCase() === shows.symbol.toUpperCase() ||
			(CODES[shows.symbol.toLowerCase()] ?? '') === written
		);
	return written === shows.code;
}

/** ¤ per unit of the display currency, exactly (quota_per_unit over the site's rate). */
function quotaPerDisplayUnit(d: DisplaySettings) {
	switch (d.type) {
		case 'TOKENS':
			return quotient([1]);
		case 'CNY':
			return quotient([d.quotaPerUnit], [d.usdExchangeRate]);
		case 'CUSTOM':
			return quotient([d.quotaPerUnit], [d.customRate]);
		default:
			return quotient([d.quotaPerUnit]);
	}
}

/**
 * A cap in whole ¤: ¤ as written; a display amount at the site's rate, rounded down only below a whole ¤ (an amount
 * equal to a price is that price). `refusal` when it is written in another currency than the site shows.
 */
export function spendInQuota(
	s: SpendAmount,
	display: DisplaySettings | undefined,
): { cap?: number; unreadable?: boolean; refusal?: string } {
	const amount = fractionOfText(s.amount) ?? toFraction(Number(s.amount));
	if (s.unit === 'quota') return { cap: floorOf(amount) };
	if (!display) return { unreadable: true };
	if (!sameCurrency(s.currency, display)) {
		const shows = displayCurrency(display);
		return {
			refusal:
				`Max Expected Spend ${JSON.stringify(s.written)} is in ${s.currency}, but this site shows its prices in ${shows.code}: ` +
				`no rate between ${s.currency} and ${shows.code} is published, so the cap cannot be checked. ` +
				`Write it in ${shows.code} (e.g. ${shows.symbol}${s.amount}) or in ¤ quota units (e.g. ¤500000).`,
		};
	}
	return { cap: floorOf(quotient([amount, quotaPerDisplayUnit(display)])) };
}
