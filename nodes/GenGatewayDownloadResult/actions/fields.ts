/** Download Result's checked fields, by source: each is refused naming its label before anything is fetched. */
import { jsonObjectRule } from '../../shared/rules/json';
import { FLAG_RULE, OPTION_RULES } from '../../shared/rules/options';
import { fieldSet } from '../../shared/rules/rule';
import { TASK_ID_RULE } from '../../shared/rules/taskId';
import { HTTP_URL_RULE } from './urlRule';

export const DOWNLOAD_OPTION_FIELDS = fieldSet('Download Result options', {
	maxVideoMiB: { label: 'Max Video Size (MiB)', rule: OPTION_RULES.mebibytes },
	waitSeconds: {
		label: 'Wait for an Unfinished Task (Seconds)',
		rule: OPTION_RULES.positiveSeconds,
	},
	splitImages: { label: 'One Item per Image', rule: FLAG_RULE },
	urlsOnly: { label: 'Return URLs Only', rule: FLAG_RULE },
});

export const DOWNLOAD_VIDEO_TASK_FIELDS = fieldSet('Download Result video task', {
	taskId: { label: 'Task ID', rule: TASK_ID_RULE },
});

export const DOWNLOAD_URL_FIELDS = fieldSet('Download Result URL', {
	url: { label: 'URL', rule: HTTP_URL_RULE },
});

export const DOWNLOAD_IMAGE_TASK_FIELDS = fieldSet('Download Result image task', {
	task: {
		label: 'Item or Task Object',
		rule: jsonObjectRule('must be an item or a task object (JSON)'),
	},
});
