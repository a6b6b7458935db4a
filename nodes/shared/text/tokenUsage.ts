/**
 * Hands an answer's token counts (the gateway's own `usage`) to n8n, which sums them per node in the execution's
 * metadata (n8n 2.x `accumulateTokenUsage`). Feature-detected: a host without it (n8n 1.x) gets only the
 * `usage` field the nodes already output. Never estimated: an answer without usage reports nothing.
 */
import { accumulateTokenUsage, type IExecuteFunctions } from 'n8n-workflow';

type Accumulate = (ctx: IExecuteFunctions, inputTokens: number, outputTokens: number) => void;

const count = (v: unknown): number | undefined =>
	typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined;

/** true when the tokens were reported to n8n */
export function reportTokenUsage(
	ctx: IExecuteFunctions,
	usage: unknown,
	accumulate: unknown = accumulateTokenUsage,
): boolean {
	if (
		typeof accumulate !== 'function' ||
		typeof ctx.setMetadata !== 'function' ||
		typeof ctx.getExecuteData !== 'function'
	)
		return false;
	if (!usage || typeof usage !== 'object') return false;
	const u = usage as Record<string, unknown>;
	const input = count(u.prompt_tokens) ?? count(u.input_tokens);
	const output = count(u.completion_tokens) ?? count(u.output_tokens);
	if (input === undefined && output === undefined) return false;
	try {
		(accumulate as Accumulate)(ctx, input ?? 0, output ?? 0);
	} catch {
		// metadata is a courtesy: the answer and its `usage` field are the node's output either way
		return false;
	}
	return true;
}
