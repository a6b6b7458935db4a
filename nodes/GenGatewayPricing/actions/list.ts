/** What Get Prices and List My Models share: a list read once per run, and the display currency's notes. */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { exitOf } from '../../shared/exit';
import type { DisplaySettings } from '../../shared/money/prices';
import type { FreeOperation } from '../../shared/runners/free';

export interface OperationResult {
	items: IDataObject[];
	hints: string[];
}

export function displayHints(display: DisplaySettings): string[] {
	return (display.notes ?? []).map((n) => `Display currency: ${n}`);
}

/** A list that does not depend on the input item: read once (first item), its rows paired to that item. */
export function listOperation(
	ctx: IExecuteFunctions,
	read: (i: number) => Promise<OperationResult>,
): FreeOperation<null> {
	return {
		firstItemOnly: true,
		check: () => null,
		async run(_, i) {
			const res = await read(i);
			for (const message of new Set(res.hints)) exitOf(ctx).hint(message);
			return res.items.map((json) => ({ item: { json } }));
		},
	};
}
