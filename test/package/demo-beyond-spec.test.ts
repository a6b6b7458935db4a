/**
 * Issue 44, bullet 6: the demo against any gateway that follows the spec. The simulator plays such a gateway
 * (`specOnlyChat`: it ignores `response_format`, and its model calls every tool it is offered). The structured-output
 * workflow's Chat Model, as the workflow sets it, gets its turn from that gateway the way n8n's AI Agent asks for it
 * (the Structured Output Parser's tool bound); the agent's parser is played on the turn's tool call, and the demo's
 * judge reads the run data n8n records for that: every step the spec promises did what it should, the structured
 * answer (beyond the spec) is skipped with its reason, and the demo would exit 0. Against the embedded simulator the
 * same failure stays a failure, and a failed model call is never skipped.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Validator, type Schema } from '@cfworker/json-schema';
import { startSimulator, type Simulator } from '../../simulator';
import { checkWorkflow, table } from '../../scripts/demo/summary';
import { STRUCTURED_SCHEMA, WORKFLOWS } from '../../scripts/demo/workflows';
import type { ExecuteResult } from '../../scripts/lib/n8n/cli';
import { supplyModel, type LcMessage } from '../chat-model/support';

jest.setTimeout(60_000);

const w = WORKFLOWS.find((x) => x.folder === 'agent-structured')!;
const CHAT_MODEL = 'GenGateway Chat Model';
const modelNode = w.nodes.find((n) => n.name === CHAT_MODEL)!;
const agentNode = w.nodes.find((n) => n.name === 'AI Agent')!;
/** n8n's "Model output doesn't fit required format" (the agent's parser, @n8n/n8n-nodes-langchain 2.41.1) */
const PARSER_ERROR = "Model output doesn't fit required format";

/** The tool n8n's AI Agent binds for a Structured Output Parser 1.3: its schema is `{output: <the parser's schema>}`. */
const parserTool = {
	type: 'function',
	function: {
		name: 'format_final_json_response',
		description:
			'Use this tool to format your final response to the user in a structured JSON format.',
		parameters: {
			type: 'object',
			properties: { output: JSON.parse(STRUCTURED_SCHEMA) },
			required: ['output'],
		},
	},
};

/** The agent's first model turn against `sim`, with the Chat Model's options as the demo workflow sets them. */
async function agentTurn(sim: Simulator): Promise<LcMessage> {
	const params = modelNode.parameters as { options: Record<string, unknown> };
	const { model } = await supplyModel(
		{ apiKey: sim.keys.demo, baseUrl: sim.baseUrl },
		{ model: 'alpha-chat-4o', options: params.options },
	);
	const agent = agentNode.parameters as { text: string; options: { systemMessage: string } };
	return model.bindTools([parserTool]).invoke([
		{ role: 'system', content: agent.options.systemMessage },
		{ role: 'user', content: agent.text },
	]);
}

/** What the agent's Structured Output Parser makes of the turn: the structured output, or n8n's error. */
function parse(turn: LcMessage): { output?: unknown; error?: string } {
	const call = turn.tool_calls?.find((c) => c.name === 'format_final_json_response');
	let value: unknown;
	try {
		value = call ? call.args : { output: JSON.parse(turn.text) };
	} catch {
		return { error: PARSER_ERROR };
	}
	const ok = new Validator(parserTool.function.parameters as Schema, '2020-12').validate(value);
	return ok.valid ? { output: (value as { output: unknown }).output } : { error: PARSER_ERROR };
}

/** n8n's run data of the workflow for that turn (the Chat Model's run, the agent's outcome), as `n8n execute` prints it. */
function runData(turn: LcMessage, opts: { modelError?: string } = {}): ExecuteResult {
	const parsed = parse(turn);
	const fail = parsed.error ?? opts.modelError;
	return {
		code: fail ? 1 : 0,
		stdout: '',
		stderr: '',
		data: {
			data: {
				resultData: {
					...(fail ? { error: { message: fail } } : {}),
					runData: {
						[CHAT_MODEL]: [
							opts.modelError
								? { error: { message: opts.modelError } }
								: {
										data: {
											ai_languageModel: [[{ json: { response: { generations: [] } } }]],
										},
									},
						],
						'AI Agent': [
							fail ? { error: { message: fail } } : { data: { main: [[{ json: parsed }]] } },
						],
					},
				},
			},
		} as unknown as ExecuteResult['data'],
	};
}

let out: string;
beforeAll(() => (out = mkdtempSync(join(tmpdir(), 'gg-beyond-'))));
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe('a gateway that follows the spec and ignores response_format (simulator: specOnlyChat)', () => {
	let sim: Simulator;
	let turn: LcMessage;
	beforeAll(async () => {
		sim = await startSimulator({ quiet: true, syncLatencyMs: 1, specOnlyChat: true });
		turn = await agentTurn(sim);
	});
	afterAll(() => sim.stop());

	it("its model calls the parser's tool with what it has (the question), which the parser cannot read", () => {
		expect(turn.tool_calls?.map((c) => c.name)).toEqual(['format_final_json_response']);
		expect(parse(turn)).toEqual({ error: PARSER_ERROR });
		// one paid call, answered as the spec promises (HTTP 200)
		expect(sim.log.filter((l) => l.method === 'POST').map((l) => l.status)).toEqual([200]);
	});

	it('the judge: the Chat Model step ok; the structured answer and its file skipped with the reason; the demo exits 0', () => {
		const entries = checkWorkflow(w, runData(turn), out, out, {
			checkLoop: false,
			beyondSpecUnknown: true,
		});
		expect(entries.map((e) => [e.step, e.ok, e.skipped !== undefined])).toEqual([
			[CHAT_MODEL, true, false],
			['AI Agent', true, true],
			['Write JSON', true, true],
		]);
		for (const e of entries.slice(1)) {
			expect(e.skipped).toMatch(/response_format.*"not shown"/);
			expect(e.skipped).toContain('this gateway: ');
		}
		expect(entries[1].skipped).toContain(PARSER_ERROR);
		expect(entries.every((e) => e.ok)).toBe(true);
		expect(table(entries)).toMatch(/^skip\s+agent-structured\s+AI Agent\s+/m);
	});

	it('a gateway known to honour response_format (the embedded simulator): the same failure fails the step', () => {
		const entries = checkWorkflow(w, runData(turn), out, out, { checkLoop: false });
		expect(entries.map((e) => [e.step, e.ok])).toEqual([
			[CHAT_MODEL, true],
			['AI Agent', false],
			['Write JSON', false],
		]);
	});

	it('a model call that failed is what the spec promises: nothing is skipped', () => {
		const entries = checkWorkflow(
			w,
			runData(turn, { modelError: 'GenGateway: the gateway answered HTTP 500' }),
			out,
			out,
			{ checkLoop: false, beyondSpecUnknown: true },
		);
		expect(entries.filter((e) => e.skipped)).toEqual([]);
		expect(entries.map((e) => [e.step, e.ok])).toEqual([
			[CHAT_MODEL, false],
			['AI Agent', false],
			['Write JSON', false],
		]);
	});
});

describe('the embedded simulator (response_format honoured)', () => {
	it('answers in the schema: the parser reads it', async () => {
		const sim = await startSimulator({ quiet: true, syncLatencyMs: 1 });
		try {
			const turn = await agentTurn(sim);
			expect(turn.tool_calls ?? []).toEqual([]);
			expect(parse(turn)).toEqual({
				output: { answer: expect.any(String), confidence: expect.any(Number) },
			});
		} finally {
			await sim.stop();
		}
	});
});
