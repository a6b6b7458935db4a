import {
	NodeConnectionTypes,
	NodeOperationError,
	type IExecuteFunctions,
	type INodeType,
	type INodeTypeDescription,
	type ISupplyDataFunctions,
	type SupplyData,
} from 'n8n-workflow';
// The SDK's own tool type, as the agent hands tools over: a type-only import (erased from the built file; the SDK
// itself is loaded in supplyData). It also files this node as built on the SDK for n8n's codex lint rules.
import type { Tool as SdkTool } from '@n8n/ai-node-sdk';
import { GatewayChatCore, TurnSupply, type GatewayModelOptions } from './model/model';
import { exitOf, runSupply } from '../shared/exit';
import { readMoneyOptions, spendOptions, type MoneyOptions } from '../shared/money/options';
import { runIndexOf } from '../shared/runners/ledger';
import {
	loadAiNodeSdk,
	type AiNodeSdk,
	type ChatModelConfig,
	type Message,
	type StreamChunk,
} from './model/sdk';
import { bridgeAdapter } from './model/bridge';
import { forTheChat } from './model/errors';
import { readResponseFormat, responseFormatOptions } from '../shared/text/jsonSchema';
import type { WireTool } from './model/wire';
import { createTransport } from '../shared/credentials';
import type { GatewayTransport } from '../shared/transport';
import { languageModelMethods } from '../shared/methods';
import { DEFAULT_TIMEOUTS } from '../shared/transport/timeouts';
import { languageModelLocator, SUBTITLE_MODEL, docsUrl } from '../shared/ui';
import { readChatModelOptions, type ChatModelOptionValues } from './options';

type ModelOptions = Record<string, unknown>;

/**
 * The SDK's BaseChatModel, extended once per host SDK (the class is made from the SDK that `supplyData` loaded,
 * never from a module-level import, so the package loads where there is no SDK).
 */
function gatewayModelClass(sdk: AiNodeSdk, toNodeError: (err: unknown) => Error) {
	const toWire = (tools: SdkTool[]): WireTool[] =>
		tools
			.filter((t): t is Extract<SdkTool, { type: 'function' }> => t.type === 'function')
			.map((t) => ({
				name: t.name,
				description: t.description,
				parameters: sdk.getParametersJsonSchema(t),
			}));
	class GenGatewayChatModel extends sdk.BaseChatModel {
		constructor(readonly core: GatewayChatCore) {
			super('gen-gateway', core.opts.model, {});
		}
		async generate(messages: Message[], config?: ChatModelConfig) {
			try {
				return await this.core.generate(messages, config);
			} catch (err) {
				throw toNodeError(err);
			}
		}
		async *stream(messages: Message[], config?: ChatModelConfig): AsyncIterable<StreamChunk> {
			try {
				yield* this.core.stream(messages, config);
			} catch (err) {
				throw toNodeError(err);
			}
		}
		override withTools(tools: SdkTool[]) {
			return new GenGatewayChatModel(this.core.withTools(toWire(tools)));
		}
	}
	return GenGatewayChatModel;
}

/** Response Format (JSON Schema, Schema Name, Strict Schema): the Chat node's, but a failed repair fails the agent's turn. */
const responseFormat = responseFormatOptions('the agent gets an error that says why');

export class LmChatGenGateway implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'GenGateway Chat Model',
		name: 'lmChatGenGateway',
		icon: { light: 'file:../../icons/chat.svg', dark: 'file:../../icons/chat.dark.svg' },
		group: ['transform'],
		// 1.1: Response Format is one option whose schema field shows when JSON Schema is picked; 1 keeps the four options
		version: [1, 1.1],
		defaultVersion: 1.1,
		documentationUrl: docsUrl('the-ai-agent-gengateway-chat-model'),
		subtitle: `={{${SUBTITLE_MODEL}}}`,
		description:
			'A language model of your gateway account for the AI Agent and chains (needs n8n 2.16 or newer)',
		defaults: { name: 'GenGateway Chat Model' },
		inputs: [],
		outputs: [NodeConnectionTypes.AiLanguageModel],
		outputNames: ['Model'],
		credentials: [{ name: 'genGatewayApi', required: true, testedBy: 'genGatewayApiTest' }],
		properties: [
			languageModelLocator(),
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add Option',
				default: {},
				options: [
					responseFormat.v1.jsonSchema,
					{
						displayName: 'Leave Out Reasoning',
						name: 'leaveOutReasoning',
						type: 'boolean',
						default: false,
						description:
							"Whether to leave a thinking model's reasoning out of the messages the agent " +
							"keeps and of this node's run data. It is still sent back to the gateway with " +
							'the tool calls it led to, where thinking models require it.',
					},
					{
						displayName: 'Maximum Number of Tokens',
						name: 'maxTokens',
						type: 'number',
						typeOptions: { minValue: 1 },
						default: 1024,
						description:
							'The most tokens the answer may have. With Max Expected Spend it also bounds ' +
							'what a turn can cost: each turn is priced before it is sent and refused before ' +
							'sending when it could pass the cap. Not added, a per-token turn has no bound ' +
							'and the cap can be passed by one turn.',
					},
					{
						displayName: 'Request Timeout (Ms)',
						name: 'timeout',
						type: 'number',
						typeOptions: { minValue: 1000 },
						default: 120_000,
						description:
							'How long a model call may take to start answering (without streaming: to ' +
							'answer). A call refused with 429 (which created nothing) goes again after its ' +
							'Retry-After, never sooner than 1 s after the refusal, at most 5 sends in all, ' +
							'and only within this time.',
					},
					responseFormat.format,
					responseFormat.v1.responseFormat,
					responseFormat.v1.schemaName,
					responseFormat.v1.strictSchema,
					{
						displayName: 'Sampling Temperature',
						name: 'temperature',
						type: 'number',
						typeOptions: { minValue: 0, maxValue: 2, numberPrecision: 2 },
						default: 0.7,
						description: 'Higher values make the answer more random',
					},
					{
						displayName: 'Stream Idle Timeout (Ms)',
						name: 'idleTimeout',
						type: 'number',
						typeOptions: { minValue: 1000 },
						default: DEFAULT_TIMEOUTS.streamIdle,
						description: 'With streaming, fail when the gateway sends nothing for this long',
					},
					{
						displayName: 'Streaming',
						name: 'streaming',
						type: 'boolean',
						default: true,
						description:
							'Whether to ask the gateway for a streamed answer (SSE). Turn it off for gateways whose streams break tool calls.',
					},
					// the action nodes' spend options; a turn always has a price or a stated bound, and quoting a turn means nothing
					...spendOptions().filter((p) => p.name !== 'allowUnpriced' && p.name !== 'quoteOnly'),
					{
						displayName: 'Top P',
						name: 'topP',
						type: 'number',
						typeOptions: { minValue: 0, maxValue: 1, numberPrecision: 2 },
						default: 1,
						description:
							'Nucleus sampling: only the tokens of this probability mass are considered',
					},
					{
						displayName: 'Use Responses API',
						name: 'useResponsesApi',
						type: 'boolean',
						default: false,
						description: 'Whether to call POST /v1/responses instead of POST /v1/chat/completions',
					},
				],
			},
		],
	};

	methods = languageModelMethods;

	async supplyData(this: ISupplyDataFunctions, itemIndex: number): Promise<SupplyData> {
		return runSupply(this, () => supplyModel(this, itemIndex), false);
	}
}

/** The model and its options for the item the supply is for, each read by its rule (a bad one names the field). */
function modelOptionsOf(ctx: ISupplyDataFunctions, itemIndex: number): GatewayModelOptions {
	const model = ctx.getNodeParameter('model', itemIndex, '', { extractValue: true }) as unknown;
	if (typeof model !== 'string' || !model.trim()) {
		throw new NodeOperationError(
			ctx.getNode(),
			'Model: is required (pick one from the list or enter its exact ID)',
			{ itemIndex },
		);
	}
	const o = ctx.getNodeParameter('options', itemIndex, {}) as ModelOptions;
	const format = readResponseFormat(o);
	const read = readOptionsOf(ctx, itemIndex, o);
	return {
		model: model.trim(),
		streaming: read.streaming,
		useResponsesApi: read.useResponsesApi,
		temperature: read.temperature,
		maxTokens: read.maxTokens,
		topP: read.topP,
		responseFormat: format.type,
		jsonSchema: format.schema,
		leaveOutReasoning: read.leaveOutReasoning,
		timeoutMs: read.timeoutMs,
		idleMs: read.idleMs ?? DEFAULT_TIMEOUTS.streamIdle,
	};
}

/** The supply's place (node, root, run), its spend options, its try: what every turn of it shares (model/supply.ts). */
function turnSupplyOf(
	ctx: ISupplyDataFunctions,
	itemIndex: number,
	transport: GatewayTransport,
	exit: ReturnType<typeof exitOf>,
): TurnSupply {
	// the spend options of every item of the root's input, through the rules layer every paid node uses (a bad value
	// names its item and field): the root may run several items at once, so the strictest cap holds for every turn
	const money = moneyOfItems(ctx, itemIndex);
	const node = ctx.getNode();
	const root = (ctx as unknown as { parentNode?: { id?: string; name?: string } }).parentNode;
	// n8n-core runs the root node once per Retry On Fail try with a new list of close functions, which every
	// supply of that try shares: the try's identity (absent: each supply is its own try)
	const attempt = (ctx as unknown as { closeFunctions?: unknown }).closeFunctions;
	return new TurnSupply(
		transport,
		exit,
		{ node: node.id ?? node.name, root: root?.id ?? root?.name ?? 'root', run: runIndexOf(ctx) },
		money,
		ctx,
		attempt && typeof attempt === 'object' ? attempt : undefined,
	);
}

async function supplyModel(ctx: ISupplyDataFunctions, itemIndex: number): Promise<SupplyData> {
	let sdk: AiNodeSdk;
	try {
		sdk = loadAiNodeSdk();
	} catch (err) {
		throw new NodeOperationError(ctx.getNode(), (err as Error).message, { itemIndex });
	}
	const opts = modelOptionsOf(ctx, itemIndex);
	const transport = await createTransport(ctx as unknown as IExecuteFunctions, {
		text: opts.timeoutMs,
	});
	const exit = exitOf(ctx);
	const supply = turnSupplyOf(ctx, itemIndex, transport, exit);
	// the errors the agent gets (and stores) leave through the exit, redacted
	// worded for n8n's chat first (the reason and what to do on one line: model/errors.ts forTheChat)
	const toNodeError = (err: unknown): Error => exit.error(forTheChat(err), itemIndex);
	const Model = gatewayModelClass(sdk, toNodeError);
	const supplied = sdk.supplyModel(
		ctx,
		new Model(new GatewayChatCore(transport, opts, [], supply)),
	);
	const sourceOf = (wrapped: unknown) => {
		const core = (wrapped as { core?: unknown } | undefined)?.core;
		return core instanceof GatewayChatCore
			? { summaries: core.summaries, leaveOutReasoning: core.opts.leaveOutReasoning === true }
			: undefined;
	};
	return { ...supplied, response: bridgeAdapter(supplied.response, sourceOf) };
}

/** The checked options of the item the supply is for: a bad value refuses it naming the item, the field and the rule. */
function readOptionsOf(
	ctx: ISupplyDataFunctions,
	itemIndex: number,
	o: ModelOptions,
): ChatModelOptionValues {
	try {
		return readChatModelOptions(o, 120_000);
	} catch (err) {
		throw new NodeOperationError(
			ctx.getNode(),
			`Item ${itemIndex + 1}: ${(err as Error).message}`,
			{
				itemIndex,
				description: 'Nothing was sent to the gateway.',
			},
		);
	}
}

/** The money options of each item of the root node's input (n8n asks chains for their model with item 0 for every item). */
function moneyOfItems(ctx: ISupplyDataFunctions, itemIndex: number): MoneyOptions[] {
	let count = 0;
	try {
		count = ctx.getInputData(0, NodeConnectionTypes.Main).length;
	} catch {
		count = 0;
	}
	const indices = count > 0 ? [...Array(count).keys()] : [itemIndex];
	return indices.map((i) => {
		try {
			return readMoneyOptions(ctx.getNodeParameter('options', i, {}) as Record<string, unknown>);
		} catch (err) {
			throw new NodeOperationError(
				ctx.getNode(),
				`${indices.length > 1 ? `Item ${i + 1}: ` : ''}${(err as Error).message}`,
				{ itemIndex: i, description: 'Nothing was sent to the gateway.' },
			);
		}
	});
}
