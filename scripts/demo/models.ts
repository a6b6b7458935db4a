/** The language models the demo's key may call (GET /v1/models), and the examples' text models swapped for them where the key lacks one. */
import { composeUrl, normaliseBaseUrl } from '../../nodes/shared/transport/baseUrl';
import { useKeyTextModels } from './workflows';

/** GET /v1/models with the key: the models this key may call. */
export async function keyModelIds(baseUrl: string, apiKey: string): Promise<string[]> {
	const res = await fetch(composeUrl(normaliseBaseUrl(baseUrl), '/v1/models'), {
		headers: { Authorization: `Bearer ${apiKey}` },
		redirect: 'manual',
		signal: AbortSignal.timeout(30_000),
	});
	if (!res.ok) throw new Error(`HTTP ${res.status}`);
	const body = (await res.json()) as { data?: Array<{ id?: unknown }> };
	return (Array.isArray(body.data) ? body.data : [])
		.map((m) => m?.id)
		.filter((id): id is string => typeof id === 'string' && id !== '');
}

/** The examples name language models the spec does not: where the key lacks one, use one it lists, and say so. */
export async function textModelsOfKey(
	baseUrl: string,
	apiKey: string,
	say: (line: string) => void,
): Promise<(wf: Record<string, unknown>, folder: string) => Record<string, unknown>> {
	let ids: string[] | undefined;
	try {
		ids = await keyModelIds(baseUrl, apiKey);
	} catch (err) {
		say(
			`[demo] GET /v1/models failed (${(err as Error).message}): the examples' language models are kept`,
		);
	}
	return (wf, folder) => {
		if (ids)
			for (const note of useKeyTextModels(wf as Parameters<typeof useKeyTextModels>[0], ids))
				say(`[demo] ${folder}: ${note}`);
		return wf;
	};
}
