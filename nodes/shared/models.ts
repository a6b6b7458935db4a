import type { GatewayTransport } from './transport';

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

export async function listModelIds(transport: GatewayTransport): Promise<string[]> {
	const res = await transport.getJson<{ data?: Array<{ id?: unknown }> }>('/v1/models', { timeout: 'query' });
	const data = Array.isArray(res.body?.data) ? res.body.data : [];
	return data.map((m) => m?.id).filter((id): id is string => typeof id === 'string' && id !== '');
}
