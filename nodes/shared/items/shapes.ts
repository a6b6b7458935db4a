/**
 * The builders of every item shape the nodes emit. A node gives its own fields; the builder adds the contract's:
 * `status` (ours), `gateway_status` (the gateway's word, or null), and the fields that shape always carries.
 */
import type { IDataObject } from 'n8n-workflow';
import { UNCERTAIN_NOTE, type FailedAt, type ItemStatus } from './vocabulary';

const word = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

function shaped(status: ItemStatus, fields: IDataObject, extra: IDataObject = {}): IDataObject {
	return { status, ...fields, ...extra };
}

/**
 * A task the gateway accepted. `gateway_state` is an image task's second status word; until 0.3.0 it is also kept
 * under its old name `state` (see CHANGELOG).
 */
export function submittedItem(fields: IDataObject, gateway: { status?: unknown; state?: unknown }): IDataObject {
	const state = gateway.state === undefined ? undefined : word(gateway.state);
	return shaped('submitted', fields, { gateway_status: word(gateway.status), ...(state === undefined ? {} : { gateway_state: state, state }), submission_uncertain: false });
}

/** A request whose outcome is unknown: it may have been accepted and billed; never resent. */
export function uncertainItem(fields: IDataObject, reason: string): IDataObject {
	return shaped('uncertain', fields, { submission_uncertain: true, reason, note: UNCERTAIN_NOTE });
}

export function completedItem(fields: IDataObject, gatewayStatus?: unknown): IDataObject {
	return shaped('completed', fields, gatewayStatus === undefined ? {} : { gateway_status: word(gatewayStatus) });
}

export function runningItem(fields: IDataObject, gatewayStatus: unknown, extra: IDataObject): IDataObject {
	return shaped('running', fields, { gateway_status: word(gatewayStatus), ...extra });
}

/** A failed item on a regular output (Task Wait's Failed output, a paid node's failure under Continue). */
export function failedItem(fields: IDataObject, failedAt: FailedAt, extra: IDataObject): IDataObject {
	return shaped('failed', fields, { failed_at: failedAt, ...extra });
}

/** Words kept in an input item that a later state contradicts: Task Wait drops them when it keeps input fields. */
export const SUPERSEDED_FIELDS = ['error', 'state', 'gateway_state'] as const;
