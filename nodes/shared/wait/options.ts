/** Task Wait's numeric options, checked before anything is queried: a bad value names its field and is never used. */
import type { IExecuteFunctions } from 'n8n-workflow';
import { InputRuleError, type RuleViolation } from '../errors';
import { minPollIntervalMs } from '../poller';
import { DEFAULT_MAX_VIDEO_BYTES } from '../results';
import { DEFAULT_QUERY_CONCURRENCY, DEFAULT_VIDEO_INTERVAL_MS } from './waitTasks';

export interface WaitOptionValues {
	deadlineMs: number;
	maxWaitMs: number;
	videoIntervalMs: number;
	concurrency: number;
	/** undefined: not known (the fee is labelled at multiplier 1) */
	groupRatio?: number;
	binaryPropertyName: string;
	download: boolean;
	maxVideoBytes: number;
	/** the input item's own fields come along on the output item (ours win) */
	keepInputFields: boolean;
}

interface RawOptions {
	deadlineMinutes?: unknown;
	maxWaitSeconds?: unknown;
	videoIntervalMs?: unknown;
	concurrency?: unknown;
	groupRatio?: unknown;
	binaryPropertyName?: unknown;
	download?: unknown;
	maxVideoMiB?: unknown;
	keepInputFields?: unknown;
}

const absent = (v: unknown) => v === undefined || v === null || v === '';

function num(v: unknown, field: string, rule: (n: number) => string | undefined, problems: RuleViolation[]): number | undefined {
	if (absent(v)) return undefined;
	const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
	if (typeof n !== 'number' || !Number.isFinite(n)) {
		problems.push({ field, rule: `must be a finite number (got ${JSON.stringify(v)})` });
		return undefined;
	}
	const why = rule(n);
	if (why) {
		problems.push({ field, rule: why });
		return undefined;
	}
	return n;
}

export function readWaitOptions(ctx: IExecuteFunctions, i: number): WaitOptionValues {
	const o = ctx.getNodeParameter('options', i, {}) as RawOptions;
	const problems: RuleViolation[] = [];
	const deadlineMinutes = num(o.deadlineMinutes, 'Deadline (Minutes)', (n) => (n > 0 ? undefined : 'must be more than 0'), problems) ?? 30;
	const maxWaitSeconds = num(o.maxWaitSeconds, 'Max Wait per Execution (Seconds)', (n) => (n >= 0 ? undefined : 'must be 0 (until the deadline) or more'), problems) ?? 0;
	const videoIntervalMs = num(o.videoIntervalMs, 'Video Poll Interval (Ms)', (n) => (n > 0 ? undefined : 'must be more than 0'), problems) ?? DEFAULT_VIDEO_INTERVAL_MS;
	const concurrency = num(o.concurrency, 'Concurrent Queries', (n) => (Number.isInteger(n) && n >= 1 && n <= 64 ? undefined : 'must be a whole number from 1 to 64'), problems) ?? DEFAULT_QUERY_CONCURRENCY;
	const groupRatio = num(o.groupRatio, 'Group Multiplier', (n) => (n > 0 ? undefined : 'must be more than 0 (an unknown multiplier is never 0)'), problems);
	const maxVideoMiB = num(o.maxVideoMiB, 'Max Video Size (MiB)', (n) => (n > 0 ? undefined : 'must be more than 0'), problems) ?? DEFAULT_MAX_VIDEO_BYTES / 2 ** 20;
	if (problems.length) throw new InputRuleError(problems);
	return {
		maxVideoBytes: Math.round(maxVideoMiB * 2 ** 20),
		deadlineMs: deadlineMinutes * 60_000,
		maxWaitMs: maxWaitSeconds * 1000,
		videoIntervalMs: Math.max(minPollIntervalMs(), videoIntervalMs),
		concurrency,
		groupRatio,
		binaryPropertyName: typeof o.binaryPropertyName === 'string' && o.binaryPropertyName.trim() ? o.binaryPropertyName.trim() : 'data',
		download: o.download !== false,
		keepInputFields: o.keepInputFields !== false,
	};
}
