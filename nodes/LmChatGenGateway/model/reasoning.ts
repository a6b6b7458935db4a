/**
 * A thinking model's reasoning, kept for the rest of the execution by the tool calls it led to. Gateways that serve
 * thinking models DeepSeek-style refuse (400 "Missing reasoning_content field …") a request in which an assistant
 * message that made tool calls comes back without its reasoning. n8n 2.41.1's AI Agent rebuilds those assistant
 * messages from its own records (one per tool call, from `additional_kwargs`), and the AI node SDK's conversion drops
 * that field: the reasoning never reaches the model's `generate()` again. So the Chat Model keeps it here, keyed by
 * the tool call's ID, in the execution's own store (keyed by its cancel signal, like the ledger; gone with the
 * execution), and puts it back on the wire. Nothing is kept between executions. Everything kept is kept under the
 * credential's identity (its gateway origin and key, as a digest): when two Chat Models on two credentials (or two
 * gateways that send no tool call IDs: such calls are named after their question and account, never alike, but an
 * agent may rename them) share an execution, one account's reasoning never goes to the other's gateway.
 */
import type { KeptReasoning, ReasoningField, ReasoningSource } from './wire';

interface Store {
	byCall: Map<string, KeptReasoning>;
	/** the field each model's answers used */
	fields: Map<string, ReasoningField>;
}

const stores = new WeakMap<object, Store>();

/** The execution's store (by its cancel signal), or a store of its own for a caller without one. */
export class ReasoningStore implements ReasoningSource {
	private readonly store: Store;

	constructor(
		key: object | undefined,
		private readonly model: string,
		/** the credential's identity (GatewayClient.credentialIdentity) */
		private readonly account = '',
	) {
		let s = key ? stores.get(key) : undefined;
		if (!s) {
			s = { byCall: new Map(), fields: new Map() };
			if (key) stores.set(key, s);
		}
		this.store = s;
	}

	/** A turn's reasoning and the field it came in, kept for each tool call the turn made. */
	keep(toolCallIds: string[], text: string, field: ReasoningField): void {
		this.sawField(field);
		for (const id of toolCallIds) if (id) this.store.byCall.set(this.at(id), { text, field });
	}

	/** The gateway used this field for this model in the execution (the model thinks). */
	sawField(field: ReasoningField): void {
		if (!this.store.fields.has(this.at(this.model)))
			this.store.fields.set(this.at(this.model), field);
	}

	byCall(toolCallId: string): KeptReasoning | undefined {
		return this.store.byCall.get(this.at(toolCallId));
	}

	field(): ReasoningField | undefined {
		return this.store.fields.get(this.at(this.model));
	}

	/** a tool call ID or model, under this credential */
	private at(name: string): string {
		return `${this.account}\u0000${name}`;
	}
}
