/** The Pricing node's checked fields: each is refused naming its label before anything is fetched. */
import { z } from 'zod';
import { jsonObjectRule } from '../../shared/rules/json';
import { FLAG_RULE, OPTION_RULES } from '../../shared/rules/options';
import { fieldSet, type Rule } from '../../shared/rules/rule';
import { TASK_ID_RULE } from '../../shared/rules/taskId';
import { DELTA_VIDEO_UNIT_PRICES } from '../../shared/money/prices';

/** 0 or empty: the key's multiplier is not known (the fee is then given at multiplier 1) */
export const PRICING_FEE_FIELDS = fieldSet('Pricing fee', {
	groupRatio: { label: 'Group Multiplier', rule: OPTION_RULES.multiplierOrZero },
});

const DELTA_MODEL = `must be a delta-video model (${Object.keys(DELTA_VIDEO_UNIT_PRICES).join(', ')})`;

export const DELTA_VIDEO_MODEL_RULE: Rule<string> = {
	schema: z
		.unknown()
		.refine(
			(m): m is string =>
				typeof m === 'string' && Object.prototype.hasOwnProperty.call(DELTA_VIDEO_UNIT_PRICES, m),
			DELTA_MODEL,
		),
	good: Object.keys(DELTA_VIDEO_UNIT_PRICES),
	bad: [
		{ value: 'gamma-video-1.5', says: DELTA_MODEL },
		{ value: '', says: DELTA_MODEL },
		{ value: 'toString', says: DELTA_MODEL },
	],
};

export const PRICING_ESTIMATE_FIELDS = fieldSet('Pricing estimate', {
	videoModel: { label: 'Model', rule: DELTA_VIDEO_MODEL_RULE },
	tokens: { label: 'Video Tokens', rule: OPTION_RULES.tokens },
	...PRICING_FEE_FIELDS,
});

export const PRICING_TASK_ID_FIELDS = fieldSet('Pricing task ID', {
	taskId: { label: 'Task ID', rule: TASK_ID_RULE },
});

export const PRICING_TASK_FIELDS = fieldSet('Pricing task JSON', {
	task: {
		label: 'Task',
		rule: jsonObjectRule(
			'must be a task object (e.g. the JSON of Task Wait or of GET /v1/videos/{id}); use Task Source "Task ID" for an ID',
		),
	},
});

export const PRICING_LIST_FIELDS = fieldSet('Pricing list', {
	includeOthers: { label: 'Include Models Not Callable', rule: FLAG_RULE },
});
