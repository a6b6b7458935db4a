/**
 * A chain of nodes run in n8n-core's WorkflowExecute (n8n-workflow's Workflow, n8n's BinaryDataService in filesystem
 * mode), the way n8n runs a workflow, for the benchmarks: the first node gets the input items, output 0 of each node
 * feeds the next, and the credential is handed over as n8n would decrypt it. The benchmarks' own, narrower than the
 * tests' harness (test/harness/workflow.ts: cancellation, streaming, Retry On Fail, tools), so no bench imports test code.
 */
import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Container } from '@n8n/di';
import {
	BinaryDataService,
	ExecutionLifecycleHooks,
	WorkflowExecute,
	type BinaryDataConfig,
} from 'n8n-core';
import {
	ICredentialsHelper,
	NodeHelpers,
	Workflow,
	createRunExecutionData,
	type ICredentialDataDecryptedObject,
	type IConnections,
	type INode,
	type INodeExecutionData,
	type INodeType,
	type INodeTypes,
	type IWorkflowExecuteAdditionalData,
} from 'n8n-workflow';

export interface ChainNode {
	name: string;
	type: INodeType;
	parameters: Record<string, unknown>;
}

export interface ChainResult {
	/** the workflow's error message, when it failed */
	error?: string;
	/** items of output `output` (default 0) of the last run of node `name` */
	output(name: string, output?: number): INodeExecutionData[];
}

class ChainNodeTypes implements INodeTypes {
	constructor(private readonly types: Record<string, INodeType>) {}
	getByName(name: string) {
		return this.types[name];
	}
	getByNameAndVersion(name: string, version?: number): INodeType {
		const t = this.types[name];
		if (!t) throw new Error(`Unknown node type ${name}`);
		return NodeHelpers.getVersionedNodeType(t, version);
	}
	getKnownTypes() {
		return {};
	}
}

/** Hands every node the one credential, decrypted (what n8n's credentials helper does after reading its database). */
class OneCredential extends ICredentialsHelper {
	constructor(
		private readonly type: string,
		private readonly data: ICredentialDataDecryptedObject,
	) {
		super();
	}
	getParentTypes() {
		return [];
	}
	async authenticate(_c: ICredentialDataDecryptedObject, _t: string, requestOptions: never) {
		return requestOptions;
	}
	async preAuthentication() {
		return undefined;
	}
	async runPreAuthentication(): Promise<never> {
		throw new Error('not used');
	}
	async getCredentials(): Promise<never> {
		throw new Error('not used');
	}
	async getDecrypted(_a: IWorkflowExecuteAdditionalData, _n: unknown, type: string) {
		if (type !== this.type) throw new Error(`No credential of type ${type}`);
		return this.data;
	}
	async updateCredentials() {}
	async updateCredentialsOauthTokenData() {}
	getCredentialsProperties() {
		return [];
	}
	isCredentialUsableByNode() {
		return true;
	}
}

let binaryDir: string | undefined;

/** n8n's binary-data store in filesystem mode, in a temporary folder, once per process. */
async function binaryStore(): Promise<void> {
	if (binaryDir) return;
	binaryDir = mkdtempSync(join(tmpdir(), 'gg-bench-binary-'));
	const config = {
		mode: 'filesystem',
		availableModes: ['filesystem'],
		localStoragePath: binaryDir,
		signingSecret: 'bench-secret',
		dbMaxFileSize: 512,
	} as unknown as BinaryDataConfig;
	const noop = () => {};
	const logger = {
		error: noop,
		warn: noop,
		info: noop,
		debug: noop,
		scoped: () => logger,
	} as never;
	const svc = new BinaryDataService(config, { error: noop } as never, logger);
	await svc.init();
	Container.set(BinaryDataService, svc);
}

/** Removes the binary-data store and what the runs put in it. */
export function removeBinaryStore(): void {
	if (binaryDir) rmSync(binaryDir, { recursive: true, force: true });
	binaryDir = undefined;
}

let runs = 0;

/** Runs `nodes` as a chain on `input`, with the credential of type `credential.type`. */
export async function runChain(
	nodes: ChainNode[],
	input: INodeExecutionData[],
	credential: { type: string; data: Record<string, unknown> },
): Promise<ChainResult> {
	await binaryStore();
	const types: Record<string, INodeType> = {};
	const wfNodes: INode[] = nodes.map((n, k) => {
		const typeName = `bench.${n.type.description.name}`;
		types[typeName] = n.type;
		const version = n.type.description.version;
		return {
			id: `node-${k}`,
			name: n.name,
			type: typeName,
			typeVersion: Array.isArray(version) ? Math.max(...version) : version,
			position: [k * 200, 0],
			parameters: n.parameters as INode['parameters'],
			credentials: Object.fromEntries(
				(n.type.description.credentials ?? []).map((c) => [c.name, { id: '1', name: 'bench' }]),
			),
		};
	});
	const connections: IConnections = {};
	for (let k = 0; k + 1 < wfNodes.length; k++)
		connections[wfNodes[k].name] = {
			main: [[{ node: wfNodes[k + 1].name, type: 'main', index: 0 }]],
		};
	const id = `bench${++runs}`;
	const workflow = new Workflow({
		id,
		name: id,
		nodes: wfNodes,
		connections,
		nodeTypes: new ChainNodeTypes(types),
		active: false,
		settings: { executionOrder: 'v1' },
	});
	const hooks = new ExecutionLifecycleHooks('manual', `${id}-run`, {
		id,
		name: id,
		nodes: wfNodes,
		connections,
		active: false,
		settings: {},
	} as never);
	const additionalData = {
		executionId: `${id}-run`,
		workflowId: id,
		hooks,
		credentialsHelper: new OneCredential(
			credential.type,
			credential.data as ICredentialDataDecryptedObject,
		),
		variables: {},
		currentNodeExecutionIndex: 0,
		restApiUrl: 'http://localhost/rest',
		instanceBaseUrl: 'http://localhost/',
		webhookBaseUrl: 'http://localhost/webhook',
		webhookWaitingBaseUrl: 'http://localhost/webhook-waiting',
		webhookTestBaseUrl: 'http://localhost/webhook-test',
		formWaitingBaseUrl: 'http://localhost/form-waiting',
	} as unknown as IWorkflowExecuteAdditionalData;
	const runData = createRunExecutionData({
		executionData: {
			nodeExecutionStack: [
				{ node: workflow.getNode(wfNodes[0].name)!, data: { main: [input] }, source: null },
			],
		},
	});
	const run = await new WorkflowExecute(additionalData, 'manual', runData).processRunExecutionData(
		workflow,
	);
	return {
		error: run.data.resultData.error?.message,
		output: (name, output = 0) => {
			const last = run.data.resultData.runData[name]?.at(-1);
			return last?.data?.main?.[output] ?? [];
		},
	};
}
