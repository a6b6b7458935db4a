import {
	NodeOperationError,
	type ICredentialTestFunctions,
	type ICredentialsDecrypted,
	type IExecuteFunctions,
	type ILoadOptionsFunctions,
	type INodeCredentialTestResult,
} from 'n8n-workflow';
import { GatewayHttpError, GatewayNetworkError } from './errors';
import { exitOf } from './exit';
import { KEY_GROUP_RULE } from './rules/options';
import { loadPriceList } from './money/lookup';
import { groupRatioOf } from './money/delta';
import { BaseUrlError, composeUrl, normaliseBaseUrl, type GatewayRoot } from './transport/baseUrl';
import { GatewayTransport, type Timeouts } from './transport';

export const CREDENTIAL_TYPE = 'genGatewayApi';

export interface GatewayCredentials {
	apiKey: string;
	baseUrl: string;
	videoBaseUrl?: string;
	keyGroup?: string;
}

type Ctx = IExecuteFunctions | ILoadOptionsFunctions;

/** Reads the credential and builds the transport, refusing malformed base URLs before any request. */
export async function createTransport(
	ctx: Ctx,
	timeouts: Partial<Timeouts> = {},
): Promise<GatewayTransport> {
	const creds = (await ctx.getCredentials(CREDENTIAL_TYPE)) as unknown as GatewayCredentials;
	if (!creds.apiKey || typeof creds.apiKey !== 'string') {
		throw new NodeOperationError(ctx.getNode(), 'API Key: the credential has no key');
	}
	const base = normaliseOrExplain(ctx, creds.baseUrl, 'Base URL');
	const video =
		creds.videoBaseUrl && creds.videoBaseUrl.trim()
			? normaliseOrExplain(ctx, creds.videoBaseUrl, 'Video Base URL')
			: undefined;
	const signal = 'getExecutionCancelSignal' in ctx ? ctx.getExecutionCancelSignal() : undefined;
	const group = KEY_GROUP_RULE.schema.safeParse(creds.keyGroup);
	if (!group.success)
		throw new NodeOperationError(
			ctx.getNode(),
			`Credential Key's Group: ${group.error.issues[0]?.message ?? 'not readable'}`,
		);
	const transport = new GatewayTransport({
		apiKey: creds.apiKey.trim(),
		base,
		video,
		timeouts,
		signal,
		keyGroup: group.data,
	});
	// the exit of this node run redacts what the transport redacts
	exitOf(ctx).addSecrets(transport.redactionSecrets);
	return transport;
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

/**
 * The credential's Test button. Every node names it in `credentials: [{ testedBy }]` and carries it in
 * `methods.credentialTest`: n8n's declarative `test` request can only map a status code to a fixed text, and
 * reports a network failure as its bare code (`ECONNREFUSED`), so the test runs here, through the nodes' own
 * transport (same base URL rules, proxy, no redirects), and each failure says what is wrong and what to do.
 */
export const CREDENTIAL_TEST = 'genGatewayApiTest';

const TEST_TIMEOUT_MS = 20_000;
const ROOT_EXAMPLE = 'https://gateway.example.com';
const REACH = 'and that n8n can reach it (proxy, firewall)';

export const MESSAGE_401 =
	'The API key is missing, invalid or expired (HTTP 401). Check the key in the gateway console.';
export const MESSAGE_403 =
	'The key is not allowed to list models (HTTP 403): its group, quota or token restriction blocks it.';

export function redirectMessage(status: number): string {
	return (
		`The Base URL answered a redirect (HTTP ${status}), which was not followed: the ` +
		`key is only sent to the gateway origin itself. Enter the address the gateway ` +
		`really answers on (check http vs https, the host name and any path prefix).`
	);
}

const TLS_CODE =
	/^(CERT_|ERR_TLS_|ERR_SSL_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|EPROTO$)/;

function networkAdvice(err: GatewayNetworkError, base: GatewayRoot, timeoutMs: number): string {
	const origin = base.origin;
	const code = err.code ?? '';
	switch (code) {
		case 'ECONNREFUSED':
			return `Cannot reach ${origin}: connection refused (nothing accepts connections on that port). Check the Base URL's host and port, ${REACH}.`;
		case 'ENOTFOUND':
		case 'EAI_AGAIN':
			return (
				`Cannot reach ${origin}: the host name ${new URL(origin).hostname} does not ` +
				`resolve (${code}). Check the spelling of the Base URL's host, and the DNS n8n uses.`
			);
		case 'EHOSTUNREACH':
		case 'ENETUNREACH':
			return `Cannot reach ${origin}: no route to the host (${code}). Check the Base URL's host, ${REACH}.`;
		case 'TIMEOUT':
		case 'UND_ERR_CONNECT_TIMEOUT':
			return `No answer from ${origin} within ${Math.ceil(timeoutMs / 1000)} s. Check the Base URL's host and port, ${REACH}.`;
		case 'ECONNRESET':
		case 'UND_ERR_SOCKET':
		case 'UND_ERR_CLOSED':
			return (
				`${origin} closed the connection without an HTTP answer (${code}). Check http ` +
				`vs https and the port in the Base URL, and any proxy between n8n and the gateway.`
			);
		case 'BAD_JSON':
			return (
				`${composeUrl(base, '/v1/models')} answered, but not with JSON (a web page?): ` +
				`that address is not the gateway's API. The Base URL must be the gateway's root ` +
				`(for example ${ROOT_EXAMPLE}).`
			);
	}
	if (TLS_CODE.test(code) || code.startsWith('HPE_')) {
		return (
			`The connection to ${origin} failed (${code}). Check http vs https in the Base ` +
			`URL; for a self-signed or private certificate, give n8n its CA ` +
			`(NODE_EXTRA_CA_CERTS).`
		);
	}
	return `Cannot reach ${origin}: ${err.message}. Check the Base URL's host and port, ${REACH}.`;
}

function httpAdvice(err: GatewayHttpError, base: GatewayRoot): string {
	const url = composeUrl(base, '/v1/models');
	const status = err.status;
	if (status === 401) return MESSAGE_401;
	if (status === 403) return MESSAGE_403;
	if (status >= 300 && status < 400) return redirectMessage(status);
	if (status === 404) {
		const prefix = base.root.slice(base.origin.length);
		return prefix
			? `HTTP 404 at ${url}: the Base URL must be the gateway's root, without /v1 or ` +
					`another path. Try ${base.origin} (keep ${prefix} only if the gateway really is mounted there).`
			: `HTTP 404 at ${url}: the server at ${base.origin} has no gateway API. The Base ` +
					`URL must be the gateway's root (for example ${ROOT_EXAMPLE}): check the host and port.`;
	}
	if (status === 429)
		return `The gateway is rate-limiting this key (HTTP 429): the address and the key reached it. Try the test again in a moment.`;
	if (status >= 500)
		return (
			`HTTP ${status} at ${url}: ${err.gatewayMessage}. The gateway, or a proxy in ` +
			`front of it, has a problem: try again later, and check the Base URL if a proxy answers for it.`
		);
	return `HTTP ${status} at ${url}: ${err.gatewayMessage}. Check that the Base URL is the gateway's root (for example ${ROOT_EXAMPLE}) and the key.`;
}

/** Checks the credential's fields, then lists the key's models (GET /v1/models) once, without retries. */
export async function checkGatewayCredential(
	data: Partial<GatewayCredentials>,
	timeoutMs = TEST_TIMEOUT_MS,
): Promise<INodeCredentialTestResult> {
	const apiKey = typeof data.apiKey === 'string' ? data.apiKey.trim() : '';
	if (!apiKey)
		return {
			status: 'Error',
			message: 'The API Key is empty. Paste the key created in the gateway console.',
		};
	let base: GatewayRoot;
	let video: GatewayRoot | undefined;
	try {
		base = normaliseBaseUrl(data.baseUrl, 'Base URL');
		video =
			typeof data.videoBaseUrl === 'string' && data.videoBaseUrl.trim()
				? normaliseBaseUrl(data.videoBaseUrl, 'Video Base URL')
				: undefined;
	} catch (err) {
		const message = err instanceof BaseUrlError ? err.message : String(err);
		return {
			status: 'Error',
			message: `${message}. Enter only the gateway's root address (for example ${ROOT_EXAMPLE}).`,
		};
	}
	const group = KEY_GROUP_RULE.schema.safeParse(data.keyGroup);
	if (!group.success)
		return {
			status: 'Error',
			message: `Key's Group ${group.error.issues[0]?.message ?? 'is not readable'}.`,
		};
	const transport = new GatewayTransport({ apiKey, base, video, timeouts: { query: timeoutMs } });
	try {
		await transport.getJson('/v1/models', { maxAttempts: 1 });
	} catch (err) {
		let message: string;
		if (err instanceof GatewayHttpError) message = httpAdvice(err, base);
		else if (err instanceof GatewayNetworkError) message = networkAdvice(err, base, timeoutMs);
		else message = `The test request failed: ${err instanceof Error ? err.message : String(err)}`;
		return { status: 'Error', message: transport.redact(message) };
	}
	const said = await keyGroupSaid(transport, group.data);
	if (said.error) return { status: 'Error', message: transport.redact(said.error) };
	return { status: 'OK', message: transport.redact(`Connection successful! ${said.text}`) };
}

/** What the test says of the Key's Group: which one the costs use, or why a name cannot be used. */
async function keyGroupSaid(
	transport: GatewayTransport,
	g: { ratio: number } | { groupName: string } | undefined,
): Promise<{ text: string; error?: string }> {
	if (!g)
		return {
			text:
				"Key's Group is not set: every cost is a range from the lowest to the highest " +
				"public group until it is (or a node's Group Name or Group Multiplier says it).",
		};
	if ('ratio' in g) return { text: `Key's Group: multiplier ${g.ratio}; every cost counts it.` };
	let groups: Record<string, unknown>;
	try {
		groups = (await loadPriceList(transport, { budgetMs: 5_000 })).group_ratio;
	} catch (err) {
		return {
			text: `Key's Group: ${g.groupName} (the public price list could not be read to check it: ${(err as Error).message}).`,
		};
	}
	const ratio = groupRatioOf(groups, g.groupName);
	if (ratio !== undefined && ratio > 0)
		return { text: `Key's Group: ${g.groupName}, public ratio ${ratio}; every cost counts it.` };
	return {
		text: '',
		error:
			`Key's Group "${g.groupName}" has no positive ratio in the gateway's public ` +
			`price list (groups: ${Object.keys(groups).join(', ') || 'none'}). Enter the ` +
			`group the gateway console shows for the key, or its multiplier (e.g. 1.5).`,
	};
}

export async function testGatewayCredential(
	this: ICredentialTestFunctions,
	credential: ICredentialsDecrypted,
): Promise<INodeCredentialTestResult> {
	return await checkGatewayCredential((credential.data ?? {}) as Partial<GatewayCredentials>);
}

/** `methods.credentialTest` of every node */
export const credentialTest = { [CREDENTIAL_TEST]: testGatewayCredential };
