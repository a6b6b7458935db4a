/**
 * The Chat and Responses action nodes hand the gateway's token counts to n8n (`accumulateTokenUsage`, n8n 2.x),
 * besides the `usage` they output; on a host without it nothing changes.
 */
import { useSimulator } from '../harness/simulator';
import { GenGatewayChat } from '../../nodes/GenGatewayChat/GenGatewayChat.node';
import { GenGatewayResponses } from '../../nodes/GenGatewayResponses/GenGatewayResponses.node';
import { reportTokenUsage } from '../../nodes/shared/text/tokenUsage';
import type { IExecuteFunctions } from 'n8n-workflow';
import { cleanupBinaryData, runWorkflow } from '../harness/workflow';

jest.setTimeout(30_000);

const sim = useSimulator({ quiet: true, syncLatencyMs: 1 }, { reset: true });
afterAll(async () => {
	cleanupBinaryData();
});

const creds = () => ({ apiKey: sim.keys.demo, baseUrl: sim.baseUrl });
const model = { __rl: true, mode: 'id', value: 'alpha-chat-4o' };

it.each([false, true])(
	'Chat (stream %s): the run data metadata holds the gateway usage of both items, summed',
	async (stream) => {
		const r = await runWorkflow({
			nodes: [
				{
					name: 'Chat',
					type: new GenGatewayChat(),
					parameters: {
						model,
						messagesFrom: 'ui',
						messages: { values: [{ role: 'user', content: 'hello {{ $json.n }}' }] },
						stream,
					},
				},
			],
			input: [{ json: { n: 1 } }, { json: { n: 2 } }],
			credentials: creds(),
		});
		expect(r.error).toBeUndefined();
		const items = r.output('Chat');
		const sum = (k: string) =>
			items.reduce((s, i) => s + ((i.json.usage as Record<string, number>)[k] ?? 0), 0);
		const meta = r.run.data.resultData.runData.Chat[0].metadata as {
			tokenUsage?: { inputTokens: number; outputTokens: number };
		};
		expect(meta.tokenUsage).toEqual({
			inputTokens: sum('prompt_tokens'),
			outputTokens: sum('completion_tokens'),
		});
		expect(meta.tokenUsage!.inputTokens).toBeGreaterThan(0);
	},
);

it('Responses: input/output tokens', async () => {
	const r = await runWorkflow({
		nodes: [
			{
				name: 'Responses',
				type: new GenGatewayResponses(),
				parameters: { model, input: 'hello', stream: false },
			},
		],
		credentials: creds(),
	});
	const usage = r.output('Responses')[0].json.usage as Record<string, number>;
	const meta = r.run.data.resultData.runData.Responses[0].metadata as { tokenUsage?: unknown };
	expect(meta.tokenUsage).toEqual({
		inputTokens: usage.input_tokens,
		outputTokens: usage.output_tokens,
	});
});

it('a host without accumulateTokenUsage (n8n 1.x) or without setMetadata is left alone; no usage reports nothing', () => {
	const calls: unknown[] = [];
	const ctx = {
		setMetadata: (m: unknown) => calls.push(m),
		getExecuteData: () => ({}),
	} as unknown as IExecuteFunctions;
	expect(reportTokenUsage(ctx, { prompt_tokens: 3, completion_tokens: 4 }, null)).toBe(false);
	expect(
		reportTokenUsage({} as IExecuteFunctions, { prompt_tokens: 3, completion_tokens: 4 }),
	).toBe(false);
	expect(reportTokenUsage(ctx, undefined)).toBe(false);
	expect(reportTokenUsage(ctx, { prompt_tokens: 3, completion_tokens: 4 })).toBe(true);
	expect(calls).toEqual([{ tokenUsage: { inputTokens: 3, outputTokens: 4 } }]);
});
