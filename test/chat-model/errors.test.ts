/**
 * Issue 44 bullet 1: the reason reaches the person in the chat. n8n 2.41.1's roots hand a model's error on as their
 * own (AI Agent V3 executeBatch and Basic LLM Chain: `new NodeOperationError(node, err)`, which returns a
 * NodeOperationError as it is); a streamed chat gets n8n-core's error chunk, whose content is the error's description
 * (workflow-execute handleNodeExecutionError), and the editor shows the message (the node's error, its toast, the Logs
 * panel). So each Chat Model error's message is one line, the reason and what to do, and its description starts with
 * that line. (A chat answered "when the last node finishes" gets n8n's fixed "Error in workflow".) In-process through n8n-core (the root is
 * test/property/money-workflow.ts's MoneyAgent, which throws as n8n's Agent does), streaming on and off, over HTTP
 * against the simulator; the key never shows.
 */
import { NodeConnectionTypes, type IConnections } from 'n8n-workflow';
import { LmChatGenGateway } from '../../nodes/LmChatGenGateway/LmChatGenGateway.node';
import { useSimulator } from '../harness/simulator';
import { runWorkflow, type RunOptions, type TestNode } from '../harness/workflow';
import { locator, MoneyAgent } from '../property/money-workflow';

jest.setTimeout(60_000);

const sim = useSimulator({ quiet: true, syncLatencyMs: 1 }, { reset: true });
const creds = () => ({ apiKey: sim.keys.demo, baseUrl: sim.baseUrl });
const posts = () => sim.log.filter((l) => l.method === 'POST' && l.path === '/v1/chat/completions');

const ROOT = 'AI Agent';
const MODEL = 'GenGateway Chat Model';
const connections: IConnections = {
	[MODEL]: {
		[NodeConnectionTypes.AiLanguageModel]: [
			[{ node: ROOT, type: NodeConnectionTypes.AiLanguageModel, index: 0 }],
		],
	},
};
const root = (questions: number): TestNode => ({
	name: ROOT,
	type: new MoneyAgent(),
	parameters: {
		tag: '#chat',
		questions: JSON.stringify(Array(questions).fill({ arithmetic: false, a: 0, b: 0 })),
	},
});
const model = (options: Record<string, unknown>): TestNode => ({
	name: MODEL,
	type: new LmChatGenGateway(),
	parameters: { model: locator('alpha-chat-4o'), options },
});

/** What the person reads: the root's error (the editor shows its message), and the streamed error chunk's text. */
async function chatOf(nodes: TestNode[]) {
	const chunks: Parameters<NonNullable<RunOptions['onChunk']>>[0][] = [];
	const r = await runWorkflow({
		nodes,
		connections,
		input: [{ json: {} }],
		credentials: creds(),
		onChunk: (c) => chunks.push(c),
	});
	const runs = r.run.data.resultData.runData[ROOT];
	const error = runs?.[runs.length - 1]?.error as
		{ message: string; description?: string | null } | undefined;
	if (!error) throw new Error('expected the root node to fail');
	const streamed = chunks.filter((c) => c.type === 'error' && c.metadata.nodeName === ROOT);
	return {
		error,
		streamed: streamed.map((c) => c.content ?? ''),
		all: JSON.stringify({ error, chunks }),
	};
}

describe("a Chat Model error speaks in n8n's chat: one line, the reason and what to do", () => {
	it.each([false, true])(
		'streaming %s: a cap refusal without Maximum Number of Tokens names that option and says it makes the cap refuse before sending',
		async (streaming) => {
			const said = await chatOf([
				root(2),
				model({ streaming, groupName: 'hd', maxExpectedSpend: 1 }),
			]);
			// the first turn went (nothing spent yet, no bound), the second was refused before it was sent
			expect(posts()).toHaveLength(1);
			const line = said.error.message;
			expect(line).not.toContain('\n');
			expect(line).toMatch(
				/^GenGateway: Max Expected Spend \$[\d.]+ \(¤1\) refused this model turn before any paid request: .*reached the cap\. /,
			);
			expect(line).toMatch(/add Maximum Number of Tokens in the Chat Model's options/);
			expect(line).toMatch(/priced before it is sent, so the cap refuses a turn before sending it/);
			// the description (what a streamed chat shows) starts with the same line, the details after it
			expect(said.error.description?.split('\n')[0]).toBe(line);
			expect(said.error.description).toMatch(/can be passed by at most one turn/);
			// n8n-core's error chunk for the failed root carries that description
			expect(said.streamed).toHaveLength(1);
			expect(said.streamed[0].split('\n')[0]).toBe(line);
		},
	);

	it('a turn whose bound is over the cap (Maximum Number of Tokens set): the line says nothing was sent and what to lower', async () => {
		const said = await chatOf([
			root(1),
			model({ streaming: false, groupName: 'hd', maxTokens: 1000, maxExpectedSpend: 100 }),
		]);
		expect(posts()).toHaveLength(0);
		expect(said.error.message).toMatch(
			/refused this model turn before any paid request: .*\. Nothing was sent: raise Max Expected Spend in the Chat Model's options, or lower Maximum Number of Tokens/,
		);
		expect(said.error.description?.split('\n')[0]).toBe(said.error.message);
	});

	it.each([false, true])(
		"streaming %s: a gateway error says the gateway's message, the status and what to do, and never the key",
		async (streaming) => {
			sim.fault({
				route: 'POST /v1/chat/completions',
				kind: 'status',
				status: 500,
				body: { error: { message: `upstream exploded for ${sim.keys.demo}` } },
			});
			const said = await chatOf([root(1), model({ streaming })]);
			expect(said.error.message).toBe(
				"GenGateway: upstream exploded for *** (HTTP 500). It was not sent again: check the gateway's usage records before you run the workflow again.",
			);
			expect(said.streamed[0].split('\n')[0]).toBe(said.error.message);
			expect(said.all).not.toContain(sim.keys.demo);
		},
	);

	it('a 400 the gateway refuses: its advice is the line', async () => {
		sim.fault({
			route: 'POST /v1/chat/completions',
			kind: 'status',
			status: 400,
			body: { error: { message: 'messages: too long' } },
		});
		const said = await chatOf([root(1), model({ streaming: false })]);
		expect(said.error.message).toBe(
			'GenGateway: messages: too long (HTTP 400). A field, size, MIME type or model parameter does not fit: read the message, fix the input, do not loop.',
		);
	});
});

describe('Maximum Number of Tokens says what it changes', () => {
	it('its help names the cap: with it each turn is priced and refused before sending; without it the cap can be passed by one turn', () => {
		const options = new LmChatGenGateway().description.properties.find((p) => p.name === 'options')!
			.options as Array<{ name: string; description?: string }>;
		const help = options.find((o) => o.name === 'maxTokens')!.description!;
		expect(help).toMatch(
			/With Max Expected Spend .* priced before it is sent and refused before sending/,
		);
		expect(help).toMatch(/the cap can be passed by one turn/);
	});
});
