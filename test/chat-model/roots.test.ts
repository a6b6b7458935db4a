/**
 * The Chat Model under root nodes as n8n 2.41.1 ships them, in-process (n8n-core's WorkflowExecute supplies the model
 * through the `ai_languageModel` connection): a chain that asks for its model once per item with item index 0 (n8n's
 * Basic LLM Chain) gets each item's own answer, one paid call each; Max Expected Spend given per item by an expression
 * holds for the strictest item (issue 40, cases 1 and 5). Over HTTP against the simulator.
 */
import { NodeConnectionTypes, type IConnections } from 'n8n-workflow';
import { LmChatGenGateway } from '../../nodes/LmChatGenGateway/LmChatGenGateway.node';
import { useSimulator } from '../harness/simulator';
import { runWorkflow, type TestNode } from '../harness/workflow';
import { locator, MoneyAgent } from '../property/money-workflow';

const sim = useSimulator({ quiet: true, syncLatencyMs: 1 }, { reset: true });
const creds = () => ({ apiKey: sim.keys.demo, baseUrl: sim.baseUrl });
const posts = () => sim.log.filter((l) => l.method === 'POST' && l.path === '/v1/chat/completions');

const CHAIN = 'Chain';
const MODEL = 'GenGateway Chat Model';
const connections: IConnections = {
	[MODEL]: {
		[NodeConnectionTypes.AiLanguageModel]: [
			[{ node: CHAIN, type: NodeConnectionTypes.AiLanguageModel, index: 0 }],
		],
	},
};
/** a root that asks for its model per item with item 0 (as n8n's chains do), `batch` items at once */
const chain = (batch: number, extra: Partial<TestNode> = {}): TestNode => ({
	name: CHAIN,
	type: new MoneyAgent(),
	parameters: {
		tag: '={{ $json.tag }}',
		questions: '={{ $json.questions }}',
		batch,
		perItem: true,
	},
	...extra,
});
const model = (options: Record<string, unknown>): TestNode => ({
	name: MODEL,
	type: new LmChatGenGateway(),
	parameters: { model: locator('alpha-chat-4o'), options: { streaming: false, ...options } },
});
const item = (tag: string, more: Record<string, unknown> = {}) => ({
	json: { tag, questions: [{ arithmetic: false, a: 0, b: 0 }], ...more },
});

describe('a root that asks for its model once per item (n8n Basic LLM Chain)', () => {
	it.each([1, 5])(
		'Batch Size %s: three different questions, three paid calls, each item its own answer',
		async (batch) => {
			const r = await runWorkflow({
				nodes: [chain(batch), model({})],
				connections,
				input: [item('#one'), item('#two'), item('#three')],
				credentials: creds(),
			});
			expect(r.error).toBeUndefined();
			const answers = r.output(CHAIN).map((o) => (o.json.answers as string[])[0]);
			expect(answers).toEqual([
				expect.stringContaining('#one'),
				expect.stringContaining('#two'),
				expect.stringContaining('#three'),
			]);
			expect(posts()).toHaveLength(3);
		},
	);

	it.each([1, 5])(
		"Batch Size %s: two items asking the same thing each get their own paid call, never the other one's",
		async (batch) => {
			const r = await runWorkflow({
				nodes: [chain(batch), model({})],
				connections,
				input: [item('#same'), item('#same')],
				credentials: creds(),
			});
			expect(r.error).toBeUndefined();
			expect(posts()).toHaveLength(2);
		},
	);

	it("Max Expected Spend per item: item 2's ¤1 holds for the turns in flight (the strictest cap): bounded turns (Maximum Number of Tokens), nothing is sent", async () => {
		const r = await runWorkflow({
			nodes: [
				chain(5, { onError: 'continueRegularOutput' }),
				model({ maxSpend: '={{ $json.cap }}', maxTokens: 100 }),
			],
			connections,
			input: [item('#rich', { cap: '¤900000' }), item('#poor', { cap: '¤1' })],
			credentials: creds(),
		});
		expect(posts()).toHaveLength(0);
		for (const o of r.output(CHAIN))
			expect(String(o.json.error)).toMatch(/Max Expected Spend .*refused this model turn/);
	});
});

describe('two root nodes sharing one Chat Model', () => {
	it('two agents asking the same question each get their own paid call (a place names the root that asked)', async () => {
		const agent = (name: string): TestNode => ({
			name,
			type: new MoneyAgent(),
			parameters: {
				tag: '#shared',
				questions: JSON.stringify([{ arithmetic: false, a: 0, b: 0 }]),
				batch: 1,
			},
		});
		const r = await runWorkflow({
			nodes: [agent('Agent A'), agent('Agent B'), model({})],
			connections: {
				'Agent A': { main: [[{ node: 'Agent B', type: 'main', index: 0 }]] },
				[MODEL]: {
					[NodeConnectionTypes.AiLanguageModel]: [
						[
							{ node: 'Agent A', type: NodeConnectionTypes.AiLanguageModel, index: 0 },
							{ node: 'Agent B', type: NodeConnectionTypes.AiLanguageModel, index: 0 },
						],
					],
				},
			},
			input: [item('#shared')],
			credentials: creds(),
		});
		expect(r.error).toBeUndefined();
		expect(posts()).toHaveLength(2);
		expect((r.output('Agent B')[0].json.answers as string[])[0]).toContain('#shared');
	});
});

describe('an answer is never handed to another question (issue 40: a call is known by its place and its question)', () => {
	it("an agent's items at once, Retry On Fail, the user's text changing between tries: each try's question is its own call, and each item gets the answer to the question it asked in that try", async () => {
		// try 1: item 1's turn is refused with a 400 (a definite answer: nothing spent), item 2's is answered; n8n runs
		// the agent again, and each item now asks another question (its text holds a value that changes every try)
		sim.fault({ route: 'POST /v1/chat/completions', kind: 'status', status: 400, times: 1 });
		const r = await runWorkflow({
			nodes: [
				{
					name: CHAIN,
					type: new MoneyAgent(),
					parameters: {
						tag: '={{ $json.tag }}',
						questions: '={{ $json.questions }}',
						batch: 2,
						vary: '={{ Math.random().toString(36).slice(2, 10) }}',
						varyUser: true,
					},
					retryOnFail: true,
					maxTries: 2,
					waitBetweenTries: 0,
				},
				model({}),
			],
			connections,
			input: [item('#one'), item('#two')],
			credentials: creds(),
		});
		expect(r.error).toBeUndefined();
		// one POST per question asked: the first try's two (one refused), the second try's two
		expect(posts()).toHaveLength(4);
		for (const [i, o] of r.output(CHAIN).entries()) {
			const asked = (o.json.asked as string[])[0];
			expect(asked).toMatch(i === 0 ? /^#one/ : /^#two/);
			// the answer echoes the question it answers: the one this item asked in this try
			expect((o.json.answers as string[])[0]).toContain(asked.match(/\(now ([a-z0-9]+)\)/)![1]);
		}
	});
});
