/**
 * n8n's AI Agent with the GenGateway Chat Model and n8n's Calculator tool, in a real n8n 2.41.1 (`n8n execute`),
 * against the simulator's scripted language model: the agent answers a question that needs the tool, with the
 * model's streaming on and off, with Retry On Fail set on the agent. The simulator's ledger sees exactly one paid
 * call per model turn, no key is anywhere in the run data or n8n's database, the run data holds the gateway's
 * token usage. The workflow is examples/agent.json as shipped.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startSimulator, type Simulator } from '../../simulator';
import { ROOT } from '../../scripts/lib/repo';
import { executeWorkflow, nodeOutput, type ExecuteResult } from '../../scripts/lib/n8n/cli';
import { importCredentials } from '../../scripts/lib/n8n/imports';
import { importWorkflows } from '../../scripts/demo/n8n-more';
import { newState, removeState, removeTemplate } from '../../scripts/lib/n8n/state';

jest.setTimeout(900_000);

const MODEL_NODE = 'GenGateway Chat Model';
type SubRun = {
	data?: { ai_languageModel?: Array<Array<{ json: Record<string, unknown> }>> };
	error?: unknown;
};

describe('AI Agent + GenGateway Chat Model + Calculator in a real n8n', () => {
	let sim: Simulator;
	let state: string;
	let outDir: string;
	beforeAll(async () => {
		sim = await startSimulator({ quiet: true, syncLatencyMs: 5 });
		state = await newState();
		outDir = join(state, 'files');
		// n8n's Read/Write Files node does not create folders
		mkdirSync(join(outDir, 'agent'), { recursive: true });
		await importCredentials(state, [
			{
				id: 'ggagentcred',
				name: 'GenGateway account',
				type: 'genGatewayApi',
				data: { apiKey: sim.keys.demo, baseUrl: sim.baseUrl },
			},
		]);
	});
	/** every test's workflow, imported in one n8n process before the tests (one `import:workflow` each cost ~6 s) */
	const RUNS: Record<string, { streaming: boolean; question?: string; system?: string }> = {
		ggagent1: { streaming: true },
		ggagent2: { streaming: false },
		ggagent3: { streaming: false, system: '[llm:object-args]' },
		ggagent4: {
			streaming: true,
			question: 'What is 12 * 7 and what is 3 + 4?',
			system: '[llm:odd-split]',
		},
		ggagent5: { streaming: true },
	};
	beforeAll(async () => {
		await importWorkflows(
			state,
			Object.entries(RUNS).map(([id, o]) => workflow(id, o)),
		);
	});
	afterAll(async () => {
		await sim.stop();
		removeState(state);
		removeTemplate();
	});
	beforeEach(() => sim.reset());

	/** examples/agent.json with the credential, the output folder and the given changes */
	function workflow(
		id: string,
		opts: { streaming: boolean; question?: string; system?: string },
	): Record<string, unknown> {
		const text = readFileSync(join(ROOT, 'examples/agent.json'), 'utf8')
			.split('REPLACE_CREDENTIAL_ID')
			.join('ggagentcred')
			.split('/tmp/gen-gateway-demo')
			.join(outDir);
		const wf = JSON.parse(text) as {
			id: string;
			nodes: Array<{ name: string; parameters: Record<string, any>; retryOnFail?: boolean }>;
		};
		wf.id = id;
		const agent = wf.nodes.find((n) => n.name === 'AI Agent')!;
		expect(agent.retryOnFail).toBe(true);
		if (opts.question) agent.parameters.text = opts.question;
		if (opts.system) agent.parameters.options.systemMessage += ` ${opts.system}`;
		wf.nodes.find((n) => n.name === MODEL_NODE)!.parameters.options.streaming = opts.streaming;
		return wf as unknown as Record<string, unknown>;
	}

	async function run(
		id: keyof typeof RUNS,
	): Promise<{ res: ExecuteResult; turns: SubRun[]; ms: number }> {
		const t0 = Date.now();
		const res = await executeWorkflow(state, id, { fileAccess: [outDir], timeoutMs: 300_000 });
		const ms = Date.now() - t0;
		if (res.code !== 0)
			throw new Error(`n8n execute failed: ${res.stderr.slice(-3000)}\n${res.stdout.slice(-3000)}`);
		const runData = res.data?.data?.resultData?.runData as unknown as Record<string, SubRun[]>;
		return { res, turns: runData[MODEL_NODE] ?? [], ms };
	}

	function noKeyAnywhere(res: ExecuteResult): void {
		expect(res.stdout + res.stderr).not.toContain(sim.keys.demo);
		for (const f of ['database.sqlite', 'database.sqlite-wal']) {
			const p = join(state, '.n8n', f);
			if (existsSync(p)) expect(readFileSync(p).includes(Buffer.from(sim.keys.demo))).toBe(false);
		}
	}

	function expectGatewayUsage(turns: SubRun[]): void {
		for (const t of turns) {
			const json = t.data!.ai_languageModel![0][0].json;
			expect(json.tokenUsage).toMatchObject({
				promptTokens: expect.any(Number),
				completionTokens: expect.any(Number),
			});
			expect((json.tokenUsage as { completionTokens: number }).completionTokens).toBeGreaterThan(0);
			expect(json.tokenUsageEstimate).toBeUndefined();
		}
	}

	it.each([true, false])(
		'answers 12 * 7 with the Calculator (streaming %s): one paid call per model turn, gateway usage, no key',
		async (streaming) => {
			const { res, turns, ms } = await run(streaming ? 'ggagent1' : 'ggagent2');
			const answer = nodeOutput(res, 'AI Agent')[0].json.output;
			expect(answer).toBe('The result is 84.');
			expect(readFileSync(join(outDir, 'agent/answer.txt'), 'utf8')).toBe('The result is 84.');
			// two model turns: the tool call, then the answer from the tool result
			expect(turns).toHaveLength(2);
			expect(sim.ledger.filter((l) => l.kind === 'charge')).toHaveLength(2);
			expect(sim.log.filter((l) => l.method === 'POST')).toHaveLength(2);
			// every request went to the gateway: the paid calls, and the price list the turns are priced by (read once per supply)
			expect(
				sim.log.filter(
					(l) =>
						l.server !== 'gateway' ||
						(l.path !== '/v1/chat/completions' &&
							!(l.method === 'GET' && /^\/api\/(pricing|status)$/.test(l.path))),
				),
			).toEqual([]);
			expectGatewayUsage(turns);
			noKeyAnywhere(res);
			process.stdout.write(
				`[agent e2e] streaming ${streaming}: n8n execute ${(ms / 1000).toFixed(1)} s\n`,
			);
		},
	);

	it('recovers from a first-call 429 (sent again once after Retry-After) and from tool arguments sent as an object', async () => {
		sim.fault({ route: '/v1/chat/completions', kind: 'rate-limit', retryAfter: 1 });
		const { res, turns } = await run('ggagent3');
		expect(nodeOutput(res, 'AI Agent')[0].json.output).toBe('The result is 84.');
		expect(sim.log.filter((l) => l.method === 'POST').map((l) => l.status)).toEqual([
			429, 200, 200,
		]);
		expect(sim.ledger.filter((l) => l.kind === 'charge')).toHaveLength(turns.length);
		expectGatewayUsage(turns);
		noKeyAnywhere(res);
	});

	it('two tool calls in one streamed turn, their deltas split oddly and interleaved', async () => {
		const { res, turns } = await run('ggagent4');
		expect(nodeOutput(res, 'AI Agent')[0].json.output).toBe('The result is 84 and 7.');
		expect(turns).toHaveLength(2);
		expect(sim.ledger.filter((l) => l.kind === 'charge')).toHaveLength(2);
		noKeyAnywhere(res);
	});

	it('a 500 is not sent again: the run fails with the gateway message', async () => {
		sim.fault({
			route: '/v1/chat/completions',
			kind: 'status',
			status: 500,
			body: { error: { message: 'upstream exploded' } },
			times: 5,
		});
		const res = await executeWorkflow(state, 'ggagent5', {
			fileAccess: [outDir],
			timeoutMs: 300_000,
		});
		expect(res.code).not.toBe(0);
		expect(res.stdout + res.stderr).toContain('upstream exploded (HTTP 500)');
		// Retry On Fail on the agent runs it again with the same messages: that spent call is not sent a second time
		expect(res.stdout + res.stderr).toContain('not sent again');
		expect(sim.log.filter((l) => l.method === 'POST')).toHaveLength(1);
		noKeyAnywhere(res);
	});
});
