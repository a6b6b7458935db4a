/**
 * The GenGateway Chat Model as n8n's AI Agent uses it, in-process: `supplyData` with a small ISupplyDataFunctions
 * (credential, parameters, the tracing hooks n8n's SDK calls), the SDK's LangChain adapter it returns, `bindTools`
 * and `invoke`, over real HTTP against the simulator. The SDK is the host's: `@n8n/ai-node-sdk` 0.31.1 as n8n 2.41.1
 * ships it (a devDependency, or NODE_PATH pointing at a private n8n's node_modules).
 */
import type { INode, ISupplyDataFunctions } from 'n8n-workflow';
import { LmChatGenGateway } from '../../nodes/LmChatGenGateway/LmChatGenGateway.node';

export interface Traced {
	inputs: unknown[];
	outputs: Array<{ json?: Record<string, unknown>; error?: Error }>;
	metadata: Record<string, unknown>[];
	events: string[];
}

export interface ModelParams {
	model?: string;
	options?: Record<string, unknown>;
}

export const NODE: INode = {
	id: 'm1',
	name: 'GenGateway Chat Model',
	type: 'n8n-nodes-gen-gateway.lmChatGenGateway',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};

/** n8n's execution custom data, as a node reads it through `$execution.customData` (one per execution). */
export function customDataStore(): {
	get(k: string): string | undefined;
	getAll(): Record<string, string>;
	set(k: string, v: string): void;
	setAll(o: Record<string, string>): void;
} {
	const data: Record<string, string> = {};
	return {
		get: (k) => data[k],
		getAll: () => ({ ...data }),
		set: (k, v) => void (data[k] = v),
		setAll: (o) => void Object.assign(data, o),
	};
}

/** Where the Chat Model is supplied: the root node that asks (an AI Agent) and its run, and the execution's custom data. */
export interface SupplyPlace {
	root?: { id: string; name: string };
	runIndex?: number;
	customData?: ReturnType<typeof customDataStore>;
}

export function supplyCtx(
	creds: { apiKey: string; baseUrl: string },
	params: ModelParams,
	traced: Traced,
	signal?: AbortSignal,
	at: SupplyPlace = {},
): ISupplyDataFunctions {
	let runIndex = 0;
	const values: Record<string, unknown> = {
		model: { __rl: true, mode: 'id', value: params.model ?? 'alpha-chat-4o' },
		options: params.options ?? {},
	};
	const ctx = {
		getNode: () => NODE,
		getCredentials: async () => creds,
		getNodeParameter: (
			name: string,
			_i: number,
			fallback?: unknown,
			opts?: { extractValue?: boolean },
		) => {
			const v = values[name] ?? fallback;
			if (opts?.extractValue && v && typeof v === 'object' && '__rl' in v)
				return (v as unknown as { value: unknown }).value;
			return v;
		},
		getExecutionCancelSignal: () => signal,
		getNextRunIndex: () => runIndex,
		addInputData: (_type: string, data: unknown) => {
			traced.inputs.push(data);
			return { index: runIndex++ };
		},
		addOutputData: (_type: string, _index: number, data: unknown) => {
			if (data instanceof Error) traced.outputs.push({ error: data });
			else
				traced.outputs.push({
					json: (data as Array<Array<{ json: Record<string, unknown> }>>)[0][0].json,
				});
		},
		setMetadata: (m: Record<string, unknown>) => traced.metadata.push(m),
		logAiEvent: (event: string) => traced.events.push(event),
		logger: { debug() {}, info() {}, warn() {}, error() {} },
		helpers: {},
		// n8n keeps the root node and its run index on a sub-node's context
		parentNode: at.root ?? { id: 'agent-1', name: 'AI Agent' },
		runIndex: at.runIndex ?? 0,
		getWorkflowDataProxy: () => ({ $execution: { customData: at.customData } }),
	};
	return ctx as unknown as ISupplyDataFunctions;
}

export const newTrace = (): Traced => ({ inputs: [], outputs: [], metadata: [], events: [] });

/** LangChain's chat model interface, as far as the tests use it (the host's LangChain classes are behind it). */
export interface LcModel {
	invoke(input: unknown, options?: unknown): Promise<LcMessage>;
	stream(input: unknown, options?: unknown): Promise<AsyncIterable<LcMessage>>;
	bindTools(tools: unknown[]): LcModel;
	lc_namespace: string[];
}
export interface LcMessage {
	content: unknown;
	text: string;
	tool_calls?: Array<{ id?: string; name: string; args: Record<string, unknown> }>;
	invalid_tool_calls?: Array<{ id?: string; name?: string; args?: string; error?: string }>;
	usage_metadata?: { input_tokens: number; output_tokens: number; total_tokens: number };
	concat?(other: LcMessage): LcMessage;
}

export async function supplyModel(
	creds: { apiKey: string; baseUrl: string; keyGroup?: string },
	params: ModelParams = {},
	traced = newTrace(),
	signal?: AbortSignal,
	at: SupplyPlace = {},
): Promise<{ model: LcModel; traced: Traced }> {
	const data = await new LmChatGenGateway().supplyData.call(
		supplyCtx(creds, params, traced, signal, at),
		0,
	);
	return { model: data.response as LcModel, traced };
}

/** n8n's Calculator tool as the agent binds it (LangChain's Calculator: one string `input`). */
export const CALCULATOR = {
	type: 'function',
	function: {
		name: 'calculator',
		description: 'Useful for getting the result of a math expression.',
		parameters: {
			type: 'object',
			properties: { input: { type: 'string' } },
			additionalProperties: false,
		},
	},
};

/** Joins a LangChain stream into one message chunk. */
export async function joinStream(s: AsyncIterable<LcMessage>): Promise<LcMessage> {
	let out: LcMessage | undefined;
	for await (const c of s) out = out ? out.concat!(c) : c;
	return out!;
}
