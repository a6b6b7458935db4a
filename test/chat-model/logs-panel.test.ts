/**
 * Issue 44, bullet 4: the tool-call turn in n8n's Logs panel, side by side with n8n's own OpenAI Chat Model. The same
 * AI Agent turns (the Calculator bound, "What is 12 * 7?", then the tool's answer) are asked of n8n 2.41.1's
 * `@n8n/n8n-nodes-langchain.lmChatOpenAi` (loaded from the private n8n install, its credential's Base URL on the
 * simulator's OpenAI-compatible `/v1/chat/completions`) and of the GenGateway Chat Model, over real HTTP against the
 * simulator. Each model's run data is what n8n's own tracing writes (`N8nLlmTracing` for the OpenAI model, the AI node
 * SDK's for ours), read by the Logs panel's parser as n8n-editor-ui 2.41.1 ships it.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { ISupplyDataFunctions } from 'n8n-workflow';
import { N8N_HOME, ensureN8n } from '../../scripts/lib/n8n/runtime';
import { useSimulator } from '../harness/simulator';
import {
	CALCULATOR,
	NODE,
	newTrace,
	supplyCtx,
	supplyModel,
	type LcMessage,
	type LcModel,
	type Traced,
} from './support';

jest.setTimeout(120_000);

const sim = useSimulator({ quiet: true, syncLatencyMs: 1 });
beforeEach(() => sim.reset());
const creds = () => ({ apiKey: sim.keys.demo, baseUrl: sim.baseUrl });

/** A module of the private n8n 2.41.1 install, as n8n itself loads it (its own LangChain, tracing and network). */
function installed(id: string) {
	ensureN8n();
	const at = join(N8N_HOME, 'app/node_modules/@n8n/n8n-nodes-langchain/package.json');
	return createRequire(at)(id.startsWith('.') ? join(at, '..', id) : id);
}

/** n8n 2.41.1's OpenAI Chat Model node. */
function openAiNodeClass(): new () => {
	supplyData(this: ISupplyDataFunctions, i: number): Promise<{ response: unknown }>;
} {
	return installed('./dist/nodes/llms/LMChatOpenAi/LmChatOpenAi.node.js').LmChatOpenAi;
}

/** The OpenAI Chat Model 1.3 as a new node in the editor: model by ID, Chat Completions, no options; its credential's Base URL the simulator's. */
async function supplyOpenAi(traced: Traced): Promise<LcModel> {
	const ctx = supplyCtx(creds(), {}, traced) as unknown as Record<string, unknown>;
	const params: Record<string, unknown> = {
		'model.value': 'alpha-chat-4o',
		responsesApiEnabled: false,
		options: {},
	};
	Object.assign(ctx, {
		getNode: () => ({
			...NODE,
			name: 'OpenAI Chat Model',
			type: '@n8n/n8n-nodes-langchain.lmChatOpenAi',
			typeVersion: 1.3,
		}),
		getCredentials: async () => ({ apiKey: sim.keys.demo, url: `${sim.baseUrl}/v1` }),
		getNodeParameter: (name: string, _i: number, fallback?: unknown) => params[name] ?? fallback,
		// n8n's own filter with its SSRF protection off (the default), from the same install
		helpers: {
			getSecureEgressFilter: () => installed('@n8n/backend-network/egress').passthroughEgressFilter,
		},
	});
	const Node = openAiNodeClass();
	const { response } = await new Node().supplyData.call(ctx as unknown as ISupplyDataFunctions, 0);
	return response as LcModel;
}

/**
 * n8n-editor-ui 2.41.1's Logs panel parser for an `ai_languageModel` run, as its bundle ships it
 * (`useCanvasOperations-*.js`, `[NodeConnectionTypes.AiLanguageModel](e)`): the response's `generations`, each list
 * shown as its generations' `text` joined (or the generation itself when it has no `text`).
 */
function logsPanel(e: Record<string, any>): { type: string; data: unknown; parsed: boolean } {
	const t = e.response ?? e;
	if (!t) throw Error('No response from Language Model');
	if (Array.isArray(t?.messages) && t?.messages.length === 1 && typeof t?.messages[0] === 'string')
		return { type: 'text', data: t.messages[0], parsed: true };
	if (t.messages && Array.isArray(t.messages)) throw new Error('a memory run, not a model turn');
	return t.generations
		? {
				type: 'json',
				data: t.generations.map((g: any) =>
					g?.text
						? g.text
						: Array.isArray(g)
							? g
									.map((x: any) => x.text ?? x)
									.join('\n\n')
									.trim()
							: g,
				),
				parsed: true,
			}
		: { type: 'json', data: t, parsed: true };
}

/** The agent's two model turns: the Calculator bound, the question, then the tool's answer (as n8n's Agent rebuilds turn 1). */
async function agentTurns(model: LcModel): Promise<[LcMessage, LcMessage]> {
	const bound = model.bindTools([CALCULATOR]);
	const q = { role: 'user', content: 'What is 12 * 7?' };
	const first = await bound.invoke([q]);
	const call = first.tool_calls![0];
	const second = await bound.invoke([
		q,
		{
			role: 'assistant',
			content: '',
			tool_calls: [{ id: call.id, name: call.name, args: call.args, type: 'tool_call' }],
		},
		{ role: 'tool', content: '84', tool_call_id: call.id },
	]);
	return [first, second];
}

describe("the tool-call turn in n8n's Logs panel, beside n8n's own OpenAI Chat Model in the same agent", () => {
	it('both models call the Calculator and answer; the Logs panel reads each turn from their run data', async () => {
		const openAiTrace = newTrace();
		const openAi = await agentTurns(await supplyOpenAi(openAiTrace));
		const ours = newTrace();
		const gen = await agentTurns(
			(await supplyModel(creds(), { model: 'alpha-chat-4o' }, ours)).model,
		);

		// the same agent turns: a call of the Calculator with the question, then the answer
		for (const [first, second] of [openAi, gen]) {
			expect(first.tool_calls).toEqual([
				expect.objectContaining({ name: 'calculator', args: { input: '12 * 7' } }),
			]);
			expect(second.text).toBe('The result is 84.');
		}
		const panel = (t: Traced) => t.outputs.map((o) => logsPanel(o.json!));
		const [o1, o2] = panel(openAiTrace);
		const [g1, g2] = panel(ours);
		// the answer turn reads the same in both: its text
		expect(o2).toEqual({ type: 'json', data: ['The result is 84.'], parsed: true });
		expect(g2).toEqual(o2);
		// the tool-call turn: the same place and shape in both (one parsed list, one text per turn). n8n's own model
		// shows an empty text and keeps no trace of its call in the run data (n8n's tracing keeps only `text` and
		// `generationInfo`, which says `finish_reason: "tool_calls"`); ours shows its call as the turn's text (issue 44,
		// finding 4: "the tool-call turn looks empty") and keeps the call in `generationInfo.tool_calls`
		expect(o1).toEqual({ type: 'json', data: [''], parsed: true });
		expect(openAiTrace.outputs[0].json).toMatchObject({
			response: { generations: [[{ text: '', generationInfo: { finish_reason: 'tool_calls' } }]] },
		});
		expect(JSON.stringify(openAiTrace.outputs[0].json)).not.toContain('12 * 7');
		expect(g1).toEqual({
			type: 'json',
			data: ['Calling calculator({"input":"12 * 7"})'],
			parsed: true,
		});
		const gen1 = (ours.outputs[0].json as any).response.generations[0][0];
		expect(gen1.generationInfo.tool_calls).toEqual([
			{ id: gen[0].tool_calls![0].id, name: 'calculator', args: '{"input":"12 * 7"}' },
		]);
		// the tool-call turn the agent keeps is the same in both: no text, the call
		expect(gen[0].text).toBe(openAi[0].text);
	});
});
