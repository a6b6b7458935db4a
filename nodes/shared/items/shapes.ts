/**
 * The builders of every item shape the nodes emit. A node gives its own fields; the builder adds the contract's:
 * `status` (ours), `gateway_status` (the gateway's word, or null), and the fields that shape always carries. The exit
 * shows the gateway's words in the node version's shape (`shownForVersion`): one `gateway` object from
 * GATEWAY_OBJECT_SINCE on.
 */
import type { IDataObject } from 'n8n-workflow';
import {
	GATEWAY_FLAT_WORDS,
	GATEWAY_OBJECT,
	GATEWAY_OBJECT_SINCE,
	ITEM_STATUSES,
	STATE_FIELDS,
	STATE_WORDS,
	UNCERTAIN_NOTE,
	type FailedAt,
	type ItemStatus,
} from './vocabulary';

const word = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

function shaped(status: ItemStatus, fields: IDataObject, extra: IDataObject = {}): IDataObject {
	return withoutForeignWords({ status, ...fields, ...extra });
}

/**
 * A task the gateway accepted: `status` (ours) and `gateway_status` (the gateway's word), and `gateway_state` only where
 * the gateway sent a second word (an image task's `state`). The old name `state` is gone since 0.2.0 (see CHANGELOG).
 */
export function submittedItem(
	fields: IDataObject,
	gateway: { status?: unknown; state?: unknown },
): IDataObject {
	const state = word(gateway.state);
	return shaped('submitted', fields, {
		gateway_status: word(gateway.status),
		...(state === null ? {} : { gateway_state: state }),
		submission_uncertain: false,
	});
}

/** A request whose outcome is unknown: it may have been accepted and billed; never resent. */
export function uncertainItem(fields: IDataObject, reason: string): IDataObject {
	return shaped('uncertain', fields, { submission_uncertain: true, reason, note: UNCERTAIN_NOTE });
}

export function completedItem(fields: IDataObject, gatewayStatus?: unknown): IDataObject {
	return shaped(
		'completed',
		fields,
		gatewayStatus === undefined ? {} : { gateway_status: word(gatewayStatus) },
	);
}

export function runningItem(
	fields: IDataObject,
	gatewayStatus: unknown,
	extra: IDataObject,
): IDataObject {
	return shaped('running', fields, { gateway_status: word(gatewayStatus), ...extra });
}

/** Quote Only: the item checked and priced (its `cost`), nothing sent. */
export function quotedItem(fields: IDataObject): IDataObject {
	return shaped('quoted', fields);
}

/** A failed item on a regular output (Task Wait's Failed output, a paid node's failure under Continue). */
export function failedItem(
	fields: IDataObject,
	failedAt: FailedAt,
	extra: IDataObject,
): IDataObject {
	// README: "`error_message` is always there" — on a task's failure too, where `error` holds the same words
	const message =
		extra.error_message === undefined && typeof extra.error === 'string'
			? { error_message: extra.error }
			: {};
	return shaped('failed', fields, { failed_at: failedAt, ...message, ...extra });
}

/**
 * An input item's fields without the package's state words (STATE_WORDS): what Keep Input Fields carries into a new
 * state. The user's own fields and the facts (task_id, model, cost …) stay; the words of the state the item was in go.
 */
export function userFields(json: IDataObject): IDataObject {
	const out: IDataObject = {};
	for (const [k, v] of Object.entries(json)) if (!STATE_WORDS.has(k)) out[k] = v;
	return out;
}

/**
 * The contract's last guard (applied by the exit to every item): an item whose `status` is one of ours carries no
 * state word another state owns. Items without one of our statuses (n8n's error items, Pricing rows) are left alone.
 */
export function withoutForeignWords(json: IDataObject): IDataObject {
	const status = json.status;
	if (typeof status !== 'string' || !Object.prototype.hasOwnProperty.call(ITEM_STATUSES, status))
		return json;
	const own = new Set<string>(['status', ...STATE_FIELDS[status as ItemStatus]]);
	let out: IDataObject | undefined;
	for (const k of Object.keys(json)) {
		if (STATE_WORDS.has(k) && !own.has(k)) {
			out ??= { ...json };
			delete out[k];
		}
	}
	if (status !== 'uncertain' && (out ?? json).submission_uncertain === true) {
		out ??= { ...json };
		delete out.submission_uncertain;
	}
	return out ?? json;
}

/**
 * The spec: "n>1 can partially fail without full failure hints". Fewer images than asked stay a success (they were
 * paid for and are kept) that says how many are missing.
 */
export function partialImagesWarning(
	expected: number | undefined,
	received: number,
): { images_expected?: number; images_received?: number; warning?: string } {
	if (expected === undefined || !Number.isInteger(expected) || expected <= received) return {};
	return {
		images_expected: expected,
		images_received: received,
		warning:
			`${received} of ${expected} images arrived (n = ${expected}): the gateway ` +
			`completed the request with ${expected - received} missing. The missing images ` +
			`may still have been charged: check the usage records before asking again.`,
	};
}

/** Whether a node of this type and version shows the gateway's words in one object (GATEWAY_OBJECT_SINCE). */
export function showsGatewayObject(nodeType: string, version: number): boolean {
	const name = nodeType.slice(nodeType.lastIndexOf('.') + 1);
	const since = (GATEWAY_OBJECT_SINCE as Readonly<Record<string, number>>)[name];
	return since !== undefined && version >= since;
}

/**
 * An item as its node version shows it. Up to a node's GATEWAY_OBJECT_SINCE the item is as built (`gateway_status`,
 * `gateway_state` beside `status`); from it on the gateway's words are one object in the first one's place:
 * `gateway: { status, state? }` — `status` null where the item's state knows none, `state` only where the gateway
 * sent one. The same in an error output item's `error` object, which carries the item's facts.
 */
export function shownForVersion(json: IDataObject, nodeType: string, version: number): IDataObject {
	if (!showsGatewayObject(nodeType, version)) return json;
	const inner = json.error;
	if (json.status === undefined && inner && typeof inner === 'object' && !Array.isArray(inner)) {
		const error = gatewayObjectOf(inner as IDataObject);
		return error === inner ? json : { ...json, error };
	}
	return gatewayObjectOf(json);
}

function gatewayObjectOf(json: IDataObject): IDataObject {
	const flat = Object.keys(GATEWAY_FLAT_WORDS) as Array<keyof typeof GATEWAY_FLAT_WORDS>;
	if (!flat.some((k) => Object.prototype.hasOwnProperty.call(json, k))) return json;
	const gateway: IDataObject = { status: json.gateway_status ?? null };
	if (json.gateway_state !== undefined)
		gateway[GATEWAY_FLAT_WORDS.gateway_state] = json.gateway_state;
	const out: IDataObject = {};
	for (const [k, v] of Object.entries(json)) {
		if ((flat as string[]).includes(k)) {
			if (!(GATEWAY_OBJECT in out)) out[GATEWAY_OBJECT] = gateway;
		} else out[k] = v;
	}
	return out;
}
