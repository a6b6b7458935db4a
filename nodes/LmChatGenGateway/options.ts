/**
 * The Chat Model's Options, read by the shared rules layer before any request: numbers from numeric text ("0.5" from
 * a sheet), switches from "true"/"false" text or 1/0; anything else refuses the supply naming the item, the field and
 * the rule (never a silent default).
 */
import { FLAG_RULE, numberRule, OPTION_RULES } from '../shared/rules/options';
import type { Fields } from '../shared/rules/rule';
import { readFields } from '../shared/validate';

/** The Chat Model's checked options, by parameter name (its own bounds for sampling and answer length). */
export const CHAT_MODEL_OPTION_FIELDS = {
	maxTokens: {
		label: 'Maximum Number of Tokens',
		rule: numberRule(
			'must be a whole number of tokens, 1 or more',
			(n) => Number.isInteger(n) && n >= 1,
			[1, 1024, '4096'],
			[0, -1, 10.5, 'many', Number.NaN, Number.POSITIVE_INFINITY],
		),
	},
	temperature: {
		label: 'Sampling Temperature',
		rule: numberRule(
			'must be a number from 0 to 2',
			(n) => n >= 0 && n <= 2,
			[0, 0.7, '1.2', 2],
			[-0.1, 2.5, 'warm', Number.NaN],
		),
	},
	topP: {
		label: 'Top P',
		rule: numberRule(
			'must be a number from 0 to 1',
			(n) => n >= 0 && n <= 1,
			[0, 0.9, '1'],
			[-0.5, 1.5, 'most', Number.NaN],
		),
	},
	timeout: { label: 'Request Timeout (Ms)', rule: OPTION_RULES.milliseconds },
	idleTimeout: { label: 'Stream Idle Timeout (Ms)', rule: OPTION_RULES.milliseconds },
	leaveOutReasoning: { label: 'Leave Out Reasoning', rule: FLAG_RULE },
	streaming: { label: 'Streaming', rule: FLAG_RULE },
	useResponsesApi: { label: 'Use Responses API', rule: FLAG_RULE },
} satisfies Fields;

export interface ChatModelOptionValues {
	maxTokens?: number;
	temperature?: number;
	topP?: number;
	timeoutMs: number;
	idleMs?: number;
	leaveOutReasoning: boolean;
	streaming: boolean;
	useResponsesApi: boolean;
}

/** Reads the checked options of one item's Options collection (throws InputRuleError naming each bad field). */
export function readChatModelOptions(
	raw: Record<string, unknown>,
	defaultTimeoutMs: number,
): ChatModelOptionValues {
	const c = readFields(CHAT_MODEL_OPTION_FIELDS, raw);
	return {
		maxTokens: c.maxTokens,
		temperature: c.temperature,
		topP: c.topP,
		timeoutMs: c.timeout ?? defaultTimeoutMs,
		idleMs: c.idleTimeout,
		leaveOutReasoning: c.leaveOutReasoning ?? false,
		streaming: c.streaming ?? true,
		useResponsesApi: c.useResponsesApi ?? false,
	};
}
