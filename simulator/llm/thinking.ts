/**
 * The thinking model: deterministic reasoning beside each answer (DeepSeek-style `reasoning_content`, or `reasoning`
 * on gateways that name it so), and the rule DeepSeek's thinking mode enforces: every assistant message that made
 * tool calls carries its reasoning back on later requests.
 */
import type { Plan } from './rules';

/** The reasoning the model shows before its answer. */
export function reasoningFor(
	plan: Plan,
	question: string,
	toolResults: string[] | undefined,
): string {
	const q = question.trim().slice(0, 120) || 'hello';
	if (toolResults)
		return `The tool results are in (${toolResults.length}). I will state them plainly as the answer.`;
	if (plan.kind === 'tools') {
		const calls = plan.calls.map((c) => Object.values(c.args).join(' ')).join('; ');
		return `The user asks: "${q}". It holds arithmetic (${calls}) and a calculator tool is offered, so I will call ${plan.calls[0].name} for each expression.`;
	}
	return `The user asks: "${q}". No tool is needed; I will answer directly.`;
}

/**
 * The index of the first assistant message with tool calls that does not carry its reasoning back in `field`
 * (a string, possibly empty), or undefined when every one does.
 */
export function missingReasoning(
	messages: Array<Record<string, unknown> | null | undefined>,
	field: 'reasoning_content' | 'reasoning',
): number | undefined {
	const i = messages.findIndex(
		(m) =>
			m?.role === 'assistant' &&
			Array.isArray(m.tool_calls) &&
			m.tool_calls.length > 0 &&
			typeof m[field] !== 'string',
	);
	return i < 0 ? undefined : i;
}

/**
 * The index of the first assistant message whose tool calls this model made with another reasoning than the one it
 * carries back in `field` (DeepSeek's thinking mode continues from the reasoning it gave; another text, an empty one
 * included, is another conversation), or undefined.
 */
export function alteredReasoning(
	messages: Array<Record<string, unknown> | null | undefined>,
	field: 'reasoning_content' | 'reasoning',
	given: ReadonlyMap<string, string>,
): number | undefined {
	const i = messages.findIndex((m) => {
		if (m?.role !== 'assistant' || !Array.isArray(m.tool_calls)) return false;
		const ids = (m.tool_calls as Array<{ id?: unknown }>).map((c) => c?.id);
		const gave = ids.map((id) => (typeof id === 'string' ? given.get(id) : undefined));
		const known = gave.find((g) => g !== undefined);
		return known !== undefined && m[field] !== known;
	});
	return i < 0 ? undefined : i;
}
