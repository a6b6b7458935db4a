import { NodeOperationError, type IExecuteFunctions, type ILoadOptionsFunctions } from 'n8n-workflow';
import { BaseUrlError, normaliseBaseUrl } from './transport/baseUrl';
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
	try {
		const base = normaliseBaseUrl(creds.baseUrl, 'Base URL');
		const video = creds.videoBaseUrl && creds.videoBaseUrl.trim() ? normaliseBaseUrl(creds.videoBaseUrl, 'Video Base URL') : undefined;
		const signal = 'getExecutionCancelSignal' in ctx ? ctx.getExecutionCancelSignal() : undefined;
		return new GatewayTransport({ apiKey: creds.apiKey.trim(), base, video, timeouts, signal });
	} catch (err) {
		if (err instanceof BaseUrlError) throw new NodeOperationError(ctx.getNode(), `Credential ${err.message}`);
		throw err;
	}
}
