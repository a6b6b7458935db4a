/** Task Wait's numeric options, checked before anything is queried: a bad value names its field and is never used. */
import type { IExecuteFunctions } from 'n8n-workflow';
import type { GroupChoice } from '../../shared/money/cost';
import { groupChoice } from '../../shared/money/options';
import { minPollIntervalMs } from '../../shared/tasks/poller';
import { FLAG_RULE, OPTION_RULES } from '../../shared/rules/options';
import { fieldSet } from '../../shared/rules/rule';
import { DEFAULT_MAX_VIDEO_BYTES } from '../../shared/media/store';
import { readFields } from '../../shared/validate';
import { DEFAULT_QUERY_CONCURRENCY, DEFAULT_VIDEO_INTERVAL_MS } from '../../shared/tasks/wait';

export interface WaitOptionValues {
	deadlineMs: number;
	maxWaitMs: number;
	videoIntervalMs: number;
	concurrency: number;
	/** the key's group multiplier as the user gave it (a number or a group name); nothing: not known (the fee is labelled at multiplier 1) */
	group: GroupChoice;
	binaryPropertyName: string;
	download: boolean;
	maxVideoBytes: number;
	/** the input item's own fields come along on the output item (ours win) */
	keepInputFields: boolean;
}

export const WAIT_OPTION_FIELDS = fieldSet('Task Wait options', {
	deadlineMinutes: { label: 'Deadline (Minutes)', rule: OPTION_RULES.minutes },
	maxWaitSeconds: { label: 'Max Wait per Execution (Seconds)', rule: OPTION_RULES.seconds },
	videoIntervalMs: { label: 'Video Poll Interval (Ms)', rule: OPTION_RULES.milliseconds },
	concurrency: { label: 'Concurrent Queries', rule: OPTION_RULES.concurrency },
	groupRatio: { label: 'Group Multiplier', rule: OPTION_RULES.multiplierOrZero },
	maxVideoMiB: { label: 'Max Video Size (MiB)', rule: OPTION_RULES.mebibytes },
	download: { label: 'Download Results', rule: FLAG_RULE },
	keepInputFields: { label: 'Keep Input Fields', rule: FLAG_RULE },
});

interface RawOptions {
	groupRatio?: unknown;
	groupName?: unknown;
	binaryPropertyName?: unknown;
	download?: unknown;
	keepInputFields?: unknown;
}

export function readWaitOptions(ctx: IExecuteFunctions, i: number): WaitOptionValues {
	const o = ctx.getNodeParameter('options', i, {}) as RawOptions;
	const checked = readFields(WAIT_OPTION_FIELDS, o as Record<string, unknown>);
	const deadlineMinutes = checked.deadlineMinutes ?? 30;
	const maxWaitSeconds = checked.maxWaitSeconds ?? 0;
	const videoIntervalMs = checked.videoIntervalMs ?? DEFAULT_VIDEO_INTERVAL_MS;
	const concurrency = checked.concurrency ?? DEFAULT_QUERY_CONCURRENCY;
	const maxVideoMiB = checked.maxVideoMiB ?? DEFAULT_MAX_VIDEO_BYTES / 2 ** 20;
	return {
		maxVideoBytes: Math.round(maxVideoMiB * 2 ** 20),
		deadlineMs: deadlineMinutes * 60_000,
		maxWaitMs: maxWaitSeconds * 1000,
		videoIntervalMs: Math.max(minPollIntervalMs(), videoIntervalMs),
		concurrency,
		group: groupChoice(o, checked.groupRatio),
		binaryPropertyName:
			typeof o.binaryPropertyName === 'string' && o.binaryPropertyName.trim()
				? o.binaryPropertyName.trim()
				: 'data',
		download: checked.download ?? true,
		keepInputFields: checked.keepInputFields ?? true,
	};
}
