/** UI pieces and parameter reading shared by the Chat and Responses nodes. */
import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { InputRuleError } from '../errors';
import { DEFAULT_TIMEOUTS } from '../transport/timeouts';
import { optionsCollection } from '../ui';

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
			'Whether to ask for a streamed answer (SSE). The joined answer is the output either way; when the workflow streams to a chat or webhook (n8n 2.x), the text is forwarded as it arrives.',
	};
}

export function textOptionsProperty(reserved: string): INodeProperties {
	return optionsCollection([
		{
			displayName: 'Extra Body Fields (JSON)',
			name: 'extraBody',
			type: 'json',
			default: '{}',
			description: `Request fields the gateway's contract does not list (temperature, max_output_tokens, tools, stream_options, …), as a JSON object. They must not set ${reserved}.`,
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
			description: 'Whether to return only the text, finish reason and usage (plus model, ID and tool calls) instead of the full response',
		},
		{
			displayName: 'Stream Idle Timeout (Ms)',
			name: 'idleTimeoutMs',
			type: 'number',
			typeOptions: { minValue: 1000 },
			default: DEFAULT_TIMEOUTS.streamIdle,
			description: 'Fail when a streamed answer sends nothing for this long (keep-alive lines count as activity)',
		},
		{
			displayName: 'Stream Max Duration (Ms)',
			name: 'maxDurationMs',
			type: 'number',
			typeOptions: { minValue: 1000 },
			default: DEFAULT_TIMEOUTS.streamTotal,
			description: 'Fail when a streamed answer has not ended after this long, whatever it sends meanwhile (a gateway that only sends keep-alives ends here)',
		},
		]);
}

export function readTextOptions(ctx: IExecuteFunctions, i: number): TextOptions {
	const o = ctx.getNodeParameter('options', i, {}) as { extraBody?: unknown; simplify?: boolean; idleTimeoutMs?: unknown; timeoutMs?: unknown; maxDurationMs?: unknown };
	const positive = (v: unknown, field: string): number | undefined => {
		if (v === undefined || v === null || v === '') return undefined;
		if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) throw new InputRuleError([{ field, rule: 'must be a positive number of milliseconds' }]);
		return v;
	};
	return {
		extraBody: o.extraBody,
		simplify: o.simplify !== false,
		idleMs: positive(o.idleTimeoutMs, 'Stream Idle Timeout (Ms)') ?? DEFAULT_TIMEOUTS.streamIdle,
		timeoutMs: positive(o.timeoutMs, 'Request Timeout (Ms)'),
		maxDurationMs: positive(o.maxDurationMs, 'Stream Max Duration (Ms)') ?? DEFAULT_TIMEOUTS.streamTotal,
	};
}

/** Request timeout of item 0 for the transport (a bad value is reported per item by readTextOptions). */
export function transportTimeout(ctx: IExecuteFunctions): number | undefined {
	const v = (ctx.getNodeParameter('options', 0, {}) as { timeoutMs?: unknown }).timeoutMs;
	return typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : undefined;
}
