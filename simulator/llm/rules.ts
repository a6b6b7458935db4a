/**
 * The scripted language model's rules: deterministic answers from the conversation, no randomness.
 * Built from OpenAI's public wire format (function tools, tool calls, tool results), not from any client.
 *
 * - A calculator-like tool is offered (name matching /calc|math|arith/i) and the last user message holds
 *   arithmetic (`12 * 7`, `3.5 + 4`): one tool call per expression, in order (two expressions → two calls in
 *   one turn). The argument name is the tool schema's first property (`input` when it has none).
 * - The conversation ends with tool results: a text answer that quotes every result ("The result is 84.").
 * - Otherwise: a plain text answer that echoes the question.
 * - `anyTool` (a gateway whose model calls any tool it is offered, `specOnlyChat`): with no tool results yet, every
 *   offered tool is called once, its first argument the question; the calculator rule still comes first.
 *
 * Quirks a real gateway shows, switched on by a marker anywhere in the conversation (a system prompt is the
 * usual place) or by an armed fault of the same name (`llm-empty-args`, …):
 * - `[llm:empty-args]`: every tool call's `arguments` is an empty string;
 * - `[llm:object-args]`: `arguments` is a JSON object instead of a JSON string;
 * - `[llm:odd-split]`: (streams) tool-call deltas split at odd places, the calls' deltas interleaved, the id and
 *   name only in the first delta of each call;
 * - `[llm:no-usage]`: no usage at all (to prove a client does not make one up);
 * - `[llm:no-ids]`: (chat completions) no tool call `id` and no completion `id` (some gateways send none: the client
 *   names the calls).
 */

export interface OfferedTool {
	name: string;
	/** the argument the rule fills in */
	argName: string;
}

export interface PlannedCall {
	id: string;
	name: string;
	args: Record<string, string>;
}

export type Plan = { kind: 'tools'; calls: PlannedCall[] } | { kind: 'text'; text: string };

export type Quirk =
	'empty-args' | 'object-args' | 'odd-split' | 'no-usage' | 'no-ids' | 'no-temperature';
export const QUIRKS: Quirk[] = [
	'empty-args',
	'object-args',
	'odd-split',
	'no-usage',
	'no-ids',
	'no-temperature',
];

const EXPRESSION = /-?\d+(?:\.\d+)?\s*(?:[-+*/×x^]|\*\*)\s*-?\d+(?:\.\d+)?/g;

export function expressionsIn(text: string): string[] {
	return (text.match(EXPRESSION) ?? []).map((e) => e.replace(/\s+/g, ' ').trim());
}

export function calculatorTool(tools: OfferedTool[]): OfferedTool | undefined {
	return tools.find((t) => /calc|math|arith/i.test(t.name));
}

/** The first property of a JSON schema's `properties`, else `input` (LangChain's single-string tools). */
export function argNameOf(schema: unknown): string {
	const props =
		schema && typeof schema === 'object'
			? (schema as { properties?: unknown }).properties
			: undefined;
	if (props && typeof props === 'object') {
		const first = Object.keys(props as object)[0];
		if (first) return first;
	}
	return 'input';
}

export function quirksIn(text: string): Set<Quirk> {
	return new Set(QUIRKS.filter((q) => text.includes(`[llm:${q}]`)));
}

/** A tool result as text: JSON results (n8n wraps them, e.g. `[{"response":"84"}]`) give their values. */
export function resultValue(raw: string): string {
	const t = raw.trim();
	let v: unknown;
	try {
		v = JSON.parse(t);
	} catch {
		return t;
	}
	const leaves: string[] = [];
	const walk = (x: unknown): void => {
		if (x === null || x === undefined) return;
		if (typeof x === 'object')
			for (const y of Array.isArray(x) ? x : Object.values(x as object)) walk(y);
		else leaves.push(String(x));
	};
	walk(v);
	return leaves.join(', ');
}

/** What the model answers: tool calls, or text. `ids` makes the call IDs (deterministic per simulator). */
export function plan(opts: {
	tools: OfferedTool[];
	lastUser: string;
	toolResults: string[] | undefined;
	ids: () => string;
	anyTool?: boolean;
}): Plan {
	if (opts.toolResults) {
		const results = opts.toolResults.map(resultValue).filter(Boolean);
		return {
			kind: 'text',
			text: results.length
				? `The result is ${results.join(' and ')}.`
				: 'The tool returned nothing.',
		};
	}
	const calc = calculatorTool(opts.tools);
	const exprs = expressionsIn(opts.lastUser);
	if (calc && exprs.length) {
		return {
			kind: 'tools',
			calls: exprs.map((e) => ({
				id: opts.ids(),
				name: calc.name,
				args: { [calc.argName]: e.replace(/×|x/g, '*') },
			})),
		};
	}
	const q = opts.lastUser.replace(/\[[a-z:-]+\]/g, '').trim();
	if (opts.anyTool && opts.tools.length)
		return {
			kind: 'tools',
			calls: opts.tools.map((t) => ({
				id: opts.ids(),
				name: t.name,
				args: { [t.argName]: q.slice(0, 200) || 'hello' },
			})),
		};
	return { kind: 'text', text: `Scripted answer: ${q.slice(0, 200) || 'hello'}` };
}

/** The `arguments` value of a call, with the quirks applied. */
export function argumentsOf(
	call: PlannedCall,
	quirks: Set<Quirk>,
): string | Record<string, string> {
	if (quirks.has('empty-args')) return '';
	if (quirks.has('object-args')) return call.args;
	return JSON.stringify(call.args);
}

/** Splits a string at odd places (1, 2, 3 … characters), deterministic. */
export function oddPieces(s: string): string[] {
	const out: string[] = [];
	let i = 0;
	let n = 1;
	while (i < s.length) {
		out.push(s.slice(i, i + n));
		i += n;
		n = (n % 3) + 1;
	}
	return out.length ? out : [''];
}

export function tokensOf(value: unknown): number {
	return Math.max(1, Math.ceil(JSON.stringify(value ?? '').length / 4));
}
