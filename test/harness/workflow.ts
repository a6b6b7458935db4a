/**
 * Runs real n8n workflows in-process (n8n-core WorkflowExecute + n8n-workflow Workflow) with
 * real binary-data handling in filesystem mode. Tests give input items directly to the first node.
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
	type INode,
	type INodeCredentialsDetails,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeType,
	type INodeTypes,
	type IRun,
	type IWorkflowExecuteAdditionalData,
	type IVersionedNodeType,
	type IConnections,
} from 'n8n-workflow';
import { GenGatewayApi } from '../../credentials/GenGatewayApi.credentials';

export const CREDENTIAL_NAME = new GenGatewayApi().name;

class MapNodeTypes implements INodeTypes {
	constructor(private readonly types: Record<string, INodeType | IVersionedNodeType>) {}
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

class PlainCredentialsHelper extends ICredentialsHelper {
	constructor(
		private readonly data: Record<string, ICredentialDataDecryptedObject>,
		/** further credentials of the same type, by the id a node names (TestNode.credentialId) */
		private readonly byId: Record<string, ICredentialDataDecryptedObject> = {},
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
	async getDecrypted(_a: IWorkflowExecuteAdditionalData, n: INodeCredentialsDetails, type: string) {
		const d = (n.id ? this.byId[n.id] : undefined) ?? this.data[type];
		if (!d) throw new Error(`No test credential of type ${type}`);
		return d;
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

/** Sets up n8n's BinaryDataService in filesystem mode once per test file. */
export async function initBinaryData(): Promise<string> {
	if (binaryDir) return binaryDir;
	binaryDir = mkdtempSync(join(tmpdir(), 'gg-binary-'));
	const config = {
		mode: 'filesystem',
		availableModes: ['filesystem'],
		localStoragePath: binaryDir,
		signingSecret: 'test-secret',
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
	return binaryDir;
}

export function cleanupBinaryData(): void {
	if (binaryDir) rmSync(binaryDir, { recursive: true, force: true });
	binaryDir = undefined;
}

export interface TestNode {
	name: string;
	type: INodeType | IVersionedNodeType;
	parameters?: Record<string, unknown>;
	/** 'continueRegularOutput' for continueOnFail */
	onError?: INode['onError'];
	/** n8n's Retry On Fail: the whole node runs again (2 to 5 tries) when it throws or its first output item has json.error */
	retryOnFail?: boolean;
	maxTries?: number;
	waitBetweenTries?: number;
	typeVersion?: number;
	/** the id of the credential the node uses: one of RunOptions.moreCredentials (default: `credentials`) */
	credentialId?: string;
}

export interface RunOptions {
	/** nodes in a chain: output 0 of each feeds the next, unless `connections` is given */
	nodes: TestNode[];
	connections?: IConnections;
	input?: INodeExecutionData[];
	credentials?: { apiKey: string; baseUrl: string; videoBaseUrl?: string; keyGroup?: string };
	/** further credentials by id, for nodes that name one (TestNode.credentialId): a second account */
	moreCredentials?: Record<string, { apiKey: string; baseUrl: string; videoBaseUrl?: string }>;
	/** cancel the run after this many ms */
	cancelAfterMs?: number;
	/** gets the running promise, e.g. to cancel it */
	onStart?: (p: { cancel: () => void }) => void;
	/** what n8n pushes to the editor of a manual execution (`sendDataToUI`: a node's sendMessageToUI is `sendConsoleMessage`) */
	onUiMessage?: (type: string, data: unknown) => void;
	/** stream the execution like n8n's chat/webhook streaming; receives every chunk a node sends */
	onChunk?: (chunk: {
		type: string;
		content?: string;
		metadata: { nodeName: string; itemIndex: number };
	}) => void;
}

export interface RunResult {
	run: IRun;
	/** items of output `output` (default 0) of the last run of node `name` */
	output(name: string, output?: number): INodeExecutionData[];
	outputs(name: string): INodeExecutionData[][];
	error?: string;
	binaryBuffer(item: INodeExecutionData, property?: string): Promise<Buffer>;
}

let counter = 0;

export async function runWorkflow(opts: RunOptions): Promise<RunResult> {
	await initBinaryData();
	const types: Record<string, INodeType | IVersionedNodeType> = {};
	const nodes: INode[] = opts.nodes.map((n, idx) => {
		const typeName = `CUSTOM.${n.type.description.name}`;
		types[typeName] = n.type;
		const creds = (n.type as INodeType).description?.credentials ?? [];
		return {
			id: `node-${idx}`,
			name: n.name,
			type: typeName,
			typeVersion: n.typeVersion ?? latestVersion(n.type),
			position: [idx * 200, 0],
			parameters: (n.parameters ?? {}) as INode['parameters'],
			onError: n.onError,
			...(n.retryOnFail
				? { retryOnFail: true, maxTries: n.maxTries, waitBetweenTries: n.waitBetweenTries ?? 0 }
				: {}),
			credentials: Object.fromEntries(
				creds.map((c) => [
					c.name,
					{ id: n.credentialId ?? '1', name: `test ${n.credentialId ?? '1'}` },
				]),
			),
		};
	});
	const connections: IConnections = opts.connections ?? {};
	if (!opts.connections) {
		for (let i = 0; i + 1 < nodes.length; i++) {
			connections[nodes[i].name] = {
				main: [[{ node: nodes[i + 1].name, type: 'main', index: 0 }]],
			};
		}
	}
	const id = `wf${++counter}`;
	const workflow = new Workflow({
		id,
		name: id,
		nodes,
		connections,
		nodeTypes: new MapNodeTypes(types),
		active: false,
		settings: { executionOrder: 'v1' },
	});
	const executionId = `exec${counter}`;
	const hooks = new ExecutionLifecycleHooks('manual', executionId, {
		id,
		name: id,
		nodes,
		connections,
		active: false,
		settings: {},
	} as never);
	if (opts.onChunk) hooks.addHandler('sendChunk', (chunk) => opts.onChunk!(chunk as never));
	const credentialsHelper = new PlainCredentialsHelper(
		opts.credentials
			? { [CREDENTIAL_NAME]: opts.credentials as unknown as ICredentialDataDecryptedObject }
			: {},
		(opts.moreCredentials ?? {}) as unknown as Record<string, ICredentialDataDecryptedObject>,
	);
	const additionalData = {
		executionId,
		workflowId: id,
		hooks,
		credentialsHelper,
		variables: {},
		currentNodeExecutionIndex: 0,
		restApiUrl: 'http://localhost/rest',
		instanceBaseUrl: 'http://localhost/',
		webhookBaseUrl: 'http://localhost/webhook',
		webhookWaitingBaseUrl: 'http://localhost/webhook-waiting',
		webhookTestBaseUrl: 'http://localhost/webhook-test',
		formWaitingBaseUrl: 'http://localhost/form-waiting',
		streamingEnabled: !!opts.onChunk,
		...(opts.onUiMessage ? { sendDataToUI: opts.onUiMessage } : {}),
	} as unknown as IWorkflowExecuteAdditionalData;
	const first = workflow.getNode(nodes[0].name)!;
	const runData = createRunExecutionData({
		executionData: {
			nodeExecutionStack: [
				{ node: first, data: { main: [opts.input ?? [{ json: {} }]] }, source: null },
			],
		},
	});
	const we = new WorkflowExecute(additionalData, 'manual', runData);
	const p = we.processRunExecutionData(workflow);
	opts.onStart?.({ cancel: () => p.cancel() });
	let timer: NodeJS.Timeout | undefined;
	if (opts.cancelAfterMs !== undefined) timer = setTimeout(() => p.cancel(), opts.cancelAfterMs);
	const run = await p;
	if (timer) clearTimeout(timer);
	const outputs = (name: string): INodeExecutionData[][] => {
		const runs = run.data.resultData.runData[name];
		if (!runs?.length) return [];
		return (runs[runs.length - 1].data?.main ?? []).map((o) => o ?? []);
	};
	return {
		run,
		outputs,
		output: (name, output = 0) => outputs(name)[output] ?? [],
		error: run.data.resultData.error?.message,
		binaryBuffer: async (item, property = 'data') => {
			const b = item.binary?.[property];
			if (!b) throw new Error(`item has no binary "${property}"`);
			if (b.id) {
				const svc = Container.get(BinaryDataService);
				return svc.getAsBuffer(b);
			}
			return Buffer.from(b.data, 'base64');
		},
	};
}

/** Runs a node the way n8n runs it as an AI-agent tool: its context reports isToolExecution() = true. */
export function asTool(node: INodeType): INodeType {
	return {
		description: { ...node.description, name: `${node.description.name}AsTool` },
		methods: node.methods,
		async execute(this: IExecuteFunctions) {
			const ctx = new Proxy(this, {
				get: (t, p) => (p === 'isToolExecution' ? () => true : (t as never)[p]),
			});
			return node.execute!.call(ctx);
		},
	} as INodeType;
}

function latestVersion(t: INodeType | IVersionedNodeType): number {
	if ('nodeVersions' in t) return t.currentVersion;
	const v = t.description.version;
	return Array.isArray(v) ? Math.max(...v) : v;
}
