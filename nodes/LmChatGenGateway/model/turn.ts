/**
 * A Chat Model turn: what one paid text call answered, as the model hands it on (text, tool calls, finish, usage,
 * reasoning), read from the one text call's answer (../../shared/text/exchange.ts).
 */
import type { TextAnswer } from '../../shared/text/exchange';
import type { TokenUsage } from './sdk';
import {
	chatCallsFrom,
	responsesCallsFrom,
	responsesReasoningFrom,
	usageFrom,
	type RawToolCall,
	type ReasoningField,
} from './wire';

export interface Turn {
	text: string;
	calls: RawToolCall[];
	finish: string | null;
	usage?: TokenUsage;
	id?: string;
	/** the gateway's usage as sent (for the turn's cost) */
	rawUsage?: unknown;
	/** the turn's cost, as the action nodes' items give it */
	cost?: Record<string, unknown>;
	/** the thinking model's reasoning, and the field it came in (chat) */
	reasoning?: string;
	reasoningField?: ReasoningField;
	/**
	 * what the turn's tool calls are named after when the gateway names neither them nor the completion: the call's
	 * question and which asking of it (so a re-run names them as the first try did, and two accounts never alike)
	 */
	callsNamed?: string;
	/** the first answer of a JSON Schema turn that did not validate (the turn is then the repair request's) */
	repairOf?: { errors: string[]; cost?: Record<string, unknown>; usage?: TokenUsage };
}

export /** A text answer as a model turn: its text, tool calls, finish, usage and reasoning. */
function turnOf(a: TextAnswer): Turn {
	if (a.responses) {
		const r = a.responses;
		return {
			text: r.text,
			calls: responsesCallsFrom(a.full),
			finish: r.incompleteReason ?? r.status ?? null,
			usage: usageFrom(r.usage),
			id: r.id,
			rawUsage: r.usage,
			reasoning: responsesReasoningFrom(a.full),
		};
	}
	const r = a.chat!;
	const calls: RawToolCall[] = a.streamed
		? r.toolCalls.map((c, i) => ({
				id: c.id,
				name: c.function.name,
				arguments: a.objectArgs?.[i] ?? c.function.arguments,
			}))
		: chatCallsFrom(r.toolCalls, a.full);
	return {
		text: r.content,
		calls,
		finish: r.finishReason,
		usage: usageFrom(r.usage),
		id: r.id,
		rawUsage: r.usage,
		...reasoningOf(r),
	};
}

/** A chat answer's reasoning and its field, when the model sent one. */
function reasoningOf(r: {
	reasoning: string;
	reasoningField?: ReasoningField;
}): Pick<Turn, 'reasoning' | 'reasoningField'> {
	return r.reasoningField ? { reasoning: r.reasoning, reasoningField: r.reasoningField } : {};
}
