/**
 * The GenGateway Chat Model through n8n's SDK adapter (what the AI Agent holds) against the simulator's scripted
 * language model over HTTP: tool calls plain and streamed, chat completions and responses, several calls in one
 * turn, tool results sent back, the gateway's usage (never an estimate), exactly one POST per model turn.
 */
import { useSimulator } from '../harness/simulator';
import { CALCULATOR, joinStream, supplyModel, type LcMessage, type LcModel } from './support';

jest.setTimeout(30_000);

const sim = useSimulator({ quiet: true, syncLatencyMs: 1 }, { reset: true });

const creds = () => ({ apiKey: sim.keys.demo, baseUrl: sim.baseUrl });
const posts = () => sim.log.filter((l) => l.method === 'POST');
const charges = () => sim.ledger.filter((l) => l.kind === 'charge').length;

type Mode = { streaming: boolean; useResponsesApi: boolean; how: 'invoke' | 'stream' };
const MODES: Array<[string, Mode]> = [
	['chat, plain, invoke', { streaming: false, useResponsesApi: false, how: 'invoke' }],
	['chat, streamed, invoke', { streaming: true, useResponsesApi: false, how: 'invoke' }],
	['chat, streamed, LangChain stream', { streaming: true, useResponsesApi: false, how: 'stream' }],
	['chat, plain, LangChain stream', { streaming: false, useResponsesApi: false, how: 'stream' }],
	['responses, plain, invoke', { streaming: false, useResponsesApi: true, how: 'invoke' }],
	['responses, streamed, invoke', { streaming: true, useResponsesApi: true, how: 'invoke' }],
	[
		'responses, streamed, LangChain stream',
		{ streaming: true, useResponsesApi: true, how: 'stream' },
	],
];

async function call(model: LcModel, mode: Mode, input: unknown): Promise<LcMessage> {
	return mode.how === 'invoke' ? model.invoke(input) : joinStream(await model.stream(input));
}

describe.each(MODES)('%s', (_name, mode) => {
	it('asks the calculator, gets the result back, answers with it; one POST and one charge per turn; the gateway usage', async () => {
		const { model, traced } = await supplyModel(creds(), {
			options: { streaming: mode.streaming, useResponsesApi: mode.useResponsesApi },
		});
		expect(model.lc_namespace).toContain('chat_models');
		const withTools = model.bindTools([CALCULATOR]);
		const question = { role: 'user', content: 'What is 12 * 7?' };
		const first = await call(withTools, mode, [question]);
		expect(first.tool_calls).toHaveLength(1);
		expect(first.tool_calls![0]).toMatchObject({ name: 'calculator', args: { input: '12 * 7' } });
		expect(first.tool_calls![0].id).toBeTruthy();
		expect(posts()).toHaveLength(1);
		const second = await call(withTools, mode, [
			question,
			first,
			{ role: 'tool', content: '84', tool_call_id: first.tool_calls![0].id },
		]);
		expect(second.text).toContain('84');
		expect(second.tool_calls ?? []).toHaveLength(0);
		expect(posts()).toHaveLength(2);
		expect(charges()).toBe(2);
		expect(
			posts().every(
				(p) => p.path === (mode.useResponsesApi ? '/v1/responses' : '/v1/chat/completions'),
			),
		).toBe(true);
		// every request went to the credential's origin (the simulator's gateway), none elsewhere
		expect(sim.log.every((l) => l.server === 'gateway')).toBe(true);
		if (mode.how === 'invoke') {
			// the counts n8n logs for the sub-node are the gateway's, not an estimate
			const usage = second.usage_metadata!;
			expect(usage.input_tokens).toBeGreaterThan(0);
			expect(usage.output_tokens).toBeGreaterThan(0);
			const out = traced.outputs.map((o) => o.json!);
			expect(out).toHaveLength(2);
			for (const o of out) {
				expect(o.tokenUsage).toBeDefined();
				expect(o.tokenUsageEstimate).toBeUndefined();
			}
		} else {
			// the stream's last chunk carries the gateway's usage, and n8n's tracing logs it (not its estimate)
			expect(second.usage_metadata?.output_tokens).toBeGreaterThan(0);
			const out = traced.outputs.map((o) => o.json!);
			expect(out).toHaveLength(2);
			for (const o of out) {
				expect(o.tokenUsage).toMatchObject({ completionTokens: expect.any(Number) });
				expect(o.tokenUsageEstimate).toBeUndefined();
			}
		}
	});

	it('several tool calls in one turn, each with its own ID and arguments', async () => {
		const { model } = await supplyModel(creds(), {
			options: { streaming: mode.streaming, useResponsesApi: mode.useResponsesApi },
		});
		const m = await call(model.bindTools([CALCULATOR]), mode, [
			{ role: 'user', content: 'What is 12 * 7 and what is 3 + 4?' },
		]);
		expect(m.tool_calls!.map((c) => c.args)).toEqual([{ input: '12 * 7' }, { input: '3 + 4' }]);
		expect(new Set(m.tool_calls!.map((c) => c.id)).size).toBe(2);
		expect(posts()).toHaveLength(1);
	});
});

describe('the request as sent', () => {
	it('a streamed chat asks for usage (stream_options.include_usage); the model ID goes exactly as given; options are sent', async () => {
		const { model } = await supplyModel(creds(), {
			model: 'alpha-chat-4o-mini',
			options: {
				streaming: true,
				temperature: 0.2,
				topP: 0.9,
				maxTokens: 77,
				responseFormat: 'json_object',
			},
		});
		const m = await model.invoke([{ role: 'user', content: 'hi [llm]' }]);
		expect(m.usage_metadata!.output_tokens).toBeGreaterThan(0);
		expect(posts()[0].model).toBe('alpha-chat-4o-mini');
	});

	it('an answer without usage has none: nothing is estimated into the model output', async () => {
		const { model, traced } = await supplyModel(creds(), { options: { streaming: false } });
		const m = await model.invoke([
			{ role: 'system', content: '[llm:no-usage]' },
			{ role: 'user', content: 'hi' },
		]);
		expect(m.usage_metadata).toBeUndefined();
		expect(traced.outputs[0].json!.tokenUsage).toBeUndefined();
	});
});
