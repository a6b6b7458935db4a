/** Amounts in the site's display currency, computed from exact decimals and rounded once as the site shows them. */
import { quotient, roundTo, type Fraction } from './decimal';

export type DisplayType = 'USD' | 'CNY' | 'TOKENS' | 'CUSTOM';

export interface DisplaySettings {
	type: DisplayType;
	quotaPerUnit: number;
	usdExchangeRate: number;
	customSymbol: string;
	customRate: number;
	/** why the site's setting could not be followed as given (e.g. CNY without a usable exchange rate) */
	notes?: string[];
}

export interface DisplayAmount {
	amount: number;
	/** USD, CNY, quota (raw site quota units, ¤) or custom (the site's own unit) */
	currency: 'USD' | 'CNY' | 'quota' | 'custom';
	symbol: string;
}

/**
 * An amount in base units (USD at a default site) in the site's display currency. USD and CNY and
 * CUSTOM to 6 decimals; TOKENS as whole raw quota units with the site's ¤ (not a national currency).
 */
export function toDisplay(usd: number, s: DisplaySettings): DisplayAmount {
	return displayOf(quotient([usd]), s);
}

/** An exact amount in base units in the display currency, rounded once (half away from zero) as the site shows it. */
function displayOf(usd: Fraction, s: DisplaySettings): DisplayAmount {
	switch (s.type) {
		case 'CNY':
			return {
				amount: roundTo(quotient([usd, s.usdExchangeRate]), 6),
				currency: 'CNY',
				symbol: '¥',
			};
		case 'TOKENS':
			return {
				amount: roundTo(quotient([usd, s.quotaPerUnit]), 0),
				currency: 'quota',
				symbol: '¤',
			};
		case 'CUSTOM':
			return {
				amount: roundTo(quotient([usd, s.customRate]), 6),
				currency: 'custom',
				symbol: s.customSymbol,
			};
		default:
			return { amount: roundTo(usd, 6), currency: 'USD', symbol: '$' };
	}
}

/** A quota amount (¤) in the display currency, in exact decimals (¤10000 on a CNY site at 7.3 is ¥0.146). */
export function quotaToDisplay(quota: number, s: DisplaySettings): DisplayAmount {
	return s.type === 'TOKENS'
		? { amount: quota, currency: 'quota', symbol: '¤' }
		: displayOf(quotient([quota], [s.quotaPerUnit]), s);
}

/** "$0.032", "¥0.2336", "¤16000", "◎0.32" */
export function formatDisplay(d: DisplayAmount): string {
	return `${d.symbol}${d.amount}`;
}
