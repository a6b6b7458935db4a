import type { IExecuteFunctions } from 'n8n-workflow';
import { MODEL_FIELDS } from './rules/model';
import type { GatewayTransport } from './transport';
import { readFields } from './validate';

export type ModelFamily = 'image' | 'video' | 'language';

/** Retired 'special' beta series: no longer enabled, never offered to new workflows. */
export function isRetired(id: string): boolean {
	return /^beta-.*special/i.test(id);
}

export function familyOf(id: string): ModelFamily {
	if (/-video-/.test(id) || /^(gamma|delta)-video/.test(id)) return 'video';
	if (/image/.test(id)) return 'image';
	return 'language';
}

/**
 * The one rule for a video's family (Task Wait, Download Result, the wait): the `family` an item of ours names, else
 * the model's stem (`gamma-…`, `delta-…`; an item's `model`, or a task body's `model` / `data.model`). Undefined when
 * neither says it (a task body is then read by its shape: tasks/wait.ts).
 */
export function videoFamilyOf(o: Record<string, unknown>): 'delta' | 'gamma' | undefined {
	if (o.family === 'delta' || o.family === 'gamma') return o.family;
	const data =
		o.data && typeof o.data === 'object' && !Array.isArray(o.data)
			? (o.data as Record<string, unknown>)
			: {};
	const model =
		typeof o.model === 'string' ? o.model : typeof data.model === 'string' ? data.model : '';
	if (model.startsWith('gamma-')) return 'gamma';
	if (model.startsWith('delta-')) return 'delta';
	return undefined;
}

export async function listModelIds(transport: GatewayTransport): Promise<string[]> {
	const res = await transport.getJson<{ data?: Array<{ id?: unknown }> }>('/v1/models', {
		timeout: 'query',
	});
	const data = Array.isArray(res.body?.data) ? res.body.data : [];
	return data.map((m) => m?.id).filter((id): id is string => typeof id === 'string' && id !== '');
}

/** Reads the model ID from a resource locator (or a plain string from older workflows); `name`: the parameter. */
export function readModel(ctx: IExecuteFunctions, i: number, name = 'model'): string {
	return readFields(MODEL_FIELDS, {
		model: ctx.getNodeParameter(name, i, '', { extractValue: true }),
	}).model;
}
