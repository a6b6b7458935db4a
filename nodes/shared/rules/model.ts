/** The model rule: a model ID is required, whatever parameter holds it (a resource locator or a plain string). */
import { z } from 'zod';
import { fieldSet, type Rule } from './rule';

const MODEL_REQUIRED = 'is required (pick one from the list or enter its exact ID)';

export const MODEL_RULE: Rule<string> = {
	schema: z
		.string({ errorMap: () => ({ message: MODEL_REQUIRED }) })
		.trim()
		.min(1, MODEL_REQUIRED),
	good: ['alpha-image-2.5', ' delta-video-2-0-mini-260615 '],
	bad: [
		{ value: '', says: MODEL_REQUIRED },
		{ value: '  ', says: MODEL_REQUIRED },
		{ value: null, says: MODEL_REQUIRED },
		{ value: 42, says: MODEL_REQUIRED },
	],
};

export const MODEL_FIELDS = fieldSet('Model', { model: { label: 'Model', rule: MODEL_RULE } });
