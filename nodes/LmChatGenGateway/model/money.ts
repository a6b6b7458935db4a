/**
 * The money of a Chat Model turn, through the package's one money record and cap (../../shared/money/): Max Expected
 * Spend checked before the turn against what the execution spent (every GenGateway node and turn) plus what the turn
 * can cost (exact per call; per token within its bound), the turn's bound held in the record while it is in flight,
 * and its cost recorded as it happens (an unknown outcome counts its bound).
 */
import { capRefusal, costEntry, costJsonOf, money, type Prices } from '../../shared/money/cap';
import { quote, withKeyGroup } from '../../shared/money/cost';
import { capBound } from '../../shared/money/figure';
import { tokenCountOf, type TokenBound } from '../../shared/money/tokens';
import { resolveCap, type MoneyOptions } from '../../shared/money/options';
import { callSpendKey } from '../../shared/money/record';
import { placeKey, takeGate, type LedgerEntry, type Place } from '../../shared/runners/ledger';
import { GatewayModelError } from './errors';
import type { TurnSupply } from './supply';
import type { Turn } from './turn';

type Json = Record<string, unknown>;

/** An image part given by address counts as this many prompt tokens in a turn's bound (its bytes say nothing of its pixels). */
export const IMAGE_TOKEN_BOUND = 16_384;

/** A turn priced before it is sent: its quote, the prices, its reservation in the record, the gate it holds. */
export interface PricedTurn {
	q?: ReturnType<typeof quote>;
	prices: Prices;
	/** the record's key holding the turn's bound while it is in flight */
	reserved?: string;
	/** lets the next capped turn without a bound go */
	release?: () => void;
}

/** Prompt tokens a request can use at most: its bytes (a token is at least one byte), and each image address at IMAGE_TOKEN_BOUND. */
function promptBound(body: Json): { tokens: number; images: number } {
	const text = JSON.stringify(body);
	const images = (text.match(/"(?:image_url|input_image)"/g) ?? []).length;
	return { tokens: Buffer.byteLength(text, 'utf8') + images * IMAGE_TOKEN_BOUND, images };
}

/** The turn's token bound when Maximum Number of Tokens is set: its prompt's bytes and images, and that many completion tokens. */
function turnTokenBound(body: Json, maxTokens: number | undefined): TokenBound | undefined {
	if (maxTokens === undefined || maxTokens <= 0) return undefined;
	const p = promptBound(body);
	return {
		prompt: p.tokens,
		completion: maxTokens,
		how:
			`${p.tokens} prompt tokens (the request's ` +
			`${p.tokens - p.images * IMAGE_TOKEN_BOUND} ` +
			`bytes${p.images ? ` and ${p.images} image(s) at ${IMAGE_TOKEN_BOUND} tokens` : ''}) ` +
			`and ${maxTokens} completion tokens (Maximum Number of Tokens)`,
	};
}

/** The strictest cap of the root's items, read; a cap that cannot be read or checked refuses the turn (nothing sent). */
function checkedCap(
	s: TurnSupply,
	prices: Prices,
	q: ReturnType<typeof quote> | undefined,
): number | undefined {
	const resolved = strictestCap(s.money, prices.display);
	if (resolved.refusal)
		throw new GatewayModelError(
			resolved.refusal,
			'Nothing was sent.',
			undefined,
			"Fix Max Expected Spend in the Chat Model's options; nothing was sent.",
		);
	if (resolved.unreadable || !q)
		throw new GatewayModelError(
			`GenGateway: Max Expected Spend refused this model turn before sending it: ` +
				`${resolved.unreadable ? "the site's display settings" : 'the price list'} could ` +
				`not be read${prices.error ? ` (${prices.error})` : ''}`,
			'Nothing was sent. Try again, or write the cap in ¤ quota units.',
			undefined,
			'Nothing was sent: try again, or write Max Expected Spend in ¤ quota units.',
		);
	return resolved.cap;
}

/**
 * The turn's bound counted as spent while it is in flight (its cost replaces it): turns of several items at once
 * each see the others. Returns the record's key that holds it.
 */
function reserveTurn(
	s: TurnSupply,
	q: ReturnType<typeof quote>,
	place: Place,
	model: string,
	prices: Prices,
): string | undefined {
	const bound = capBound(q);
	if (bound === undefined) return undefined;
	const reserved = callSpendKey(placeKey(place));
	s.spend.record(
		[[reserved, { quota: bound, exact: false, unpriced: false, label: `${model} turn in flight` }]],
		prices.display,
	);
	return reserved;
}

/** Why the cap refused the turn, and what to do: the turn's price, or (a turn without a bound) the spend that reached it. */
function turnRefusal(
	s: TurnSupply,
	prices: Prices,
	cap: number | undefined,
	refused: ReturnType<typeof capRefusal>,
	unbounded: boolean,
	tokenBound: TokenBound | undefined,
): GatewayModelError {
	if (unbounded) {
		// the price is not what refused it (a turn without a bound has none): the spend reached the cap
		const so = s.spend.spent();
		const spent = `${money(so.quota, prices.display)}${so.bounded ? ' at most' : ''}`;
		const why = so.full
			? 'what this execution has spent cannot be known (its custom data is full)'
			: `this execution's GenGateway calls have spent ${spent}, which reached the cap`;
		return new GatewayModelError(
			`GenGateway: Max Expected Spend ${money(cap!, prices.display)} refused this ` +
				`model turn before any paid request: ${why}`,
			`Nothing was sent to the gateway. Without Maximum Number of Tokens a turn has ` +
				`no bound: it goes only while the spend is under the cap, so the cap can be ` +
				`passed by at most one turn. Raise Max Expected Spend, or set Maximum Number of ` +
				`Tokens to have each turn priced before it is sent.`,
			undefined,
			UNBOUNDED_TODO,
		);
	}
	return new GatewayModelError(
		`GenGateway: ${refused!.message}`,
		refused!.description,
		undefined,
		tokenBound
			? "Nothing was sent: raise Max Expected Spend in the Chat Model's options, or lower Maximum Number of Tokens (the turn's bound counts all of them)."
			: "Nothing was sent: raise Max Expected Spend in the Chat Model's options, or pick a cheaper model.",
	);
}

/** Max Expected Spend before the turn: what the execution spent plus what the turn can cost (exact per call; per token within its bound). */
export async function priceTurn(
	s: TurnSupply,
	model: string,
	maxTokens: number | undefined,
	body: Json,
	place: Place,
): Promise<PricedTurn> {
	const needCap = s.money.some((m) => m.cap !== undefined || m.spend !== undefined);
	const prices = await s.pricesOnce();
	const tokenBound = turnTokenBound(body, maxTokens);
	const q = prices.pricing
		? quote(
				{ model: model, calls: 1, tokenBound },
				prices.pricing,
				prices.display,
				withKeyGroup(s.money[0]?.group ?? {}, prices.keyGroup),
				prices.error,
			)
		: undefined;
	if (!needCap) return { q, prices };
	const cap = checkedCap(s, prices, q);
	// a turn with no bound (per token, no Maximum Number of Tokens) waits for the execution's other such capped turns:
	// the cap is checked once they are counted, so several items' turns at once can pass it by one turn, never more
	const unbounded = q!.basis === 'per_token' && !tokenBound;
	const release = unbounded ? await takeGate(s.spend.executionBook) : undefined;
	const refused = capRefusal(
		s.spend,
		{ cap, allowUnpriced: false, hasAllowOption: false },
		[q!],
		prices.display,
		'this model turn',
	);
	// without a bound a per-token turn is refused only once the spend reached the cap
	const passes =
		!refused ||
		(unbounded && cap !== undefined && s.spend.spent().quota < cap && !s.spend.spent().full);
	if (passes) return { q, prices, reserved: reserveTurn(s, q!, place, model, prices), release };
	release?.();
	throw turnRefusal(s, prices, cap, refused, unbounded, tokenBound);
}

/**
 * What to do about a refusal of a turn without a bound (a per-token model, Maximum Number of Tokens not set): the
 * option that makes the cap refuse before sending, named as the Chat Model's options list shows it.
 */
export const UNBOUNDED_TODO =
	'Nothing was sent: raise Max Expected Spend, or add Maximum Number of Tokens in ' +
	"the Chat Model's options — with it each turn is priced before it is sent, so " +
	'the cap refuses a turn before sending it instead of after the spend passed it.';

/** The turn's cost and its entry in the execution's money record (an unknown outcome counts its bound). */
export function accountTurn(
	s: TurnSupply,
	model: string,
	place: Place,
	priced: PricedTurn,
	entry: LedgerEntry<Turn>,
): Turn | undefined {
	if (!priced.q) return 'sent' in entry ? entry.sent : undefined;
	const usage = 'sent' in entry ? tokenCountOf(entry.sent.rawUsage) : undefined;
	const { figure, entry: spendEntry } = costEntry(priced.q, usage, `${model} turn`);
	s.spend.record([[callSpendKey(placeKey(place)), spendEntry]], priced.prices.display);
	if (!('sent' in entry)) return undefined;
	entry.sent.cost = costJsonOf(figure, priced.prices.display);
	return entry.sent;
}

/** The strictest cap of the items' money options, in whole ¤ (unreadable when one cannot be read). */
function strictestCap(
	items: MoneyOptions[],
	display: Parameters<typeof resolveCap>[1],
): { cap?: number; unreadable?: boolean; refusal?: string } {
	const all = items.map((m) => resolveCap(m, display));
	const refusal = all.find((r) => r.refusal)?.refusal;
	if (refusal) return { unreadable: true, refusal };
	if (all.some((r) => r.unreadable)) return { unreadable: true };
	const caps = all.map((r) => r.cap).filter((c): c is number => c !== undefined);
	return caps.length ? { cap: Math.min(...caps) } : {};
}
