/**
 * Where the money is spent. The item pipeline sends each paid request inside a spend scope; the transport marks the
 * scope the moment a paid request leaves, and names the one error that proves the gateway created nothing (a
 * definite rejection, or a request that provably never left). Whatever else happens in the scope after the request
 * left — parsing, shape checks, a bug — the item counts as spent: only the transport can say "nothing was created",
 * and only for the error it made itself.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export interface SpendRecord {
	/** a paid request left (its outcome may be unknown) */
	dispatched: boolean;
	/** the error of the transport that proves nothing was created */
	rejection?: unknown;
}

const scope = new AsyncLocalStorage<SpendRecord>();

export function withinSpendScope<T>(fn: () => Promise<T>): {
	record: SpendRecord;
	result: Promise<T>;
} {
	const record: SpendRecord = { dispatched: false };
	return { record, result: scope.run(record, fn) };
}

/** Called by the transport right before a paid request is handed to the network. */
export function markDispatched(): void {
	const r = scope.getStore();
	if (r) {
		r.dispatched = true;
		r.rejection = undefined;
	}
}

/** Called by the transport with the error it throws when the gateway certainly created nothing. */
export function markRejected<E>(err: E): E {
	const r = scope.getStore();
	if (r) r.rejection = err;
	return err;
}

/** Whether an error thrown inside the scope leaves the item unspent. */
export function nothingCreated(record: SpendRecord, err: unknown): boolean {
	return !record.dispatched || (record.rejection !== undefined && record.rejection === err);
}
