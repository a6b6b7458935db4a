import { NodeOperationError, type IExecuteFunctions, type ILoadOptionsFunctions } from 'n8n-workflow';
import { BaseUrlError, normaliseBaseUrl, type GatewayRoot } from './transport/baseUrl';
import { GatewayTransport, type Timeouts } from './transport/http';

export const CREDENTIAL_TYPE = 'genGatewayApi';

export interface GatewayCredentials {
	apiKey: string;
	baseUrl: string;
	videoBaseUrl?: string;
}

type Ctx = IExecuteFunctions | ILoadOptionsFunctions;

/** Reads the credential and builds the transport, refusing malformed base URLs before any request. */
export async function createTransport(ctx: Ctx, timeouts: Partial<Timeouts> = {}): Promise<GatewayTransport> {
	const creds = (await ctx.getCredentials(CREDENTIAL_TYPE)) as unknown as GatewayCredentials;
	if (!creds.apiKey || typeof creds.apiKey !== 'string') {
		throw new NodeOperationError(ctx.getNode(), 'API Key: the credential has no key');
	}
	const base = normaliseOrExplain(ctx, creds.baseUrl, 'Base URL');
	const video = creds.videoBaseUrl && creds.videoBaseUrl.trim() ? normaliseOrExplain(ctx, creds.videoBaseUrl, 'Video Base URL') : undefined;
	const signal = 'getExecutionCancelSignal' in ctx ? ctx.getExecutionCancelSignal() : undefined;
	return new GatewayTransport({ apiKey: creds.apiKey.trim(), base, video, timeouts, signal });
}

function normaliseOrExplain(ctx: Ctx, raw: unknown, field: string): GatewayRoot {
	let problem: string | undefined;
	let root: GatewayRoot | undefined;
	try {
		root = normaliseBaseUrl(raw, field);
	} catch (err) {
		problem = err instanceof BaseUrlError ? err.message : String(err);
	}
	if (!root) throw new NodeOperationError(ctx.getNode(), `Credential ${problem}`);
	return root;
}
