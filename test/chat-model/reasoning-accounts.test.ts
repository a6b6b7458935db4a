/**
 * A thinking model's reasoning is kept per credential (issue 40, case 6): two Chat Models on two credentials in one
 * execution, against a gateway that names no tool call (so the package names both calls alike): account B's requests
 * never carry account A's reasoning, nor A's key that A's model echoed in it. And the simulator's thinking model checks
 * that the reasoning it gets back is the one it gave (breaking the round trip fails).
 */
import { json, scriptedServer, type ScriptedServer, type Seen } from '../harness/scripted-server';
import { useSimulator } from '../harness/simulator';
import { CALCULATOR, customDataStore, supplyModel, type LcMessage } from './support';

const KEY_A = 'sk-account-a-0123456789abcdef';
const KEY_B = 'sk-account-b-fedcba9876543210';
const REASONING_A = `Account A thinks privately (its key is ${KEY_A})`;

let server: ScriptedServer;
beforeAll(async () => {
	server = await scriptedServer((req: Seen, res) => {
		if (req.method !== 'POST') return json(res, 404, { error: { message: 'not here' } });
		const body = JSON.parse(req.body) as { messages: Array<{ role: string }> };
		const a = req.headers.authorization === `Bearer ${KEY_A}`;
		if (body.messages.some((m) => m.role === 'tool'))
			return json(res, 200, {
				object: 'chat.completion',
				choices: [
					{ index: 0, message: { role: 'assistant', content: 'It is 84.' }, finish_reason: 'stop' },
				],
			});
		// no tool call ID and no completion ID: the package names the call itself, alike for both accounts
		return json(res, 200, {
			object: 'chat.completion',
			choices: [
				{
					index: 0,
					message: {
						role: 'assistant',
						content: null,
						...(a ? { reasoning_content: REASONING_A } : {}),
						tool_calls: [
							{
								type: 'function',
								function: { name: 'calculator', arguments: '{"input":"12 * 7"}' },
							},
						],
					},
					finish_reason: 'tool_calls',
				},
			],
		});
	});
});
afterAll(() => server.close());

const Q = { role: 'user', content: 'What is 12 * 7?' };

it("account B's gateway never receives account A's reasoning (nor A's key in it), even under the same call name", async () => {
	const signal = new AbortController().signal;
	const at = { customData: customDataStore() };
	const opts = { options: { streaming: false } };
	const account = async (apiKey: string) =>
		(await supplyModel({ apiKey, baseUrl: server.url }, opts, undefined, signal, at)).model;
	const a = await account(KEY_A);
	const b = await account(KEY_B);
	const first = await a.bindTools([CALCULATOR]).invoke([Q]);
	const bFirst: LcMessage = await b.bindTools([CALCULATOR]).invoke([Q]);
	// the calls the gateway did not name are named after their question and account: never alike across accounts
	expect(first.tool_calls![0].id).not.toBe(bFirst.tool_calls![0].id);
	// even a turn handed back under A's call's name (an agent that renamed it) gets none of A's reasoning: the store is
	// kept per account
	const clash = bFirst.tool_calls!.map((c, i) => ({ ...c, id: first.tool_calls![i].id }));
	await b
		.bindTools([CALCULATOR])
		.invoke([
			Q,
			{ role: 'assistant', content: '', tool_calls: clash },
			{ role: 'tool', content: '84', tool_call_id: clash[0].id },
		]);
	const toB = server.seen.filter((s) => s.headers.authorization === `Bearer ${KEY_B}`);
	expect(toB).toHaveLength(2);
	for (const s of toB) {
		expect(s.body).not.toContain('privately');
		expect(s.body).not.toContain(KEY_A);
	}
});

describe("the simulator's thinking model checks the reasoning it gets back", () => {
	const sim = useSimulator({ quiet: true, syncLatencyMs: 1 }, { reset: true });
	it('the reasoning it gave, back with its tool calls: answered; another (empty) text: refused with 400', async () => {
		const ask = (messages: unknown[]) =>
			fetch(`${sim.baseUrl}/v1/chat/completions`, {
				method: 'POST',
				headers: { authorization: `Bearer ${sim.keys.demo}`, 'content-type': 'application/json' },
				body: JSON.stringify({ model: 'delta-think-r1', messages, tools: [CALCULATOR] }),
			});
		const first = (await (await ask([Q])).json()) as {
			choices: Array<{ message: { reasoning_content: string; tool_calls: Array<{ id: string }> } }>;
		};
		const m = first.choices[0].message;
		const back = (reasoning: string) => [
			Q,
			{ role: 'assistant', content: null, reasoning_content: reasoning, tool_calls: m.tool_calls },
			{ role: 'tool', content: '84', tool_call_id: m.tool_calls[0].id },
		];
		expect((await ask(back(m.reasoning_content))).status).toBe(200);
		const refused = await ask(back(''));
		expect(refused.status).toBe(400);
		expect(await refused.text()).toMatch(/is not the reasoning given with its tool calls/);
	});
});
