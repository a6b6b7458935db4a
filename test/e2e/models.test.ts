/**
 * Issue 34 in a real n8n 2.41.1 (`n8n execute`), n8n's own AI Agent against the simulator's scripted models, with the
 * workflows of examples/ as shipped: a thinking model with the Calculator (streaming on and off: the reasoning goes
 * back on the tool-call turn, one paid call per turn, the reasoning and each turn's tool calls and cost in the Chat
 * Model's run data, never in the answer), an agent asked about a PNG read from disk (*Automatically Passthrough Binary
 * Images*), and structured output through the Chat Model's JSON Schema (with its one repair request) and n8n's
 * Structured Output Parser.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { startSimulator, type Simulator } from '../../simulator';
import { CREDENTIAL_ID, loadExample } from '../../scripts/demo/workflows';
import {
	executeWorkflow,
	nodeOutput,
	runFailure,
	type ExecuteResult,
} from '../../scripts/lib/n8n/cli';
import { importCredentials } from '../../scripts/lib/n8n/imports';
import { importWorkflows } from '../../scripts/demo/n8n-more';
import { newState, removeState, removeTemplate } from '../../scripts/lib/n8n/state';

jest.setTimeout(900_000);

const MODEL_NODE = 'GenGateway Chat Model';
type Generation = { text: string; generationInfo?: Record<string, any> };
type SubRun = {
	data?: {
		ai_languageModel?: Array<
			Array<{
				json: { response?: { generations?: Generation[][] }; tokenUsage?: Record<string, number> };
			}>
		>;
	};
};

describe('issue 34 in a real n8n: thinking model + tool, image, structured output', () => {
	let sim: Simulator;
	let state: string;
	let outDir: string;
	let inputDir: string;
	const timings: string[] = [];
	beforeAll(async () => {
		sim = await startSimulator({ quiet: true, syncLatencyMs: 5 });
		state = await newState();
		outDir = join(state, 'files');
		inputDir = join(state, 'input');
		for (const d of ['agent-thinking', 'agent-image', 'agent-structured'])
			mkdirSync(join(outDir, d), { recursive: true });
		mkdirSync(inputDir, { recursive: true });
		await sharp({ create: { width: 64, height: 48, channels: 3, background: '#2b5fa8' } })
			.png()
			.toFile(join(inputDir, 'input.png'));
		await importCredentials(state, [
			{
				id: CREDENTIAL_ID,
				name: 'GenGateway account',
				type: 'genGatewayApi',
				data: { apiKey: sim.keys.demo, baseUrl: sim.baseUrl },
			},
		]);
	});
	afterAll(async () => {
		process.stdout.write(`[models e2e] ${timings.join('; ')}\n`);
		await sim.stop();
		removeState(state);
		removeTemplate();
	});
	beforeEach(() => sim.reset());

	type Wf = { id: string; nodes: Array<{ name: string; parameters: Record<string, any> }> };
	const modelOf = (wf: Wf) => wf.nodes.find((n) => n.name === MODEL_NODE)!;
	/** every test's workflow (an example with a change), imported in one n8n process before the tests */
	const RUNS: Record<string, [folder: string, change?: (wf: Wf) => void]> = {
		ggmodels1: ['agent-thinking', (wf) => (modelOf(wf).parameters.options.streaming = true)],
		ggmodels2: ['agent-thinking', (wf) => (modelOf(wf).parameters.options.streaming = false)],
		ggmodels3: ['agent-image'],
		ggmodels4: [
			'agent-structured',
			(wf) =>
				(wf.nodes.find((n) => n.name === 'AI Agent')!.parameters.options.systemMessage +=
					' [llm:invalid-first]'),
		],
	};
	beforeAll(async () => {
		await importWorkflows(
			state,
			Object.entries(RUNS).map(([id, [folder, change]]) => {
				const wf = loadExample(folder, { outDir, inputDir }) as Wf;
				wf.id = id;
				change?.(wf);
				return wf as unknown as Record<string, unknown>;
			}),
		);
	});

	async function run(id: keyof typeof RUNS): Promise<{ res: ExecuteResult; turns: SubRun[] }> {
		const t0 = Date.now();
		const res = await executeWorkflow(state, id, {
			fileAccess: [outDir, inputDir],
			timeoutMs: 300_000,
		});
		timings.push(`${id} ${((Date.now() - t0) / 1000).toFixed(1)} s`);
		if (res.code !== 0) throw new Error(runFailure(res));
		const runData = res.data?.data?.resultData?.runData as unknown as Record<string, SubRun[]>;
		return { res, turns: runData[MODEL_NODE] ?? [] };
	}
	const generation = (t: SubRun): Generation =>
		t.data!.ai_languageModel![0][0].json.response!.generations![0][0];
	const posts = () => sim.log.filter((l) => l.method === 'POST');
	const noKey = (res: ExecuteResult) =>
		expect(res.stdout + res.stderr).not.toContain(sim.keys.demo);

	it.each([true, false])(
		'thinking model + Calculator (streaming %s): answers 84, one paid call per turn, reasoning and tool calls in the run data only',
		async (streaming) => {
			const { res, turns } = await run(streaming ? 'ggmodels1' : 'ggmodels2');
			const answer = nodeOutput(res, 'AI Agent')[0].json.output;
			expect(answer).toBe('The result is 84.');
			expect(readFileSync(join(outDir, 'agent-thinking/answer.txt'), 'utf8')).toBe(
				'The result is 84.',
			);
			// the second request carried the tool-call turn's reasoning back: no 400, two paid calls, two charges
			expect(posts().map((p) => `${p.path} ${p.status} ${p.model}`)).toEqual(
				Array(2).fill('/v1/chat/completions 200 delta-think-r1'),
			);
			expect(sim.ledger.filter((l) => l.kind === 'charge')).toHaveLength(2);
			expect(turns).toHaveLength(2);
			const [t1, t2] = turns.map(generation);
			expect(t1.generationInfo!.tool_calls).toEqual([
				expect.objectContaining({
					id: expect.any(String),
					name: 'Calculator',
					args: '{"input":"12 * 7"}',
				}),
			]);
			expect(t1.generationInfo!.reasoning).toContain('I will call Calculator');
			expect(t1.generationInfo!.reasoning_tokens).toBeGreaterThan(0);
			expect(t1.generationInfo!.cost).toMatchObject({
				status: expect.any(String),
				quota: expect.any(Number),
			});
			expect(t2.text).toBe('The result is 84.');
			expect(t2.generationInfo!.reasoning).toContain('tool results');
			expect(String(answer)).not.toContain('tool results');
			for (const t of turns)
				expect(t.data!.ai_languageModel![0][0].json.tokenUsage!.completionTokens).toBeGreaterThan(
					0,
				);
			noKey(res);
		},
	);

	it('an agent given a PNG (Automatically Passthrough Binary Images) answers from it: one image part reached the vision model', async () => {
		const { res, turns } = await run('ggmodels3');
		const answer = String(nodeOutput(res, 'AI Agent')[0].json.output);
		expect(answer).toContain('png 64x48');
		expect(readFileSync(join(outDir, 'agent-image/answer.txt'), 'utf8')).toBe(answer);
		expect(posts().map((p) => `${p.path} ${p.status} ${p.model}`)).toEqual([
			'/v1/chat/completions 200 alpha-vision-1',
		]);
		// the gateway billed the image's tokens: the image part was sent, not dropped
		expect(JSON.stringify(sim.ledger.find((l) => l.kind === 'charge')!.basis)).toMatch(
			/"image":\d+/,
		);
		expect(turns).toHaveLength(1);
		noKey(res);
	});

	it("structured output: the Chat Model's JSON Schema (first answer invalid: one repair request) and n8n's Structured Output Parser", async () => {
		const { res, turns } = await run('ggmodels4');
		const output = nodeOutput(res, 'AI Agent')[0].json.output as Record<string, unknown>;
		expect(output).toEqual({ answer: expect.any(String), confidence: 0 });
		expect(JSON.parse(readFileSync(join(outDir, 'agent-structured/answer.json'), 'utf8'))).toEqual(
			output,
		);
		// the first answer failed the schema: one repair request, both billed, both costs in the turn's run data
		expect(posts().map((p) => p.status)).toEqual([200, 200]);
		expect(sim.ledger.filter((l) => l.kind === 'charge')).toHaveLength(2);
		expect(turns).toHaveLength(1);
		const info = generation(turns[0]).generationInfo!;
		expect(info.json_schema_repair.errors.join(' ')).toContain('required property "answer"');
		expect(info.json_schema_repair.cost).toMatchObject({ quota: expect.any(Number) });
		expect(info.cost).toMatchObject({ quota: expect.any(Number) });
		noKey(res);
	});
});
