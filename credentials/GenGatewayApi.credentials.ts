import type { IAuthenticateGeneric, ICredentialType, INodeProperties, Icon } from 'n8n-workflow';

/** The Test button runs `genGatewayApiTest`, which every node carries (nodes/shared/credentials.ts). */
export class GenGatewayApi implements ICredentialType {
	name = 'genGatewayApi';

	displayName = 'GenGateway API';

	icon: Icon = { light: 'file:../icons/genGateway.svg', dark: 'file:../icons/genGateway.dark.svg' };

	documentationUrl =
		'https://github.com/gen-gateway/n8n-nodes-gen-gateway#gengateway-api-credential';

	properties: INodeProperties[] = [
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description:
				'The key created in the gateway console. Its group decides which models it may call. It is sent only to the Base URL and Video Base URL origins.',
		},
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'https://gateway.example.com',
			description:
				'The gateway origin. A trailing /v1 is accepted and removed, so /v1/... is added exactly once. No query string, fragment or user:password@.',
		},
		{
			displayName: 'Video Base URL',
			name: 'videoBaseUrl',
			type: 'string',
			default: '',
			placeholder: 'https://video.gateway.example.com',
			description:
				'Optional second origin for the video endpoints. Submitting, querying and downloading a video all use the same origin and key.',
		},
		{
			displayName: "Key's Group",
			name: 'keyGroup',
			type: 'string',
			default: '',
			placeholder: 'e.g. vip, or 1.5',
			description:
				"The group your key is in, by name (e.g. vip) or as its multiplier (e.g. 1.5), as the gateway console shows it. Every node's cost and Max Expected Spend are then exact instead of a range, and Pricing lists prices at it. A node's own Group Name or Group Multiplier still overrides it. Empty: costs are a range from the lowest to the highest public group.",
		},
	];

	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: { headers: { Authorization: '=Bearer {{$credentials.apiKey}}' } },
	};
}
