/** The Pricing node's checked fields: each is refused naming its label before anything is fetched. */
import { jsonObjectRule } from '../rules/json';
import { OPTION_RULES } from '../rules/options';
import { fieldSet } from '../rules/rule';
import { TASK_ID_RULE } from '../rules/taskId';

/** 0 or empty: the key's multiplier is not known (the fee is then given at multiplier 1) */
export const PRICING_FEE_FIELDS = fieldSet('Pricing fee', { groupRatio: { label: 'Group Multiplier', rule: OPTION_RULES.multiplierOrZero } });

export const PRICING_ESTIMATE_FIELDS = fieldSet('Pricing estimate', {
	tokens: { label: 'Video Tokens', rule: OPTION_RULES.tokens },
	...PRICING_FEE_FIELDS,
});

export const PRICING_TASK_ID_FIELDS = fieldSet('Pricing task ID', { taskId: { label: 'Task ID', rule: TASK_ID_RULE } });

export const PRICING_TASK_FIELDS = fieldSet('Pricing task JSON', {
	task: { label: 'Task', rule: jsonObjectRule('must be a task object (e.g. the JSON of Task Wait or of GET /v1/videos/{id}); use Task Source "Task ID" for an ID') },
});
