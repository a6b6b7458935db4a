/**
 * The budget workflow (examples/budget.json) against the gateway the demo runs on. The example names the simulator's
 * demo group (hd) and a cap made for its price (two images fit, four do not); a gateway that follows the spec publishes
 * its own groups and prices (`/api/pricing`, `/api/status`), so the demo takes the group and the cap from there: the
 * group GATEWAY_DEMO_GROUP names, else the example's own when the price list has it for the model, else the cheapest
 * public group enabling the model; the cap between two and four images at that group's price. When the price list
 * cannot price the model per call (unreadable, not listed, per token, dynamic, no group with a ratio) or the key
 * cannot call it, the workflow is skipped with the reason instead of failing its first batch as unpriced.
 */
import { composeUrl, normaliseBaseUrl } from '../../nodes/shared/transport/baseUrl';
import {
	DEFAULT_QUOTA_PER_UNIT,
	lowestPrice,
	numberOf,
	parsePricing,
	readDisplay,
	type DisplaySettings,
	type PricingData,
} from '../../nodes/shared/money/prices';
import { roundedProduct } from '../../nodes/shared/money/decimal';

type Node = { name: string; type: string; parameters: Record<string, unknown> };
type Workflow = { nodes: Node[] };

export type BudgetPlan = { wf: Workflow; notes: string[] } | { skip: string };

const IMAGE_SUBMIT = 'n8n-nodes-gen-gateway.genGatewayImageSubmit';

/** The budget workflow's paid nodes: every Image Submit with a cap. */
function cappedNodes(wf: Workflow): Node[] {
	return wf.nodes.filter(
		(n) =>
			n.type === IMAGE_SUBMIT &&
			(n.parameters.options as Record<string, unknown> | undefined)?.maxExpectedSpend !== undefined,
	);
}

const modelOf = (n: Node) => {
	const m = n.parameters.model as { value?: unknown } | string | undefined;
	return typeof m === 'string' ? m : typeof m?.value === 'string' ? m.value : '';
};

/**
 * The workflow with its group and cap taken from the price list, or why it cannot run on this gateway. Pure:
 * `pricing` undefined means the price list could not be read, `keyModels` undefined that the key's list could not.
 */
export function planBudget(
	wf: Workflow,
	pricing: PricingData | undefined,
	display: DisplaySettings | undefined,
	keyModels: string[] | undefined,
	wantedGroup?: string,
): BudgetPlan {
	const nodes = cappedNodes(wf);
	if (!nodes.length) return { wf, notes: [] };
	const model = modelOf(nodes[0]);
	if (!pricing)
		return {
			skip: `the gateway's price list (/api/pricing) could not be read, so no cap for ${model} can be set`,
		};
	if (keyModels && !keyModels.includes(model))
		return { skip: `the key cannot call ${model} (GET /v1/models does not list it)` };
	const entry = pricing.data.find((e) => e.model_name === model);
	if (!entry) return { skip: `the gateway's price list does not list ${model}` };
	const price = lowestPrice(entry, pricing, display?.quotaPerUnit);
	const modelPrice = numberOf(entry.model_price);
	if (
		price.billing !== 'per_call' ||
		price.dynamic ||
		modelPrice === undefined ||
		modelPrice <= 0
	) {
		return {
			skip: `the gateway's price list gives ${model} no fixed price per call (${price.dynamic ? 'dynamic pricing' : price.billing === 'per_call' ? 'no model_price' : price.billing.replace(/_/g, ' ')}), so a cap cannot be set before the calls`,
		};
	}
	const ratioOf = (g: string | undefined) => (g ? numberOf(pricing.group_ratio[g]) : undefined);
	const enables = (g: string) =>
		Array.isArray(entry.enable_groups) && entry.enable_groups.includes(g);
	const given = nodes
		.map((n) => (n.parameters.options as Record<string, unknown>).groupName)
		.find((g): g is string => typeof g === 'string' && g !== '');
	const notes: string[] = [];
	let group: string | undefined;
	if (wantedGroup) {
		if ((ratioOf(wantedGroup) ?? 0) > 0) group = wantedGroup;
		else
			notes.push(`GATEWAY_DEMO_GROUP ${wantedGroup} has no ratio in the price list's group_ratio`);
	}
	if (!group && given && enables(given) && (ratioOf(given) ?? 0) > 0) group = given;
	if (!group && price.group && (price.groupRatio ?? 0) > 0) group = price.group;
	if (!group)
		return {
			skip: `the gateway's price list names no group with a positive ratio that enables ${model}`,
		};
	const ratio = ratioOf(group)!;
	const perImage = Math.ceil(
		roundedProduct([modelPrice, ratio, display?.quotaPerUnit ?? DEFAULT_QUOTA_PER_UNIT]),
	);
	const cap0 = Number((nodes[0].parameters.options as Record<string, unknown>).maxExpectedSpend);
	// two images (the first batch) fit, four (both batches) do not
	const cap = cap0 >= 2 * perImage && cap0 < 4 * perImage ? cap0 : 3 * perImage;
	const out: Workflow = JSON.parse(JSON.stringify(wf));
	for (const n of cappedNodes(out))
		n.parameters.options = {
			...(n.parameters.options as Record<string, unknown>),
			groupName: group,
			maxExpectedSpend: cap,
		};
	if (group !== given)
		notes.push(
			`Group Name ${group} (ratio ${ratio}) from the gateway's price list instead of the example's ${given ?? '(none)'}`,
		);
	if (cap !== cap0)
		notes.push(
			`Max Expected Spend ¤${cap}: ${model} costs ¤${perImage} an image in ${group}, so the first batch (2 images) fits and the second does not`,
		);
	return { wf: out, notes };
}

async function getJson(baseUrl: string, path: string, apiKey?: string): Promise<unknown> {
	const res = await fetch(composeUrl(normaliseBaseUrl(baseUrl), path), {
		headers: apiKey ? { Authorization: `Bearer ${apiKey}` } : {},
		redirect: 'manual',
		signal: AbortSignal.timeout(30_000),
	});
	if (!res.ok) throw new Error(`GET ${path}: HTTP ${res.status}`);
	return res.json();
}

/** planBudget with the gateway's price list, display settings and the key's models, read now. */
export async function budgetForGateway(
	wf: Workflow,
	gateway: { baseUrl: string; apiKey: string },
	wantedGroup = process.env.GATEWAY_DEMO_GROUP,
): Promise<BudgetPlan> {
	const [pricing, display, models] = await Promise.all([
		getJson(gateway.baseUrl, '/api/pricing').then(parsePricing, () => undefined),
		getJson(gateway.baseUrl, '/api/status').then(readDisplay, () => undefined),
		getJson(gateway.baseUrl, '/v1/models', gateway.apiKey).then(
			(b) =>
				((b as { data?: Array<{ id?: unknown }> }).data ?? [])
					.map((m) => m?.id)
					.filter((id): id is string => typeof id === 'string'),
			() => undefined,
		),
	]);
	return planBudget(wf, pricing, display, models, wantedGroup || undefined);
}
