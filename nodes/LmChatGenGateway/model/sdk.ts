/**
 * What this package relies on from `@n8n/ai-node-sdk` (preview; read from 0.31.1, the version n8n 2.41.1 ships),
 * written out here so the package loads without the SDK installed (the Chat Model's node file imports only the
 * SDK's `Tool` type, which the build erases; compiling needs the SDK, a dev dependency). The SDK itself is only ever
 * `require`d inside the Chat Model's `supplyData` (loadAiNodeSdk), so on a host without it (n8n 1.x, n8n before
 * 2.16) every other node still loads, and the Chat Model fails with a clear message when it is used.
 */
import type { ISupplyDataFunctions, SupplyData } from 'n8n-workflow';

export type MessageRole = 'system' | 'user' | 'assistant' | 'tool';

export type MessageContent =
	| { type: 'text'; text: string }
	| { type: 'reasoning'; text: string }
	| { type: 'tool-call'; toolCallId?: string; toolName: string; input: string }
	| { type: 'invalid-tool-call'; toolCallId?: string; error?: string; args?: string; name?: string }
	| { type: 'tool-result'; toolCallId: string; result: unknown; isError?: boolean }
	| { type: 'file'; mediaType?: string; data: string | Uint8Array }
	| { type: string; [k: string]: unknown };

export interface Message {
	role: MessageRole;
	content: MessageContent[];
	name?: string;
	id?: string;
}

export type FinishReason = 'stop' | 'length' | 'content-filter' | 'tool-calls' | 'error' | 'other';

export interface TokenUsage {
	promptTokens: number;
	completionTokens: number;
	totalTokens: number;
	inputTokenDetails?: { cacheRead?: number };
	outputTokenDetails?: { reasoning?: number };
}

export interface GenerateResult {
	id?: string;
	finishReason?: FinishReason;
	usage?: TokenUsage;
	message: Message;
	providerMetadata?: Record<string, unknown>;
}

export type StreamChunk =
	| { type: 'text-delta'; id?: string; delta: string }
	| { type: 'tool-call-delta'; id?: string; name?: string; argumentsDelta?: string }
	| { type: 'finish'; finishReason: FinishReason; usage?: TokenUsage }
	| { type: 'error'; error: unknown }
	| { type: 'content'; content: MessageContent; id?: string };

export interface Tool {
	type: 'function' | 'provider';
	name: string;
	description?: string;
	inputSchema?: unknown;
}

export interface ChatModelConfig {
	maxTokens?: number;
	temperature?: number;
	topP?: number;
	stopSequences?: string[];
	abortSignal?: AbortSignal;
	[k: string]: unknown;
}

/** The SDK's abstract class, as far as this package uses it. */
export interface BaseChatModelClass {
	new (
		provider: string,
		modelId: string,
		defaultConfig?: ChatModelConfig,
		tools?: Tool[],
	): {
		provider: string;
		modelId: string;
		defaultConfig?: ChatModelConfig;
		withTools(tools: Tool[]): unknown;
	};
}

export interface AiNodeSdk {
	BaseChatModel: BaseChatModelClass;
	supplyModel(ctx: ISupplyDataFunctions, model: unknown): SupplyData;
	getParametersJsonSchema(tool: Tool): unknown;
}

export const SDK_PACKAGE = '@n8n/ai-node-sdk';

export const SDK_MISSING_MESSAGE =
	'The GenGateway Chat Model needs n8n 2.16 or newer: this n8n does not provide ' +
	'the AI node SDK (@n8n/ai-node-sdk) that chat models of community packages are ' +
	'built on. Update n8n, or use the GenGateway Chat or Responses action node instead.';

/** Loads the host's SDK; throws an Error with SDK_MISSING_MESSAGE when the host has none (or an unusable one). */
export function loadAiNodeSdk(load: (id: string) => unknown = (id) => require(id)): AiNodeSdk {
	let sdk: Partial<AiNodeSdk> | undefined;
	try {
		sdk = load(SDK_PACKAGE) as Partial<AiNodeSdk>;
	} catch {
		sdk = undefined;
	}
	if (
		!sdk ||
		typeof sdk.BaseChatModel !== 'function' ||
		typeof sdk.supplyModel !== 'function' ||
		typeof sdk.getParametersJsonSchema !== 'function'
	) {
		throw new Error(SDK_MISSING_MESSAGE);
	}
	return sdk as AiNodeSdk;
}
