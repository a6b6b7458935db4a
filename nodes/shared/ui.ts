/** UI pieces several nodes share. */
import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { refuse } from './validate';

/** The model ID in a canvas subtitle: a resource locator's value, a plain string from an older workflow, or "no model". */
export const SUBTITLE_MODEL = '(typeof $parameter["model"] === "object" && $parameter["model"] !== null ? ($parameter["model"].value || "no model") : ($parameter["model"] || "no model"))';

export function modelLocator(searchListMethod: string, placeholder: string, extra: Partial<INodeProperties> = {}): INodeProperties {
	return {
		displayName: 'Model',
		name: 'model',
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		required: true,
		description: 'Models your key can call (GET /v1/models). IDs are exact: -1k/-2k/-4k and build suffixes are part of the ID.',
		modes: [
			{ displayName: 'From List', name: 'list', type: 'list', typeOptions: { searchListMethod, searchable: true } },
			{ displayName: 'ID', name: 'id', type: 'string', placeholder },
		],
		...extra,
	};
}

/** Reads the model ID from a resource locator (or a plain string from older workflows). */
export function readModel(ctx: IExecuteFunctions, i: number): string {
	const v = ctx.getNodeParameter('model', i, '', { extractValue: true }) as unknown;
	if (typeof v !== 'string' || !v.trim()) refuse([{ field: 'Model', rule: 'is required (pick one from the list or enter its exact ID)' }]);
	return v.trim();
}

/** Where video tasks are queried and downloaded (Task Wait, Download Result): the origin that created them. */
export function videoOriginProperty(name: string, extra: Partial<INodeProperties> = {}): INodeProperties {
	return {
		displayName: 'Video Origin',
		name,
		type: 'options',
		options: [
			{ name: 'Auto', value: 'auto', description: "The input item's origin (else the Video Base URL when set); a task unknown there is asked on the other origin before it is declared failed" },
			{ name: 'Base URL', value: 'base' },
			{ name: 'Video Base URL', value: 'video' },
		],
		default: 'auto',
		description: 'Where video tasks are queried and downloaded: always on the origin that created them',
		...extra,
	};
}
