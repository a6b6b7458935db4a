/**
 * Generate (text to image): its entry in the Operation list and where it is sent. It has no parameters of its own
 * (the shared request is in common.descriptions.ts), sends no reference image, and adds no rule to the mode's.
 */
import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';
import type { RuleViolation } from '../../shared/errors';
import type { OperationInput } from './input';

export const option: INodePropertyOptions = {
	name: 'Generate',
	value: 'generate',
	action: 'Generate an image from text',
	description: 'Text to image',
};

export const properties: INodeProperties[] = [];

/** sent to /v1/images/generations (and its /async form) */
export const endpoint = 'generations';

/** A text-to-image request reads no reference. */
export const readOwn = async (): Promise<OperationInput> => ({
	references: [],
	referenceUrls: [],
	editEncoding: 'json',
});

export const problems = (): RuleViolation[] => [];
