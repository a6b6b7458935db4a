/**
 * Issue 44, bullet 5 (first half): *Image Binary Properties* of the Chat and Responses nodes starts at `data`, the
 * binary property every n8n file node writes, so adding the option sends the item's image without typing a name.
 * It is an option of the Options collection: n8n stores an added option's value with the workflow, whatever it is,
 * and a node that never added it has none, so saved workflows keep what they had (an empty value sends no image).
 */
import {
	NodeHelpers,
	type INode,
	type INodeParameters,
	type INodeProperties,
	type INodeTypeDescription,
} from 'n8n-workflow';
import sharp from 'sharp';
import { useSimulator } from '../harness/simulator';
import { GenGatewayChat } from '../../nodes/GenGatewayChat/GenGatewayChat.node';
import { GenGatewayResponses } from '../../nodes/GenGatewayResponses/GenGatewayResponses.node';
import { cleanupBinaryData, runWorkflow, type TestNode } from '../harness/workflow';

jest.setTimeout(30_000);

const NODES = [
	['Chat', new GenGatewayChat()],
	['Responses', new GenGatewayResponses()],
] as const;

/** The option as the editor offers it under Add Option. */
function option(d: INodeTypeDescription, name: string): INodeProperties {
	const options = d.properties.find((p) => p.name === 'options')?.options as INodeProperties[];
	const found = options.find((o) => o.name === name);
	if (!found) throw new Error(`no option ${name}`);
	return found;
}

/** The node's options as n8n reads them from a saved workflow (at run time, defaults filled in). */
function savedOptions(d: INodeTypeDescription, options: INodeParameters) {
	const node = {
		id: 'n',
		name: 'N',
		type: `n8n-nodes-gen-gateway.${d.name}`,
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
	} as INode;
	const parameters = { model: { __rl: true, mode: 'id', value: 'alpha-vision-1' }, options };
	return NodeHelpers.getNodeParameters(d.properties, parameters, true, false, node, d)?.options;
}

describe.each(NODES)('%s: Image Binary Properties', (_, node) => {
	const d = node.description;

	it('starts at data, with no placeholder that reads like a value', () => {
		const o = option(d, 'imageBinaries');
		expect(o.default).toBe('data');
		expect(o.placeholder).toBeUndefined();
		expect(o.description).toMatch(/empty sends none/);
	});

	it('a saved workflow keeps its own value: an empty one stays empty, a node without the option has none', () => {
		expect(savedOptions(d, { imageBinaries: '' })).toEqual({ imageBinaries: '' });
		expect(savedOptions(d, { imageBinaries: 'photo' })).toEqual({ imageBinaries: 'photo' });
		expect(savedOptions(d, {})).toEqual({});
	});
});

describe('in a workflow', () => {
	const sim = useSimulator({ quiet: true, syncLatencyMs: 5 });
	let png: Buffer;
	beforeAll(async () => {
		png = await sharp({ create: { width: 32, height: 24, channels: 3, background: '#204080' } })
			.png()
			.toBuffer();
	});
	afterAll(() => cleanupBinaryData());
	beforeEach(() => sim.reset());

	const chat = (options: Record<string, unknown>): TestNode => ({
		name: 'Chat',
		type: new GenGatewayChat(),
		parameters: {
			model: { __rl: true, mode: 'id', value: 'alpha-vision-1' },
			messagesFrom: 'ui',
			messages: { values: [{ role: 'user', content: 'What is this?' }] },
			stream: false,
			options,
		},
	});
	const run = (options: Record<string, unknown>) =>
		runWorkflow({
			nodes: [chat(options)],
			input: [
				{
					json: {},
					binary: {
						data: { data: png.toString('base64'), mimeType: 'image/png', fileName: 'in.png' },
					},
				},
			],
			credentials: { apiKey: sim.keys.demo, baseUrl: sim.baseUrl },
		});

	it("the option as added (its default) sends the item's data image; an empty saved value sends none", async () => {
		const added = await run({
			imageBinaries: option(new GenGatewayChat().description, 'imageBinaries').default,
		});
		expect(added.error).toBeUndefined();
		expect(added.output('Chat')[0].json.text).toContain('png 32x24');

		const empty = await run({ imageBinaries: '' });
		expect(empty.error).toBeUndefined();
		expect(empty.output('Chat')[0].json.text).not.toContain('png 32x24');
	});
});
