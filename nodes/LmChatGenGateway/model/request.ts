/**
 * A Chat Model turn's request body, chat completions or responses: the model ID exactly as given, the agent's tools,
 * the options the execution has not learned the gateway refuses, the response format.
 */
import {
	chatResponseFormat,
	responsesTextFormat,
	type JsonSchemaFormat,
} from '../../shared/text/jsonSchema';
import type { ReasoningStore } from './reasoning';
import type { ChatModelConfig, Message } from './sdk';
import { chatTools, responsesTools, toChatMessages, toResponsesInput, type WireTool } from './wire';

type Json = Record<string, unknown>;

export interface GatewayModelOptions {
	model: string;
	/** ask the gateway for an SSE stream */
	streaming: boolean;
	/** POST /v1/responses instead of /v1/chat/completions */
	useResponsesApi: boolean;
	temperature?: number;
	maxTokens?: number;
	topP?: number;
	/** `json_object`: JSON mode; `json_schema`: the answer must validate against `jsonSchema` (one repair request at most) */
	responseFormat?: 'text' | 'json_object' | 'json_schema';
	jsonSchema?: JsonSchemaFormat;
	/** leave the model's reasoning out of the message the agent keeps and of the run data (it is still sent back where the gateway requires it) */
	leaveOutReasoning?: boolean;
	/** how long the answer may take to start (non-streaming: the whole answer), also the window of the 429 resend */
	timeoutMs: number;
	/** longest gap in a stream */
	idleMs: number;
}

export function requestBody(
	o: GatewayModelOptions,
	tools: WireTool[],
	refused: ReadonlySet<string>,
	messages: Message[],
	config: ChatModelConfig,
	stream: boolean,
	parts: { containsSecret: (text: string) => boolean; reasoning: ReasoningStore },
): Json {
	const temperature = config.temperature ?? o.temperature;
	const topP = config.topP ?? o.topP;
	const maxTokens = config.maxTokens ?? o.maxTokens;
	const b: Json = { model: o.model };
	if (o.useResponsesApi) {
		b.input = toResponsesInput(messages, parts.containsSecret);
		b.stream = stream;
		if (tools.length) b.tools = responsesTools(tools);
	} else {
		b.messages = toChatMessages(messages, parts.containsSecret, parts.reasoning);
		b.stream = stream;
		if (stream && !refused.has('stream_options')) b.stream_options = { include_usage: true };
		if (tools.length) b.tools = chatTools(tools);
	}
	if (temperature !== undefined && !refused.has('temperature')) b.temperature = temperature;
	if (topP !== undefined && !refused.has('top_p')) b.top_p = topP;
	if (maxTokens !== undefined)
		b[o.useResponsesApi ? 'max_output_tokens' : 'max_tokens'] = maxTokens;
	if (!o.useResponsesApi && config.stopSequences?.length) b.stop = config.stopSequences;
	if (o.responseFormat === 'json_object') {
		if (o.useResponsesApi) b.text = { format: { type: 'json_object' } };
		else b.response_format = { type: 'json_object' };
	}
	if (o.responseFormat === 'json_schema' && o.jsonSchema) {
		if (o.useResponsesApi) b.text = responsesTextFormat(o.jsonSchema);
		else b.response_format = chatResponseFormat(o.jsonSchema);
	}
	return b;
}
