/**
 * Every node's way in and out: `runNode` (a node's `execute`), `runSupply` (the Chat Model's `supplyData`) and
 * `runMethod` (list searches) open the node run's Exit, and whatever the work returns or throws leaves through it.
 * Code deep inside a node run reaches the same Exit with `exitOf(ctx)` (hints, chat chunks, binary data).
 */
import type { INodeExecutionData } from 'n8n-workflow';
import { Exit, type ExitContext } from './exit';

export { ChatOut, Exit, type ExitContext, type HintType } from './exit';

const exits = new WeakMap<object, Exit>();

const CREDENTIAL_TYPE = 'genGatewayApi';

/** The Exit of this node run (one per n8n context object). */
export function exitOf(ctx: ExitContext): Exit {
	let exit = exits.get(ctx);
	if (!exit) exits.set(ctx, (exit = new Exit(ctx)));
	return exit;
}

interface CredentialReader {
	getCredentials?(type: string, itemIndex?: number): Promise<unknown>;
}

/** Reads the credential's key so that even an error before any request is redacted of it. Never throws. */
async function withKey(ctx: ExitContext & CredentialReader): Promise<Exit> {
	const exit = exitOf(ctx);
	try {
		const creds = (await ctx.getCredentials?.(CREDENTIAL_TYPE)) as { apiKey?: unknown } | undefined;
		if (typeof creds?.apiKey === 'string') exit.addSecrets([creds.apiKey, creds.apiKey.trim()]);
	} catch {
		// no credential (yet): the node's own work says so
	}
	return exit;
}

/**
 * A node's `execute`: its items and its errors leave through the Exit. `continueOnFail` is the node's own
 * `() => this.continueOnFail()` (where n8n's lint rule wants the call); the runners read the error setting through
 * the Exit (`exit.continueOnFail()`), never from the context.
 */
export async function runNode(
	ctx: ExitContext & CredentialReader,
	work: (exit: Exit) => Promise<INodeExecutionData[][]>,
	continueOnFail: () => boolean,
): Promise<INodeExecutionData[][]> {
	const exit = await withKey(ctx);
	exit.readOnError(continueOnFail);
	let outputs: INodeExecutionData[][];
	try {
		outputs = await work(exit);
	} catch (err) {
		throw exit.error(err, itemIndexOf(err));
	}
	return exit.items(outputs);
}

/** A sub-node's `supplyData` or a method (list search, credential test): its result and its errors leave through the Exit. */
export async function runSupply<T>(
	ctx: ExitContext & CredentialReader,
	work: (exit: Exit) => Promise<T>,
	redactResult = true,
): Promise<T> {
	const exit = await withKey(ctx);
	try {
		const result = await work(exit);
		return redactResult ? exit.value(result) : result;
	} catch (err) {
		throw exit.error(err, itemIndexOf(err));
	}
}

function itemIndexOf(err: unknown): number {
	const ctx = (err as { context?: { itemIndex?: unknown } })?.context;
	return typeof ctx?.itemIndex === 'number' ? ctx.itemIndex : 0;
}
