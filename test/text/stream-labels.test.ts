/**
 * Issue 42, bullet 4, over real HTTP against the simulator: a gateway that ignores `stream: true` and labels its
 * whole JSON answer as the stream it was asked for (`text/event-stream`, with or without a charset it was not written
 * in: the simulator's `[nostream=<content type>]`). The Chat and Responses nodes (streamed) and the Chat Model
 * (streaming on) read it as the plain request's answer to the same question: answered, once, never uncertain.
 */
import { GenGatewayChat } from '../../nodes/GenGatewayChat/GenGatewayChat.node';
import { GenGatewayResponses } from '../../nodes/GenGatewayResponses/GenGatewayResponses.node';
import { supplyModel } from '../chat-model/support';
import { useSimulator } from '../harness/simulator';
import { cleanupBinaryData, runWorkflow, type TestNode } from '../harness/workflow';

jest.setTimeout(20_000);

const sim = useSimulator({ quiet: true, syncLatencyMs: 5 }, { reset: true });
afterAll(() => cleanupBinaryData());

const LABELS = [
	'text/event-stream',
	'text/event-stream; charset=utf-16',
	'text/event-stream;charset="UTF-16LE"',
];
const creds = () => ({ apiKey: sim.keys.demo, baseUrl: sim.baseUrl });
const model = { __rl: true, mode: 'id', value: 'alpha-chat-4o' };
const posts = () => sim.log.filter((l) => l.method === 'POST').length;

const nodes = (q: string, stream: boolean): TestNode[] => [
	{
		name: 'Chat',
		type: new GenGatewayChat(),
		parameters: {
			model,
			messagesFrom: 'ui',
			messages: { values: [{ role: 'user', content: q }] },
			stream,
		},
	},
	{
		name: 'Responses',
		type: new GenGatewayResponses(),
		parameters: { model, input: q, stream },
	},
];

describe.each(LABELS)('a whole JSON answer labelled %s in reply to a streamed request', (label) => {
	const q = `ünïcödé ✓ [nostream=${label}]`;

	it('Chat and Responses (streamed): the answer of the plain request, one POST, not uncertain', async () => {
		for (const i of [0, 1]) {
			const plain = await runWorkflow({ nodes: [nodes(q, false)[i]], credentials: creds() });
			const before = posts();
			const streamed = await runWorkflow({ nodes: [nodes(q, true)[i]], credentials: creds() });
			const name = nodes(q, true)[i].name;
			const want = plain.output(name)[0].json;
			const got = streamed.output(name)[0].json;
			expect(typeof want.text === 'string' && want.text.includes('ünïcödé ✓')).toBe(true);
			expect({
				name,
				text: got.text,
				uncertain: got.submission_uncertain,
				failed: got.failed_at,
			}).toEqual({ name, text: want.text, uncertain: undefined, failed: undefined });
			expect(posts() - before).toBe(1);
		}
	});

	it('the Chat Model (streaming on): the turn is answered with the plain answer', async () => {
		const ask = async (streaming: boolean) => {
			const { model: lc } = await supplyModel(creds(), { options: { streaming } });
			return (await lc.invoke([{ role: 'user', content: q }])).text;
		};
		const want = await ask(false);
		const before = posts();
		expect(await ask(true)).toBe(want);
		expect(want).toContain('ünïcödé ✓');
		expect(posts() - before).toBe(1);
	});
});
