/**
 * The execution-wide spend record, kept in n8n's execution custom data (`$execution.customData`: shown in the
 * executions list, readable in expressions, saved with the execution, so it holds in queue mode where nodes keep no
 * state). n8n keeps at most 10 keys per execution (a new key past that is dropped silently), keys of letters, digits
 * and `_`, values as text of at most 255 characters; so the package uses three keys whatever the number of nodes:
 *
 * - `gengateway_spent`: whole ¤ spent so far by this execution's GenGateway nodes (expected and settled costs; items
 *   with no figure are not in it, they are counted in the text), e.g. `{{ Number($execution.customData.get("gengateway_spent")) }}`;
 * - `gengateway_spent_text`: the same in the display currency, and how many items had no figure;
 * - `gengateway_nodes`: each node run's own share, `{"<node>#<run>":[¤, unpriced]}` (oldest dropped first past 255
 *   characters), so that a Retry On Fail re-run of a node replaces its share instead of adding it again.
 */
import type { IExecuteFunctions, IWorkflowExecutionCustomData } from 'n8n-workflow';
import { formatDisplay, quotaToDisplay, type DisplaySettings } from '../pricing/compute';

export const SPENT_KEY = 'gengateway_spent';
export const SPENT_TEXT_KEY = 'gengateway_spent_text';
export const NODES_KEY = 'gengateway_nodes';
const MAX_VALUE = 255;
/** n8n-core's KV_LIMIT: a new key past this many is dropped without a word */
export const MAX_CUSTOM_DATA_KEYS = 10;

type Shares = Record<string, [number, number]>;

function customData(ctx: IExecuteFunctions): IWorkflowExecutionCustomData | undefined {
	try {
		const proxy = ctx.getWorkflowDataProxy(0) as { $execution?: { customData?: IWorkflowExecutionCustomData } };
		return proxy.$execution?.customData;
	} catch {
		return undefined;
	}
}

const runIndexOf = (ctx: IExecuteFunctions) => (ctx as unknown as { runIndex?: number }).runIndex ?? 0;
const shareKey = (ctx: IExecuteFunctions) => `${ctx.getNode().name.slice(0, 40)}#${runIndexOf(ctx)}`;

function readShares(data: IWorkflowExecutionCustomData): Shares {
	try {
		const parsed = JSON.parse(data.get(NODES_KEY) ?? '{}') as unknown;
		return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Shares) : {};
	} catch {
		return {};
	}
}

const wholeOrZero = (v: unknown) => {
	const n = Number(v);
	return Number.isFinite(n) && n >= 0 ? n : 0;
};

export interface SpentSoFar {
	/** whole ¤ the execution's GenGateway nodes have spent, this node run's own earlier share (a retried try) left out */
	quota: number;
	/** items with no figure */
	unpriced: number;
	/** whether the record can be read at all */
	available: boolean;
	/** the execution's custom data is full without our keys: what GenGateway nodes spent before cannot be known */
	full: boolean;
}

/** What the execution has spent so far, without this node run's own share (a Retry On Fail re-run replaces it). */
export function spentSoFar(ctx: IExecuteFunctions): SpentSoFar {
	const data = customData(ctx);
	if (!data) return { quota: 0, unpriced: 0, available: false, full: false };
	const all = data.getAll();
	const own = readShares(data)[shareKey(ctx)];
	const unpriced = Object.values(readShares(data)).reduce((n, s) => n + wholeOrZero(s?.[1]), 0);
	const full = !(SPENT_KEY in all) && Object.keys(all).length >= MAX_CUSTOM_DATA_KEYS;
	return { quota: Math.max(0, wholeOrZero(all[SPENT_KEY]) - wholeOrZero(own?.[0])), unpriced: Math.max(0, unpriced - wholeOrZero(own?.[1])), available: true, full };
}

export interface RecordResult {
	/** the execution's total after this node's share */
	total: number;
	/** false: n8n did not keep the record (its custom data already holds 10 other keys, or none is available) */
	kept: boolean;
}

/** Sets this node run's share (whole ¤, and items with no figure) and the execution's total. */
export function recordSpend(ctx: IExecuteFunctions, quota: number, unpriced: number, display: DisplaySettings | undefined): RecordResult {
	const data = customData(ctx);
	const before = spentSoFar(ctx);
	const total = before.quota + quota;
	if (!data) return { total, kept: false };
	const shares = readShares(data);
	const key = shareKey(ctx);
	delete shares[key];
	shares[key] = [quota, unpriced];
	let text = JSON.stringify(shares);
	const keys = Object.keys(shares);
	// only this run's own share is needed to replace it on a retry: older ones go first when the text is too long
	while (text.length > MAX_VALUE && keys.length > 1) {
		delete shares[keys.shift()!];
		text = JSON.stringify(shares);
	}
	const unpricedTotal = before.unpriced + unpriced;
	const shown = display ? `${formatDisplay(quotaToDisplay(total, display))} (¤${total})` : `¤${total}`;
	const summary = `${shown}${unpricedTotal ? `; ${unpricedTotal} item(s) with no price not included` : ''}`;
	try {
		data.setAll({ [SPENT_KEY]: String(total), [SPENT_TEXT_KEY]: summary.slice(0, MAX_VALUE), [NODES_KEY]: text.slice(0, MAX_VALUE) });
	} catch {
		return { total, kept: false };
	}
	return { total, kept: data.get(SPENT_KEY) === String(total) };
}
