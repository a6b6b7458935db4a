/**
 * The Chat Model's Response Format options (Response Format, JSON Schema, Schema Name, Strict Schema) are the Chat
 * node's, declared once (nodes/shared/text/jsonSchema.ts, responseFormatFields): a copy in either node that differs in
 * anything but what follows a failed repair fails here.
 */
import type { INodeProperties, INodeType } from 'n8n-workflow';
import { GenGatewayChat } from '../../nodes/GenGatewayChat/GenGatewayChat.node';
import { LmChatGenGateway } from '../../nodes/LmChatGenGateway/LmChatGenGateway.node';
import { spendOptions } from '../../nodes/shared/money/options';

const RESPONSE_FORMAT = ['responseFormat', 'jsonSchema', 'schemaName', 'strictSchema'];

/** The options of a node's Options collection. */
function optionsOf(node: INodeType): INodeProperties[] {
	const collection = node.description.properties.find((p) => p.name === 'options');
	return (collection?.options ?? []) as INodeProperties[];
}

/** A node's Response Format options by name, with what follows a failed repair cut from JSON Schema's description. */
function responseFormatOf(node: INodeType) {
	const byName = new Map(optionsOf(node).map((o) => [o.name, o]));
	return RESPONSE_FORMAT.map((name) => {
		const o = byName.get(name);
		if (o?.name !== 'jsonSchema') return o;
		return { ...o, description: o.description?.replace(/; then [^;]*\.$/, '; then …') };
	});
}

describe('Chat Model description', () => {
	it('declares Response Format, JSON Schema, Schema Name and Strict Schema as the Chat node does (one declaration)', () => {
		const chat = responseFormatOf(new GenGatewayChat());
		expect(chat.every((o) => o !== undefined)).toBe(true);
		expect(responseFormatOf(new LmChatGenGateway())).toEqual(chat);
	});

	it('JSON Schema says what follows a failed repair: the Chat node fails the item, the Chat Model the agent', () => {
		const description = (node: INodeType) =>
			optionsOf(node).find((o) => o.name === 'jsonSchema')?.description;
		expect(description(new GenGatewayChat())).toMatch(/; then the item fails saying why\.$/);
		expect(description(new LmChatGenGateway())).toMatch(
			/; then the agent gets an error that says why\.$/,
		);
	});

	it("keeps its options' order in the panel (the money options, shared with every paid node, left out)", () => {
		const money = new Set(spendOptions().map((o) => o.name));
		expect(
			optionsOf(new LmChatGenGateway())
				.map((o) => o.name)
				.filter((name) => !money.has(name)),
		).toEqual([
			'jsonSchema',
			'leaveOutReasoning',
			'maxTokens',
			'timeout',
			'responseFormat',
			'schemaName',
			'strictSchema',
			'temperature',
			'idleTimeout',
			'streaming',
			'topP',
			'useResponsesApi',
		]);
	});
});
