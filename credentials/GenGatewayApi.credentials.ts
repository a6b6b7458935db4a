import type { IAuthenticateGeneric, ICredentialTestRequest, ICredentialType, INodeProperties, Icon } from 'n8n-workflow';

const REDIRECT_STATUSES = [301, 302, 303, 307, 308];

function redirectMessage(status: number): string {
	return `The Base URL answered a redirect (HTTP ${status}), which was not followed: the key is only sent to the gateway origin itself. Enter the address the gateway really answers on (check http vs https, the host name and any path prefix).`;
}

export class GenGatewayApi implements ICredentialType {
	name = 'genGatewayApi';

	displayName = 'GenGateway API';

	icon: Icon = { light: 'file:../icons/genGateway.svg', dark: 'file:../icons/genGateway.dark.svg' };

	documentationUrl = 'https://www.npmjs.com/package/n8n-nodes-gen-gateway';

	properties: INodeProperties[] = [
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description: 'The key created in the gateway console. Its group decides which models it may call. It is sent only to the Base URL and Video Base URL origins.',
		},
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'https://gateway.example.com',
			description: 'The gateway origin. A trailing /v1 is accepted and removed, so /v1/... is added exactly once. No query string, fragment or user:password@.',
		},
		{
			displayName: 'Video Base URL',
			name: 'videoBaseUrl',
			type: 'string',
			default: '',
			placeholder: 'https://video.gateway.example.com',
			description: 'Optional second origin for the video endpoints. Submitting, querying and downloading a video all use the same origin and key.',
		},
	];

	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: { headers: { Authorization: '=Bearer {{$credentials.apiKey}}' } },
	};

	test: ICredentialTestRequest = {
		request: {
			// Same rule as normaliseBaseUrl: trailing slashes and trailing /v1 or /v1beta segments (any number) removed.
			baseURL: '={{$credentials.baseUrl.trim().replace(/(\\/+v1(beta)?)*\\/*$/i, "")}}',
			url: '/v1/models',
			method: 'GET',
			// The key must never follow a redirect (spec: authenticated calls are not redirected); a 3xx fails the test.
			disableFollowRedirect: true,
			sendCredentialsOnCrossOriginRedirect: false,
		},
		rules: [
			{ type: 'responseCode', properties: { value: 401, message: 'The API key is missing, invalid or expired (HTTP 401). Check the key in the gateway console.' } },
			{ type: 'responseCode', properties: { value: 403, message: 'The key is not allowed to list models (HTTP 403): its group, quota or token restriction blocks it.' } },
			...REDIRECT_STATUSES.map((value) => ({ type: 'responseCode' as const, properties: { value, message: redirectMessage(value) } })),
		],
	};
}
