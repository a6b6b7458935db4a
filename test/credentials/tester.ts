/**
 * n8n's credential test, in-process: the same steps as `CredentialsTester.runRequestTest` of n8n 2.41.1
 * (packages/cli/src/services/credentials-tester.service.ts): a throw-away node whose only property routes the
 * credential's `test.request`, run by n8n-core's RoutingNode with the decrypted credential, the generic
 * `authenticate` headers applied the way n8n's CredentialsHelper applies them, and the same verdict (the rules
 * of `test.rules` for an error response, "Connection successful!" otherwise).
 */
import 'reflect-metadata';
import { ExecuteContext, RoutingNode } from 'n8n-core';
import {
	Expression,
	NodeHelpers,
	Workflow,
	createRunExecutionData,
	type ICredentialDataDecryptedObject,
	type ICredentialsDecrypted,
	type IHttpRequestOptions,
	type INode,
	type INodeType,
	type INodeTypes,
	type IWorkflowExecuteAdditionalData,
} from 'n8n-workflow';
import { GenGatewayApi } from '../../credentials/GenGatewayApi.credentials';

export interface TestVerdict {
	status: 'OK' | 'Error';
	message: string;
}

const cred = new GenGatewayApi();

/** What n8n's CredentialsHelper.authenticate does for `type: 'generic'`: each expression resolved with $credentials. */
function applyGenericAuth(data: ICredentialDataDecryptedObject, options: IHttpRequestOptions): IHttpRequestOptions {
	const auth = cred.authenticate as { type: string; properties: Record<string, Record<string, string>> };
	const out = { ...options } as unknown as Record<string, Record<string, unknown>>;
	for (const [outer, entries] of Object.entries(auth.properties)) {
		out[outer] = { ...(out[outer] ?? {}) };
		for (const [k, v] of Object.entries(entries)) {
			const value = v.startsWith('=') ? Expression.resolveWithoutWorkflow(v.slice(1), { $credentials: data }) : v;
			out[outer][k] = value;
		}
	}
	return out as unknown as IHttpRequestOptions;
}

export async function testCredential(data: { apiKey: string; baseUrl: string; videoBaseUrl?: string }): Promise<TestVerdict> {
	const nodeType: INodeType = {
		description: {
			displayName: 'Temp',
			name: 'temp',
			group: ['transform'],
			version: 1,
			description: '',
			defaults: {},
			inputs: ['main'],
			outputs: ['main'],
			credentials: [{ name: cred.name, required: true }],
			properties: [{ displayName: 'Temp', name: 'temp', type: 'string', default: '', routing: { request: cred.test.request as never } }],
		},
	};
	const node: INode = { id: 'temp', parameters: {}, name: 'Temp-Node', type: 'temp', typeVersion: 1, position: [0, 0], credentials: { [cred.name]: { id: '1', name: 'test' } } };
	const nodeTypes: INodeTypes = {
		getByName: () => nodeType,
		getByNameAndVersion: () => NodeHelpers.getVersionedNodeType(nodeType, 1) as INodeType,
		getKnownTypes: () => ({}),
	};
	const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes });
	const decrypted: ICredentialsDecrypted = { id: '1', name: 'test', type: cred.name, data: data as unknown as ICredentialDataDecryptedObject };
	const additionalData = {
		credentialsHelper: {
			getParentTypes: () => [],
			preAuthentication: async () => undefined,
			authenticate: async (creds: ICredentialDataDecryptedObject, _type: string, options: IHttpRequestOptions) => applyGenericAuth(creds, options),
			getDecrypted: async () => decrypted.data,
		},
		executionId: 'cred-test',
		restApiUrl: 'http://localhost/rest',
		instanceBaseUrl: 'http://localhost/',
		webhookBaseUrl: 'http://localhost/webhook',
		webhookWaitingBaseUrl: 'http://localhost/webhook-waiting',
		webhookTestBaseUrl: 'http://localhost/webhook-test',
		formWaitingBaseUrl: 'http://localhost/form-waiting',
		variables: {},
	} as unknown as IWorkflowExecuteAdditionalData;
	const inputData = { main: [[{ json: {} }]] };
	const ctx = new ExecuteContext(workflow, node, additionalData, 'internal', createRunExecutionData(), 0, [], inputData, { node, data: {}, source: null }, []);
	const routing = new RoutingNode(ctx, nodeType, decrypted);
	try {
		await routing.runNode();
	} catch (err) {
		const error = err as { message: string; cause?: { code?: string; response?: { status: number; statusText?: string } } };
		if (error.cause?.response) {
			const statusCode = error.cause.response.status;
			for (const rule of cred.test.rules ?? []) {
				if (rule.type === 'responseCode' && statusCode === rule.properties.value) return { status: 'Error', message: rule.properties.message };
			}
			if (statusCode < 199 || statusCode > 299) return { status: 'Error', message: error.cause.response.statusText || `Received HTTP status code: ${statusCode}` };
		} else if (error.cause?.code) {
			return { status: 'Error', message: error.cause.code };
		}
		return { status: 'Error', message: String(error.message) };
	}
	return { status: 'OK', message: 'Connection successful!' };
}
