/**
 * Issue 35, bullet 4: n8n's node panel lists Image Submit's two operations as its actions, not its modes. The panel
 * (n8n-editor-ui 2.41, useActionsGeneration) lists the `operation` options and, for a node whose codex categories hold
 * "AI", the options of the first property named "mode" (the way AI root nodes offer their modes); this test does the
 * same over the node's description and codex. The real browser test (test/e2e/editor.test.ts) reads the panel itself.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
	NodeHelpers,
	type INode,
	type INodeParameters,
	type INodePropertyOptions,
} from 'n8n-workflow';
import { GenGatewayImageSubmit } from '../../nodes/GenGatewayImageSubmit/GenGatewayImageSubmit.node';

const node = new GenGatewayImageSubmit();
const codex = JSON.parse(
	readFileSync(
		join(__dirname, '../../nodes/GenGatewayImageSubmit/GenGatewayImageSubmit.node.json'),
		'utf8',
	),
) as { categories: string[] };

/** The actions n8n's node panel lists for a node without resources: its operations, then (AI category) its first "mode"'s options. */
function panelActions(): string[] {
	const props = node.description.properties;
	const operation = props.find((p) => p.name.toLowerCase() === 'operation');
	const actions = ((operation?.options ?? []) as INodePropertyOptions[]).map(
		(o) => o.action ?? o.name,
	);
	if (codex.categories.includes('AI')) {
		const mode = props.find((p) => p.name.toLowerCase() === 'mode');
		actions.push(
			...((mode?.options ?? []) as INodePropertyOptions[]).map((o) => o.action ?? o.name),
		);
	}
	return actions;
}

function resolved(parameters: INodeParameters): INodeParameters {
	const n = {
		id: 'i',
		name: 'Image',
		type: 'n8n-nodes-gen-gateway.genGatewayImageSubmit',
		typeVersion: 1,
		position: [0, 0],
		parameters,
	} as INode;
	return (
		NodeHelpers.getNodeParameters(
			node.description.properties,
			parameters,
			true,
			false,
			n,
			node.description,
		) ?? {}
	);
}

it('the node panel lists Generate and Edit, and none of the modes', () => {
	// since issue 45 the node is not filed under "AI" (n8n's coming lint rules), so the panel reads no "mode"; the
	// modes stay out of the list either way
	expect(codex.categories).not.toContain('AI');
	expect(panelActions()).toEqual(['Generate an image from text', 'Edit an image']);
});

it('the Mode field still holds the mode: saved workflows keep theirs, new nodes start at Async', () => {
	expect(resolved({ operation: 'generate' }).mode).toBe('async');
	for (const mode of ['async', 'sync', 'native'])
		expect(resolved({ operation: 'edit', mode }).mode).toBe(mode);
	const shown = node.description.properties.filter(
		(p) => p.name === 'mode' && p.type === 'options',
	);
	expect(shown).toHaveLength(1);
	expect((shown[0].options as INodePropertyOptions[]).map((o) => o.value)).toEqual([
		'async',
		'sync',
		'native',
	]);
});
