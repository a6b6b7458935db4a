/**
 * On a host without n8n's AI node SDK (n8n 1.x: GG_N8N_MAJOR=1, the e2e-n8n1 project) the package still loads, its
 * other nodes work, and the GenGateway Chat Model fails with a clear message: it needs n8n 2.16 or newer.
 * On n8n 2.x this file checks only that the Chat Model's node type loads (test/e2e/agent.test.ts runs it).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startSimulator, type Simulator } from '../../simulator';
import { ROOT } from '../../scripts/lib/repo';
import { N8N_MAJOR } from '../../scripts/lib/n8n/runtime';
import { executeWorkflow, nodeOutput } from '../../scripts/lib/n8n/cli';
import { importCredentials, importWorkflow } from '../../scripts/lib/n8n/imports';
import { newState, removeState, removeTemplate } from '../../scripts/lib/n8n/state';

jest.setTimeout(900_000);

describe(`the package on n8n ${N8N_MAJOR}.x`, () => {
	let sim: Simulator;
	let state: string;
	beforeAll(async () => {
		sim = await startSimulator({ quiet: true, syncLatencyMs: 5 });
		state = await newState();
		await importCredentials(state, [
			{
				id: 'ggagentcred',
				name: 'GenGateway account',
				type: 'genGatewayApi',
				data: { apiKey: sim.keys.demo, baseUrl: sim.baseUrl },
			},
		]);
	});
	afterAll(async () => {
		await sim.stop();
		removeState(state);
		removeTemplate();
	});

	it('the other nodes load and work beside the Chat Model', async () => {
		await importWorkflow(state, {
			id: 'ggn1models',
			name: 'models',
			active: false,
			nodes: [
				{
					id: 'a',
					name: 'Start',
					type: 'n8n-nodes-base.manualTrigger',
					typeVersion: 1,
					position: [0, 0],
					parameters: {},
				},
				{
					id: 'b',
					name: 'Chat',
					type: 'n8n-nodes-gen-gateway.genGatewayChat',
					typeVersion: 1,
					position: [200, 0],
					parameters: {
						model: { __rl: true, mode: 'id', value: 'alpha-chat-4o' },
						messagesFrom: 'ui',
						messages: { values: [{ role: 'user', content: 'hello' }] },
						stream: false,
						options: {},
					},
					credentials: { genGatewayApi: { id: 'ggagentcred', name: 'GenGateway account' } },
				},
			],
			connections: { Start: { main: [[{ node: 'Chat', type: 'main', index: 0 }]] } },
			settings: { executionOrder: 'v1' },
		});
		const res = await executeWorkflow(state, 'ggn1models');
		// (measured: n8n 1.123.81's `n8n execute` of a Chat workflow sometimes ends by a signal after a successful run, with
		// or without this package's changes: the run data's status is what counts here)
		expect(res.data?.status).toBe('success');
		expect(String(nodeOutput(res, 'Chat')[0].json.text)).toMatch(/^Simulated answer: hello/);
		expect(res.stdout + res.stderr).not.toMatch(/LmChatGenGateway.*(error|fail)/i);
	});

	(N8N_MAJOR === '1' ? it : it.skip)(
		'the Chat Model in an AI Agent says clearly that it needs n8n 2.16 or newer; nothing is sent',
		async () => {
			const wf = JSON.parse(
				readFileSync(join(ROOT, 'examples/agent.json'), 'utf8')
					.split('REPLACE_CREDENTIAL_ID')
					.join('ggagentcred'),
			) as { id: string; nodes: Array<{ name: string; typeVersion: number; type: string }> };
			wf.id = 'ggn1agent';
			// n8n 1.x's newest AI Agent version
			wf.nodes.find((n) => n.name === 'AI Agent')!.typeVersion = 2.2;
			await importWorkflow(state, wf as unknown as Record<string, unknown>);
			sim.reset();
			const res = await executeWorkflow(state, 'ggn1agent');
			expect(res.code).not.toBe(0);
			expect(res.stdout + res.stderr).toContain(
				'The GenGateway Chat Model needs n8n 2.16 or newer',
			);
			expect(sim.log.filter((l) => l.method === 'POST')).toHaveLength(0);
		},
	);
});
