/**
 * Where a Chat Model call stands and what it got before: the supply of one root run (or one item of a chain), its
 * claims of the execution's ledger by place and question, its money record and options.
 */
import { createHash } from 'node:crypto';
import type { Exit } from '../../shared/exit';
import { pricesOf, type Prices } from '../../shared/money/cap';
import type { MoneyOptions } from '../../shared/money/options';
import { ExecutionSpend } from '../../shared/money/record';
import { bookOf, placeKey, type LedgerEntry, type Place } from '../../shared/runners/ledger';
import type { GatewayTransport } from '../../shared/transport';
import type { Message } from './sdk';
import type { Turn } from './turn';

/**
 * What the Chat Model's turns share within one supply (one root run, or one item of a chain): where they stand, the
 * execution's book and money record, the money options, and the try of the root node they belong to.
 *
 * A call is known by its place and its question. The question is the conversation the root hands the model, less its
 * system messages (roles, texts, images, tool calls and results), to one model on one account (the credential): a
 * system prompt with `{{ $now }}` in it replays on a
 * re-run, a different user text or tool result is a new call. Within one try of the root node (n8n's Retry On Fail
 * runs the root again: a new try), the n-th call of a question takes the n-th answer that question got at that place;
 * a question asked more often than before is a new call. So two items that ask the same thing (n8n's chains ask for
 * their model with item 0 for every item) each get their own call, and a re-run gets back what each call had.
 */
export class TurnSupply {
	readonly spend: ExecutionSpend;
	private prices?: Promise<Prices>;
	/** counts of a question's calls in this try when the execution keeps no book */
	private readonly ownClaims = new Map<string, number>();

	constructor(
		readonly transport: GatewayTransport,
		readonly exit: Exit,
		readonly where: Omit<Place, 'item'>,
		/** the money options of each item the root may run (the strictest cap holds) */
		readonly money: MoneyOptions[],
		ctx: unknown,
		/** the root node's try (n8n's runNode: one per Retry On Fail attempt); the supply itself when n8n shows none */
		readonly attempt: object = {},
	) {
		this.spend = new ExecutionSpend(ctx as never);
	}

	/** optional fields a gateway refused with a 400 in this execution: later turns leave them out */
	get refused(): Set<string> {
		const book = this.book;
		return book ? (book.refusedFields ??= new Set()) : (this.ownRefused ??= new Set());
	}
	private ownRefused?: Set<string>;

	pricesOnce(): Promise<Prices> {
		return (this.prices ??= pricesOf(this.transport));
	}

	private get book() {
		return bookOf(this.transport.signal);
	}

	/** The place of this call of a question in this try, and what that place got in an earlier try. */
	claim(messages: Message[], model: string): { place: Place; earlier?: LedgerEntry<Turn> } {
		// the same conversation to another model or on another account is another question
		const question = questionOf(messages, `${this.transport.credentialIdentity}\n${model}`);
		const key = placeKey({ ...this.where, item: 0, question });
		const book = this.book;
		let counts = this.ownClaims;
		if (book) {
			let byTry = book.claims.get(this.attempt);
			if (!byTry) book.claims.set(this.attempt, (byTry = new Map()));
			counts = byTry;
		}
		const n = counts.get(key) ?? 0;
		counts.set(key, n + 1);
		const place: Place = { ...this.where, item: n, question };
		return { place, earlier: book?.calls.get(placeKey(place)) as LedgerEntry<Turn> | undefined };
	}

	remember(place: Place, entry: LedgerEntry<Turn>): void {
		this.book?.calls.set(placeKey(place), entry);
	}
}

/**
 * A call's question: its conversation without the system messages (which expressions such as `{{ $now }}` may change
 * on every try), as a digest. Reasoning a thinking model sent is left out (the agent may keep it or not).
 */
function questionOf(messages: Message[], to: string): string {
	const asked = messages
		.filter((m) => m.role !== 'system')
		.map((m) => [m.role, m.content.filter((c) => c.type !== 'reasoning')]);
	return createHash('sha256')
		.update(JSON.stringify([to, asked]))
		.digest('hex')
		.slice(0, 24);
}
