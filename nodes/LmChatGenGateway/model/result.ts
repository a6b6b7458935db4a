/**
 * A turn as the agent gets it (the SDK's GenerateResult, redacted), and what it showed for the sub-node's run data.
 */
import type { GatewayTransport } from '../../shared/transport';
import { redactorFor } from '../../shared/transport/redact';
import type { ReasoningStore } from './reasoning';
import type { GenerateResult, MessageContent, TokenUsage } from './sdk';
import type { Turn } from './turn';
import { finishReasonOf, toolCallContent } from './wire';

/** What a turn is handed on with: the model's options, its reasoning store, its summaries, the turn's ordinal. */
export interface ResultContext {
	leaveOutReasoning?: boolean;
	reasoning: ReasoningStore;
	transport: GatewayTransport;
	summaries: TurnSummary[];
	ordinal: number;
}

/** What one model turn showed, for the sub-node's run data (n8n's tracing keeps only the text of a generation). */
export interface TurnSummary {
	text: string;
	tool_calls?: Array<{ id?: string; name: string; args: string }>;
	reasoning?: string;
	cost?: Record<string, unknown>;
	usage?: TokenUsage;
	/** a JSON Schema answer that needed the repair request: what was wrong with the first, and what that call cost */
	repaired?: { errors: string[]; cost?: Record<string, unknown> };
}

/** The turn's tool calls as the run data shows them: id, name, arguments. */
function summaryCalls(calls: MessageContent[]): TurnSummary['tool_calls'] {
	return calls.map((c) => ({
		id: (c as { toolCallId?: string }).toolCallId,
		name:
			(c as { toolName?: string; name?: string }).toolName ?? (c as { name?: string }).name ?? '',
		args: (c as { input?: string; args?: string }).input ?? (c as { args?: string }).args ?? '',
	}));
}

/** What one turn showed, for the sub-node's run data: text, calls, reasoning, cost, usage, and a repair's first call. */
function summaryOf(
	turn: Turn,
	calls: MessageContent[],
	show: boolean,
	usage: TokenUsage | undefined,
): TurnSummary {
	return {
		text: turn.text,
		...(calls.length ? { tool_calls: summaryCalls(calls) } : {}),
		...(show ? { reasoning: turn.reasoning } : {}),
		...(turn.cost ? { cost: turn.cost } : {}),
		...(usage ? { usage } : {}),
		...(turn.repairOf
			? {
					repaired: {
						errors: turn.repairOf.errors,
						...(turn.repairOf.cost ? { cost: turn.repairOf.cost } : {}),
					},
				}
			: {}),
	};
}

export function resultOf(c: ResultContext, turn: Turn): GenerateResult {
	const content: MessageContent[] = [];
	const show = turn.reasoning !== undefined && !c.leaveOutReasoning;
	if (show) content.push({ type: 'reasoning', text: turn.reasoning! });
	if (turn.text) content.push({ type: 'text', text: turn.text });
	const calls = toolCallContent(turn.calls, turn.id ?? turn.callsNamed ?? String(c.ordinal));
	content.push(...calls);
	if (turn.reasoningField) {
		// kept for the execution by the tool calls it led to: the gateway wants it back with them
		const ids = calls.map((c) => (c as { toolCallId?: string }).toolCallId ?? '');
		if (ids.length) c.reasoning.keep(ids, turn.reasoning ?? '', turn.reasoningField);
		else c.reasoning.sawField(turn.reasoningField);
	}
	const usage =
		turn.repairOf?.usage && turn.usage ? addUsage(turn.usage, turn.repairOf.usage) : turn.usage;
	const redactor = redactorFor(c.transport.redactionSecrets);
	const summary = summaryOf(turn, calls, show, usage);
	c.summaries.push(redactor.value(summary));
	if (c.summaries.length > 64) c.summaries.shift();
	// everything the model hands the agent leaves redacted (a key split across stream deltas is whole here)
	return redactor.value({
		id: turn.id,
		finishReason: finishReasonOf(turn.finish, calls.length > 0),
		usage,
		message: { role: 'assistant', id: turn.id, content },
		...(turn.cost
			? {
					providerMetadata: {
						gengateway_cost: turn.cost,
						...(turn.repairOf ? { gengateway_repair: summary.repaired } : {}),
					},
				}
			: {}),
	} as GenerateResult);
}

/** Two calls' usage together (a JSON Schema answer and its repair request). */
function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
	const out: TokenUsage = {
		promptTokens: a.promptTokens + b.promptTokens,
		completionTokens: a.completionTokens + b.completionTokens,
		totalTokens: a.totalTokens + b.totalTokens,
	};
	const cached = (a.inputTokenDetails?.cacheRead ?? 0) + (b.inputTokenDetails?.cacheRead ?? 0);
	const reasoning = (a.outputTokenDetails?.reasoning ?? 0) + (b.outputTokenDetails?.reasoning ?? 0);
	if (cached) out.inputTokenDetails = { cacheRead: cached };
	if (reasoning) out.outputTokenDetails = { reasoning };
	return out;
}
