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
	/** the amount as the site's currency shows it (see `shownAmount`); the exact figure is the ¤ beside it */
	amount: number;
	/** USD, CNY, quota (raw site quota units, ¤) or custom (the site's own unit) */
	currency: 'USD' | 'CNY' | 'quota' | 'custom';
	symbol: string;
	/** decimals the amount is written with ("$0.50": 2; "$0.00042": 5) */
	places: number;
}

/** ISO 4217 codes of custom symbols that name one currency alone ("¥" does not: CNY or JPY). */
const CUSTOM_CODES: Record<string, string> = {
	$: 'USD',
	'€': 'EUR',
	'£': 'GBP',
	円: 'JPY',
	'₩': 'KRW',
	'₫': 'VND',
	'₹': 'INR',
};

/**
 * Decimals the display currency shows. USD and CNY: 2 (cents, fen). TOKENS: whole ¤. A custom currency: /api/status
 * gives only its symbol and rate, so 2, unless the symbol names an ISO 4217 currency ("JPY", "円") whose minor unit
 * is another (JPY and KRW: 0; read from the runtime's Intl data).
 */
export function displayPlaces(s: Pick<DisplaySettings, 'type' | 'customSymbol'>): number {
	if (s.type === 'TOKENS') return 0;
	if (s.type !== 'CUSTOM') return 2;
	const sym = s.customSymbol.trim();
	const code = /^[A-Za-z]{3}$/.test(sym) ? sym.toUpperCase() : CUSTOM_CODES[sym];
	if (!code) return 2;
	try {
		return (
			new Intl.NumberFormat('en', { style: 'currency', currency: code }).resolvedOptions()
				.maximumFractionDigits ?? 2
		);
	} catch {
		return 2;
	}
}

/**
 * An exact amount as the currency shows it, rounded once half away from zero: to the currency's decimals, or, below
 * one of its smallest units (a sub-cent amount), to 2 significant digits, so that an amount that is not 0 never
 * shows as 0 ($0.00042, never $0.00). Display only: ¤ figures and caps are compared exactly, never through this.
 */
export function shownAmount(f: Fraction, places: number): { amount: number; places: number } {
	if (f.num === 0n) return { amount: 0, places };
	const abs = f.num < 0n ? -f.num : f.num;
	let p = places;
	// below 10^-places: the decimals where its first significant digit stands, plus one
	if (abs * 10n ** BigInt(places) < f.den) {
		p = places + 1;
		while (abs * 10n ** BigInt(p) < f.den) p++;
		p++;
		// written without the zeros after its two digits ($0.006, not $0.0060)
		const amount = roundTo(f, p);
		while (p > places + 1 && Number(amount.toFixed(p - 1)) === amount) p--;
		return { amount, places: p };
	}
	return { amount: roundTo(f, p), places: p };
}

/**
 * An amount in base units (USD at a default site) in the site's display currency, as the currency shows it
 * (`shownAmount`); TOKENS as raw quota units with the site's ¤ (not a national currency).
 */
export function toDisplay(usd: number, s: DisplaySettings): DisplayAmount {
	return displayOf(quotient([usd]), s);
}

/** An exact amount in base units in the display currency, rounded once as the site shows it. */
function displayOf(usd: Fraction, s: DisplaySettings): DisplayAmount {
	const places = displayPlaces(s);
	switch (s.type) {
		case 'CNY':
			return {
				...shownAmount(quotient([usd, s.usdExchangeRate]), places),
				currency: 'CNY',
				symbol: '¥',
			};
		case 'TOKENS':
			return {
				...shownAmount(quotient([usd, s.quotaPerUnit]), places),
				currency: 'quota',
				symbol: '¤',
			};
		case 'CUSTOM':
			return {
				...shownAmount(quotient([usd, s.customRate]), places),
				currency: 'custom',
				symbol: s.customSymbol,
			};
		default:
			return { ...shownAmount(usd, places), currency: 'USD', symbol: '$' };
	}
}

/** A quota amount (¤) in the display currency, from exact decimals (¤10000 on a CNY site at 7.3 is ¥0.146, shown ¥0.15). */
export function quotaToDisplay(quota: number, s: DisplaySettings): DisplayAmount {
	return s.type === 'TOKENS'
		? { ...shownAmount(quotient([quota]), 0), currency: 'quota', symbol: '¤' }
		: displayOf(quotient([quota], [s.quotaPerUnit]), s);
}

/** "$0.03", "$0.00042", "¥0.23", "¤16000", "◎0.32": the amount with the decimals its currency shows. */
export function formatDisplay(d: DisplayAmount): string {
	return `${d.symbol}${d.amount.toFixed(d.places)}`;
}
