/** UI pieces and parameter reading shared by the Chat and Responses nodes. */
import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { EXTRA_BODY_RULE } from '../rules/json';
import { FLAG_RULE, OPTION_RULES, readOption } from '../rules/options';
import { fieldSet } from '../rules/rule';
import { readField, readFields } from '../validate';
import { DEFAULT_TIMEOUTS } from '../transport/timeouts';
import { optionsCollection } from '../ui';
import { spendOptions } from '../money/options';

export interface TextOptions {
	extraBody?: unknown;
	simplify: boolean;
	idleMs: number;
	timeoutMs?: number;
	/** the whole streamed answer, whatever its pauses and keep-alives */
	maxDurationMs: number;
}

export function streamProperty(): INodeProperties {
	return {
		displayName: 'Stream',
		name: 'stream',
		type: 'boolean',
		default: false,
		description:
			'Whether to ask for a streamed answer (SSE). The joined answer is the output ' +
			'either way; when the workflow streams to a chat or webhook (n8n 2.x), the text ' +
			'is forwarded as it arrives.',
	};
}

export function textOptionsProperty(
	reserved: string,
	more: INodeProperties[] = [],
): INodeProperties {
	return optionsCollection([
		...spendOptions(),
		...more,
		{
			displayName: 'Extra Body Fields (JSON)',
			name: 'extraBody',
			type: 'json',
			default: '{}',
			description:
				`Request fields the gateway's contract does not list (temperature, ` +
				`max_output_tokens, tools, stream_options, …), as a JSON object. They must not set ${reserved}.`,
		},
		{
			displayName: 'Request Timeout (Ms)',
			name: 'timeoutMs',
			type: 'number',
			typeOptions: { minValue: 1000 },
			default: DEFAULT_TIMEOUTS.text,
			description: 'How long to wait for the answer to start (non-streaming: for the whole answer)',
		},
		{
			displayName: 'Simplify Output',
			name: 'simplify',
			type: 'boolean',
			default: true,
			description:
				'Whether to return only the text, finish reason and usage (plus model, ID and tool calls) instead of the full response',
		},
		{
			displayName: 'Stream Idle Timeout (Ms)',
			name: 'idleTimeoutMs',
			type: 'number',
			typeOptions: { minValue: 1000 },
			default: DEFAULT_TIMEOUTS.streamIdle,
			description:
				'Fail when a streamed answer sends nothing for this long (keep-alive lines count as activity)',
		},
		{
			displayName: 'Stream Max Duration (Ms)',
			name: 'maxDurationMs',
			type: 'number',
			typeOptions: { minValue: 1000 },
			default: DEFAULT_TIMEOUTS.streamTotal,
			description:
				'Fail when a streamed answer has not ended after this long, whatever it sends meanwhile (a gateway that only sends keep-alives ends here)',
		},
	]);
}

export const TEXT_OPTION_FIELDS = fieldSet('Chat and Responses options', {
	idleTimeoutMs: { label: 'Stream Idle Timeout (Ms)', rule: OPTION_RULES.milliseconds },
	timeoutMs: { label: 'Request Timeout (Ms)', rule: OPTION_RULES.milliseconds },
	maxDurationMs: { label: 'Stream Max Duration (Ms)', rule: OPTION_RULES.milliseconds },
	extraBody: { label: 'Extra Body Fields', rule: EXTRA_BODY_RULE },
	simplify: { label: 'Simplify Output', rule: FLAG_RULE },
});

/** The Stream field of item `i` (Chat, Responses), read by the one yes/no rule: "true" from a sheet streams. */
export function readStream(ctx: IExecuteFunctions, i: number): boolean {
	return readField('Stream', FLAG_RULE, ctx.getNodeParameter('stream', i, false)) ?? false;
}

export function readTextOptions(ctx: IExecuteFunctions, i: number): TextOptions {
	const o = ctx.getNodeParameter('options', i, {}) as Record<string, unknown>;
	const checked = readFields(TEXT_OPTION_FIELDS, o);
	return {
		extraBody: checked.extraBody,
		simplify: checked.simplify ?? true,
		idleMs: checked.idleTimeoutMs ?? DEFAULT_TIMEOUTS.streamIdle,
		timeoutMs: checked.timeoutMs,
		maxDurationMs: checked.maxDurationMs ?? DEFAULT_TIMEOUTS.streamTotal,
	};
}

/** Request timeout of item 0 for the transport (a bad value is reported per item by readTextOptions). */
export function transportTimeout(ctx: IExecuteFunctions): number | undefined {
	return readOption(
		OPTION_RULES.milliseconds,
		(ctx.getNodeParameter('options', 0, {}) as { timeoutMs?: unknown }).timeoutMs,
	);
}
