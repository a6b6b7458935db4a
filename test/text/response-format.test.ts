/**
 * Issue 44, bullet 2: picking Response Format "JSON Schema" shows the schema field at once, in the Chat node and the
 * Chat Model. What the editor shows is asked of n8n-workflow's own display rules, as n8n's editor asks them
 * (NodeHelpers.displayParameterPath on the node's parameters at the field's path, the node's version for `@version`;
 * NodeHelpers.getNodeParameters for what adding an option puts there). Version 1.1 (new nodes): Add Option → Response
 * Format shows its Type, JSON Schema picked, and the schema under it; version 1 (workflows saved before) keeps the four
 * options it had, and both places are read: a workflow saved with the old options still runs as before.
 * With the agent's Structured Output Parser and no schema of its own, the Chat Model says what to do.
 */
import {
	NodeHelpers,
	type INode,
	type INodeParameters,
	type INodeProperties,
	type INodeType,
} from 'n8n-workflow';
import { GenGatewayChat } from '../../nodes/GenGatewayChat/GenGatewayChat.node';
import { LmChatGenGateway } from '../../nodes/LmChatGenGateway/LmChatGenGateway.node';
import { useSimulator } from '../harness/simulator';
import { runWorkflow, type TestNode } from '../harness/workflow';
import { supplyModel } from '../chat-model/support';

jest.setTimeout(30_000);

const NODES: Array<[string, INodeType]> = [
	['GenGateway Chat', new GenGatewayChat()],
	['GenGateway Chat Model', new LmChatGenGateway()],
];

const optionsOf = (t: INodeType) =>
	(t.description.properties.find((p) => p.name === 'options')?.options ?? []) as INodeProperties[];

/** The names of the fields the editor shows among `props` at `path` of the node's parameters. */
function shown(
	t: INodeType,
	typeVersion: number,
	parameters: INodeParameters,
	path: string,
	props: INodeProperties[],
): string[] {
	const node = { typeVersion } as INode;
	return props
		.filter((p) =>
			NodeHelpers.displayParameterPath(
				{ parameters } as unknown as INodeParameters,
				p,
				`parameters.${path}`,
				node,
				t.description,
			),
		)
		.map((p) => p.name);
}

const RESPONSE_FORMAT_V1 = ['responseFormat', 'jsonSchema', 'schemaName', 'strictSchema'];

describe.each(NODES)('%s: Response Format in the editor', (_name, t) => {
	// looked up in each test, so that each fails on its own where the option is missing
	const formatOf = () => optionsOf(t).find((o) => o.name === 'format');
	const innerOf = () =>
		((formatOf()?.options ?? []) as Array<{ values: INodeProperties[] }>)[0]?.values ?? [];

	// the Chat node's 1.2 is 1.1 with the gateway's words in one object (issue 44); the Chat Model has no such items
	const versions = t.description.name === 'genGatewayChat' ? [1, 1.1, 1.2] : [1, 1.1];
	it('new nodes are the newest version; workflows made before keep version 1', () => {
		expect(t.description.version).toEqual(versions);
		expect(t.description.defaultVersion).toBe(versions[versions.length - 1]);
	});

	it.each(versions.slice(1))(
		'version %s: Add Option offers one Response Format (not the four options of version 1)',
		(v) => {
			const offered = shown(t, v, { options: {} }, 'options', optionsOf(t));
			expect(offered).toContain('format');
			expect(offered.filter((n) => RESPONSE_FORMAT_V1.includes(n))).toEqual([]);
		},
	);

	it.each([
		['json_schema', ['responseFormat', 'jsonSchema', 'schemaName', 'strictSchema']],
		['json_object', ['responseFormat']],
		['text', ['responseFormat']],
	])('version 1.1: Type %s shows %j', (type, fields) => {
		const parameters = { options: { format: { values: { responseFormat: type } } } };
		expect(shown(t, 1.1, parameters, 'options.format.values', innerOf())).toEqual(fields);
	});

	it('version 1.1: adding Response Format starts at JSON Schema and shows the schema with it', () => {
		const added = NodeHelpers.getNodeParameters(
			[formatOf()!],
			{ format: formatOf()!.default },
			true,
			false,
			{ typeVersion: 1.1 } as INode,
			t.description,
		) as { format: { values: Record<string, unknown> } };
		expect(added.format.values.responseFormat).toBe('json_schema');
		expect(JSON.parse(added.format.values.jsonSchema as string)).toMatchObject({ type: 'object' });
		expect(
			shown(
				t,
				1.1,
				{ options: added as unknown as INodeParameters },
				'options.format.values',
				innerOf(),
			),
		).toContain('jsonSchema');
	});

	it('version 1: the four options of before; JSON Schema, Schema Name, Strict Schema with JSON Schema only', () => {
		const offered = (options: INodeParameters) =>
			shown(t, 1, { options }, 'options', optionsOf(t)).filter(
				(n) => n === 'format' || RESPONSE_FORMAT_V1.includes(n),
			);
		expect(offered({ responseFormat: 'json_schema' })).toEqual(
			expect.arrayContaining(RESPONSE_FORMAT_V1),
		);
		expect(offered({ responseFormat: 'json_schema' })).not.toContain('format');
		expect(offered({ responseFormat: 'text' })).toEqual(['responseFormat']);
	});
});

const sim = useSimulator({ quiet: true, syncLatencyMs: 1 });
beforeEach(() => sim.reset());
const creds = () => ({ apiKey: sim.keys.demo, baseUrl: sim.baseUrl });
const posts = () => sim.log.filter((l) => l.method === 'POST');
const schema = JSON.stringify({
	type: 'object',
	properties: { answer: { type: 'string' }, confidence: { type: 'number' } },
	required: ['answer', 'confidence'],
});

const chat = (
	typeVersion: number,
	content: string,
	options: Record<string, unknown>,
): TestNode => ({
	name: 'Chat',
	type: new GenGatewayChat(),
	typeVersion,
	onError: 'continueRegularOutput',
	parameters: {
		model: { __rl: true, mode: 'id', value: 'alpha-chat-4o' },
		messagesFrom: 'ui',
		messages: { values: [{ role: 'user', content }] },
		stream: false,
		options,
	},
});

describe('Chat node: both places are read', () => {
	const places: Array<[string, number, Record<string, unknown>]> = [
		[
			'version 1, the options of before (a saved workflow)',
			1,
			{ responseFormat: 'json_schema', jsonSchema: schema, schemaName: 'reply' },
		],
		[
			'version 1.1, the Response Format option',
			1.1,
			{
				format: {
					values: { responseFormat: 'json_schema', jsonSchema: schema, schemaName: 'reply' },
				},
			},
		],
	];

	it.each(places)(
		'%s: the answer is checked against the schema, its value is output',
		async (_p, v, options) => {
			const r = await runWorkflow({
				nodes: [chat(v, 'Name a colour', options)],
				credentials: creds(),
			});
			expect(r.output('Chat')[0].json.output).toEqual({
				answer: expect.any(String),
				confidence: 0,
			});
			expect(posts()).toHaveLength(1);
		},
	);

	it.each(places)('%s: a failed repair names the schema given there', async (_p, v, options) => {
		const r = await runWorkflow({
			nodes: [chat(v, 'Name a colour [llm:invalid-always]', options)],
			credentials: creds(),
		});
		expect(r.output('Chat')[0].json.error_message).toMatch(
			/does not match the JSON Schema "reply", also after one repair request/,
		);
	});

	it('version 1.1: a schema left at its starting value (n8n does not store it) is that schema', async () => {
		const r = await runWorkflow({
			nodes: [
				chat(1.1, 'Name a colour', { format: { values: { responseFormat: 'json_schema' } } }),
			],
			credentials: creds(),
		});
		expect(r.output('Chat')[0].json.output).toEqual({ answer: expect.any(String) });
	});
});

describe("Chat Model: the Response Format option, and the agent's Structured Output Parser", () => {
	it('version 1.1 location: the answer validates against the schema given there; a bad one is refused before any request', async () => {
		const { model } = await supplyModel(creds(), {
			options: {
				streaming: false,
				format: { values: { responseFormat: 'json_schema', jsonSchema: schema } },
			},
		});
		const m = await model.invoke([{ role: 'user', content: 'Name a colour' }]);
		expect(JSON.parse(m.text)).toEqual({ answer: expect.any(String), confidence: 0 });
		await expect(
			supplyModel(creds(), {
				options: { format: { values: { responseFormat: 'json_schema', jsonSchema: '{"type": ' } } },
			}),
		).rejects.toThrow(/JSON Schema: is not valid JSON/);
		expect(posts()).toHaveLength(1);
	});

	/** The tool n8n's AI Agent binds when a Structured Output Parser (version 1.3) is attached. */
	const parserTool = {
		type: 'function',
		function: {
			name: 'format_final_json_response',
			description:
				'Use this tool to format your final response to the user in a structured JSON format.',
			parameters: {
				type: 'object',
				properties: {
					output: {
						type: 'object',
						properties: { answer: { type: 'string' } },
						required: ['answer'],
					},
				},
				required: ['output'],
			},
		},
	};

	it.each([false, true])(
		"no schema of its own (streaming %s): a text answer the parser cannot read fails saying to give the Chat Model the parser's schema",
		async (streaming) => {
			const { model } = await supplyModel(creds(), { options: { streaming } });
			const bound = model.bindTools([parserTool]);
			const run = streaming
				? (async () => {
						for await (const _ of await bound.stream([{ role: 'user', content: 'Name a colour' }]));
					})()
				: bound.invoke([{ role: 'user', content: 'Name a colour' }]);
			await expect(run).rejects.toThrow(
				/Structured Output Parser, and the model answered text that does not fit its schema/,
			);
			await run.catch((e: { description?: string }) =>
				expect(e.description).toMatch(/Options → Response Format → JSON Schema/),
			);
			expect(posts()).toHaveLength(1);
		},
	);

	it('no schema of its own: a text answer that fits the parser is handed on as it is', async () => {
		// JSON mode: the simulator answers {"answer": "…"}, the parser's output
		const { model } = await supplyModel(creds(), {
			options: { streaming: false, format: { values: { responseFormat: 'json_object' } } },
		});
		const m = await model
			.bindTools([parserTool])
			.invoke([{ role: 'user', content: 'Name a colour' }]);
		expect(JSON.parse(m.text)).toEqual({ answer: expect.any(String) });
	});
});
