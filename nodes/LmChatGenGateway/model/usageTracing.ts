/**
 * n8n's SDK adapter (0.31.1) logs a model call's token usage through its tracing callback, whose parser reads the
 * usage in the shape a plain call leaves it (`llmOutput.tokenUsage.input_tokens/output_tokens`). When LangChain
 * streams the call (the agent streams to a chat), it leaves the same gateway counts as
 * `llmOutput.tokenUsage.promptTokens/completionTokens`, which that parser does not read: n8n then records a
 * tokenizer estimate instead. This wraps the parser to read both shapes (the gateway's counts, never an estimate),
 * on the supplied model and on every model `bindTools` makes from it. Feature-detected: when the SDK's shape is
 * different, nothing is changed.
 */
interface TokenCounts {
	promptTokens: number;
	completionTokens: number;
	totalTokens: number;
}
type Parser = (result: unknown) => TokenCounts;

const WRAPPED = Symbol.for('n8n-nodes-gen-gateway.usageParser');

function countsOf(result: unknown): TokenCounts | undefined {
	const u = (result as { llmOutput?: { tokenUsage?: Record<string, unknown> } } | undefined)
		?.llmOutput?.tokenUsage;
	if (!u) return undefined;
	const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined);
	const prompt = n(u.promptTokens) ?? n(u.input_tokens);
	const completion = n(u.completionTokens) ?? n(u.output_tokens);
	if (prompt === undefined && completion === undefined) return undefined;
	return {
		promptTokens: prompt ?? 0,
		completionTokens: completion ?? 0,
		totalTokens: n(u.totalTokens) ?? n(u.total_tokens) ?? (prompt ?? 0) + (completion ?? 0),
	};
}

export function readGatewayUsage<T>(model: T): T {
	const m = model as { callbacks?: unknown; bindTools?: (...args: unknown[]) => unknown };
	if (!m || typeof m !== 'object') return model;
	for (const cb of Array.isArray(m.callbacks) ? m.callbacks : []) {
		const options = (
			cb as { options?: { tokensUsageParser?: Parser & { [WRAPPED]?: true } } } | undefined
		)?.options;
		const parser = options?.tokensUsageParser;
		if (typeof parser !== 'function' || parser[WRAPPED]) continue;
		const wrapped = ((result: unknown) => {
			const usage = parser(result);
			if (usage && usage.completionTokens > 0) return usage;
			return countsOf(result) ?? usage;
		}) as Parser & { [WRAPPED]?: true };
		wrapped[WRAPPED] = true;
		options!.tokensUsageParser = wrapped;
	}
	const bind = m.bindTools;
	if (typeof bind === 'function')
		m.bindTools = (...args: unknown[]) => readGatewayUsage(bind.apply(model, args));
	return model;
}
