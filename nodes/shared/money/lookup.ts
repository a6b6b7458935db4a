/**
 * Pricing helpers shared by the nodes. Units: see compute.ts (base unit = USD at a default site;
 * 1 base unit = quota_per_unit quota units ¤; the delta-video table is in base units per 1M video tokens).
 *
 * For other nodes:
 * - `loadPricing(transport, { budgetMs })`: /api/pricing + /api/status without the key, at most once per transport (a
 *   transport lives for one execution, so nodes keep no state between executions; a failure is remembered too);
 *   with `budgetMs` (PRICE_HINT_BUDGET_MS for the paid nodes' cost and cap) at most 2 attempts each, so it cannot
 *   hold a node.
 * - `settleDeltaFee(task, unitPrices, groupRatio: number | undefined, opts?): DeltaSettlement`  (delta.ts)
 *   Fee of a finished delta-video task for Task Wait's JSON. `task`: GET /v1/videos/{id} body or Task Wait
 *   output (also wrapped in task/data). `unitPrices`: undefined (the spec table), a per-model table, or one
 *   model's `{noReferenceVideo, withReferenceVideo}`. `groupRatio`: the key's group multiplier when the user gave
 *   it, else undefined. `opts`: `{withReferenceVideo?, model?, quotaPerUnit?}`.
 *   Returns snake_case JSON: status settled (multiplier known) | at_multiplier_1 (the same figure at multiplier 1,
 *   multiplier unknown) | needs_manual_check (never free) | refunded | not_finished, tokens, token_source,
 *   unit_price, group_ratio (null when unknown), fee_quota (whole ¤), fee_base, with_reference_video,
 *   reference_video_source, note. Throws only when groupRatio is given and not a positive number.
 * - `referenceVideoOf(json)`: whether a Video Create output / delta create body has a reference video.
 * - Pure (compute.ts): lowestPrice, toDisplay, quotaToDisplay, formatDisplay, readDisplay, parsePricing,
 *   deltaVideoFee, videoFeeQuota, deltaUnitPrice, settlementTokens, settlementUsage, DELTA_VIDEO_UNIT_PRICES;
 *   (the Pricing node's output row is nodes/GenGatewayPricing/actions/rows.ts).
 */
import { sleep } from '../transport/clock';
import type { GatewayTransport } from '../transport';
import { parsePricing, readDisplay, type DisplaySettings, type PricingData } from './prices';

export * from './prices';
export * from './delta';

/**
 * How long the paid nodes' price look-up (price list and display settings, beside the paid calls) may take, retries
 * and the whole body included: past it the look-up is given up, costs are `unknown`, and a cap that needs the price
 * refuses before sending. A paid result is never held longer than this by a price look-up.
 */
export const PRICE_LOOKUP_MS = 3_000;
/** @deprecated the old name of PRICE_LOOKUP_MS */
export const PRICE_HINT_BUDGET_MS = PRICE_LOOKUP_MS;

/** `p`, or a rejection once `ms` have passed (the timer goes when `p` settles). */
export function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
	const timer = new AbortController();
	const late = sleep(ms, timer.signal).then(
		() => Promise.reject(new Error(`${what} did not answer within ${Math.round(ms / 100) / 10} s`)),
		() => new Promise<never>(() => undefined),
	);
	return Promise.race([p, late]).finally(() => timer.abort());
}

export interface LoadedPricing {
	pricing: PricingData;
	display: DisplaySettings;
}

interface Cached {
	pricing?: Promise<PricingData>;
	status?: Promise<DisplaySettings>;
}

/** Per transport, i.e. per execution: the transport is built by each execute() and dropped with it. */
const cache = new WeakMap<GatewayTransport, Cached>();

export interface LoadOptions {
	/** give up after this long (retries included); default: the transport's normal retries */
	budgetMs?: number;
}

function slot(transport: GatewayTransport): Cached {
	let c = cache.get(transport);
	if (!c) cache.set(transport, (c = {}));
	return c;
}

/** The public answers are small (a real price list is a few hundred KB): a larger one is not read to the JSON cap. */
export const PRICE_LIST_MAX_BYTES = 8 * 1024 * 1024;
export const STATUS_MAX_BYTES = 1024 * 1024;

function getOpts(opts: LoadOptions, maxBytes: number) {
	return opts.budgetMs === undefined
		? { auth: false, maxBytes }
		: { auth: false, maxBytes, deadline: Date.now() + opts.budgetMs, maxAttempts: 2 };
}

/** GET /api/pricing (no key), parsed; once per transport (a failure too, so an unreachable list costs one budget per execution). */
export function loadPriceList(
	transport: GatewayTransport,
	opts: LoadOptions = {},
): Promise<PricingData> {
	const c = slot(transport);
	if (!c.pricing) {
		const loading = transport
			.getJson('/api/pricing', getOpts(opts, PRICE_LIST_MAX_BYTES))
			.then((r) => parsePricing(r.body));
		c.pricing =
			opts.budgetMs === undefined
				? loading
				: within(loading, opts.budgetMs, 'the price list (/api/pricing)');
		c.pricing.catch(() => undefined);
	}
	return c.pricing;
}

/** GET /api/status (no key) → display settings; once per transport (a failure too). */
export function loadDisplay(
	transport: GatewayTransport,
	opts: LoadOptions = {},
): Promise<DisplaySettings> {
	const c = slot(transport);
	if (!c.status) {
		const loading = transport
			.getJson('/api/status', getOpts(opts, STATUS_MAX_BYTES))
			.then((r) => readDisplay(r.body));
		c.status =
			opts.budgetMs === undefined ? loading : within(loading, opts.budgetMs, '/api/status');
		c.status.catch(() => undefined);
	}
	return c.status;
}

export async function loadPricing(
	transport: GatewayTransport,
	opts: LoadOptions = {},
): Promise<LoadedPricing> {
	const [pricing, display] = await Promise.all([
		loadPriceList(transport, opts),
		loadDisplay(transport, opts),
	]);
	return { pricing, display };
}
