/**
 * n8n's credential test, in-process: the steps of `CredentialsTester.testCredentials` of n8n 2.41.1
 * (packages/cli/src/services/credentials-tester.service.ts) for a credential without a declarative `test`:
 * `getCredentialTestFunction` looks through the nodes that use the credential for a `testedBy` name, takes that
 * node's `methods.credentialTest[testedBy]`, and calls it with a CredentialTestContext and the decrypted credential.
 */
import 'reflect-metadata';
import { join, resolve } from 'node:path';
import { CredentialTestContext } from 'n8n-core';
import type {
	ICredentialDataDecryptedObject,
	ICredentialTestFunction,
	ICredentialsDecrypted,
	INodeCredentialTestResult,
	INodeType,
} from 'n8n-workflow';
import { GenGatewayApi } from '../../credentials/GenGatewayApi.credentials';

export type TestVerdict = INodeCredentialTestResult;

const ROOT = resolve(__dirname, '../..');
export const NODE_CLASSES = [
	'GenGatewayImageSubmit',
	'GenGatewayTaskWait',
	'GenGatewayVideoCreate',
	'GenGatewayDownloadResult',
	'GenGatewayChat',
	'GenGatewayResponses',
	'GenGatewayPricing',
];

export const cred = new GenGatewayApi();

export function loadNode(cls: string): INodeType {
	const mod = require(join(ROOT, 'nodes', cls, `${cls}.node.ts`)) as Record<
		string,
		new () => INodeType
	>;
	return new mod[cls]();
}

/** What n8n 2.41.1's getCredentialTestFunction returns for the credential, given the nodes that use it. */
export function credentialTestFunction(
	nodes: INodeType[] = NODE_CLASSES.map(loadNode),
): ICredentialTestFunction | 'declarative' | undefined {
	if ((cred as unknown as { test?: unknown }).test) return 'declarative';
	for (const node of nodes) {
		for (const { name, testedBy } of node.description.credentials ?? []) {
			if (name === cred.name && typeof testedBy === 'string')
				return node.methods?.credentialTest?.[testedBy];
		}
	}
	return undefined;
}

export async function testCredential(data: {
	apiKey: string;
	baseUrl: string;
	videoBaseUrl?: string;
}): Promise<TestVerdict> {
	const fn = credentialTestFunction();
	if (typeof fn !== 'function')
		throw new Error(`n8n would find no credential test function (${String(fn)})`);
	const decrypted: ICredentialsDecrypted = {
		id: '1',
		name: 'test',
		type: cred.name,
		data: data as unknown as ICredentialDataDecryptedObject,
	};
	return await fn.call(new CredentialTestContext(), decrypted);
}
