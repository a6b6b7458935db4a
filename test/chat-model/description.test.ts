/**
 * The Chat Model's Response Format options (version 1.1's Response Format option; version 1's Response Format, JSON
 * Schema, Schema Name, Strict Schema) are the Chat node's, declared once (nodes/shared/text/jsonSchema.ts,
 * responseFormatOptions): a copy in either node that differs in anything but what follows a failed repair fails here.
 * What the editor shows of them for each choice: test/text/response-format.test.ts.
 */
import type { INodeProperties, INodeType } from 'n8n-workflow';
import { GenGatewayChat } from '../../nodes/GenGatewayChat/GenGatewayChat.node';
import { LmChatGenGateway } from '../../nodes/LmChatGenGateway/LmChatGenGateway.node';
import { spendOptions } from '../../nodes/shared/money/options';

const RESPONSE_FORMAT = ['format', 'responseFormat', 'jsonSchema', 'schemaName', 'strictSchema'];
/** what follows a failed repair, cut from a JSON Schema field's description */
const cut = (o: INodeProperties): INodeProperties =>
	o.name === 'jsonSchema'
		? { ...o, description: o.description?.replace(/; then [^;]*\.$/, '; then …') }
		: o;

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
		if (!o || o.type !== 'fixedCollection') return o && cut(o);
		const groups = (o.options ?? []) as Array<{ values: INodeProperties[] }>;
		return { ...o, options: groups.map((g) => ({ ...g, values: g.values.map(cut) })) };
	});
}

describe('Chat Model description', () => {
	it("declares Response Format (and version 1's JSON Schema, Schema Name, Strict Schema) as the Chat node does (one declaration)", () => {
		const chat = responseFormatOf(new GenGatewayChat());
		expect(chat.every((o) => o !== undefined)).toBe(true);
		expect(responseFormatOf(new LmChatGenGateway())).toEqual(chat);
	});

	it('JSON Schema says what follows a failed repair: the Chat node fails the item, the Chat Model the agent', () => {
		const descriptions = (node: INodeType) => {
			const format = optionsOf(node).find((o) => o.name === 'format');
			const inner = ((format?.options ?? []) as Array<{ values: INodeProperties[] }>)[0]?.values;
			return [
				optionsOf(node).find((o) => o.name === 'jsonSchema')?.description,
				inner?.find((o) => o.name === 'jsonSchema')?.description,
			];
		};
		for (const d of descriptions(new GenGatewayChat()))
			expect(d).toMatch(/; then the item fails saying why\.$/);
		for (const d of descriptions(new LmChatGenGateway()))
			expect(d).toMatch(/; then the agent gets an error that says why\.$/);
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
			'format',
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
