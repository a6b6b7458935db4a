/**
 * The Chat node's JSON Schema repair is its own paid send (issue 40, case 3): its own spend scope, 429 rule and ledger
 * place. Against a scripted gateway whose first answer never validates and whose repair answer is scripted per case: a
 * 429 on the repair sends the repair again (never the first, answered and paid request), a 400 on the repair leaves the
 * item spent (`submitted: true`: the first call was answered), and Retry On Fail under Stop Workflow never sends the
 * first request again.
 */
import type { ServerResponse } from 'node:http';
import { GenGatewayChat } from '../../nodes/GenGatewayChat/GenGatewayChat.node';
import { MAX_SENDS } from '../../nodes/shared/runners/send';
import { json, scriptedServer, type ScriptedServer, type Seen } from '../harness/scripted-server';
import { model } from '../harness/inputs';
import { runWorkflow, type TestNode } from '../harness/workflow';

const CHAT = '/v1/chat/completions';
const schema = JSON.stringify({
	type: 'object',
	properties: { answer: { type: 'string' } },
	required: ['answer'],
});

const answer = (content: string) => ({
	id: 'chatcmpl-1',
	object: 'chat.completion',
	model: 'alpha-chat-4o',
	choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
	usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
});

/** A request is the repair when it carries the first answer back (three messages or more after the user's). */
const isRepair = (s: Seen) =>
	(JSON.parse(s.body) as { messages: Array<{ role: string }> }).messages.some(
		(m) => m.role === 'assistant',
	);

let server: ScriptedServer;
let repairAnswer: (res: ServerResponse, nth: number) => void;
beforeEach(async () => {
	let repairs = 0;
	server = await scriptedServer((req, res) => {
		if (req.method !== 'POST') return json(res, 404, { error: { message: 'not here' } });
		if (!isRepair(req)) return json(res, 200, answer('{"nope": 1}'));
		return repairAnswer(res, ++repairs);
	});
});
afterEach(() => server.close());

const chat = (extra: Partial<TestNode> = {}): TestNode => ({
	name: 'Chat',
	type: new GenGatewayChat(),
	parameters: {
		model: model('alpha-chat-4o'),
		messagesFrom: 'ui',
		messages: { values: [{ role: 'user', content: 'Name a colour' }] },
		stream: false,
		options: {
			format: {
				values: { responseFormat: 'json_schema', jsonSchema: schema, schemaName: 'reply' },
			},
		},
	},
	...extra,
});
const run = (node: TestNode) =>
	runWorkflow({
		nodes: [node],
		credentials: { apiKey: 'sk-test-repair-0001', baseUrl: server.url },
	});
const firsts = () => server.posts(CHAT).filter((s) => !isRepair(s));
const repairs = () => server.posts(CHAT).filter(isRepair);

describe("the Chat node's JSON Schema repair: its own paid send", () => {
	it('a 429 on the repair sends the repair again by the one 429 rule, never the first request', async () => {
		repairAnswer = (res, nth) =>
			nth < 3
				? json(res, 429, { error: { message: 'slow down' } }, { 'retry-after': '0' })
				: json(res, 200, answer('{"answer": "red"}'));
		const r = await run(chat());
		expect(firsts()).toHaveLength(1);
		expect(repairs()).toHaveLength(3);
		expect(r.output('Chat')[0].json).toMatchObject({ output: { answer: 'red' } });
	});

	it('a 429 on every repair: at most MAX_SENDS repairs, the first never again, the item spent and failed', async () => {
		repairAnswer = (res) =>
			json(res, 429, { error: { message: 'slow down' } }, { 'retry-after': '0' });
		const r = await run(chat({ onError: 'continueRegularOutput' }));
		expect(firsts()).toHaveLength(1);
		expect(repairs()).toHaveLength(MAX_SENDS);
		expect(r.output('Chat')[0].json).toMatchObject({
			status: 'failed',
			failed_at: 'answer',
			submitted: true,
		});
		expect(String(r.output('Chat')[0].json.error_message)).toMatch(/repair request was refused/);
	});

	it('a 400 on the repair: the item is spent (the first call was answered and paid), not "submitted: false"', async () => {
		repairAnswer = (res) => json(res, 400, { error: { message: 'context too long' } });
		const r = await run(chat({ onError: 'continueRegularOutput' }));
		expect(firsts()).toHaveLength(1);
		expect(repairs()).toHaveLength(1);
		const j = r.output('Chat')[0].json as Record<string, unknown>;
		expect(j).toMatchObject({ status: 'failed', failed_at: 'answer', submitted: true });
		expect(j.json_schema_repair).toMatchObject({ errors: [expect.stringContaining('answer')] });
	});

	it('Stop Workflow with Retry On Fail: a refused repair never sends the first request again', async () => {
		repairAnswer = (res) => json(res, 400, { error: { message: 'context too long' } });
		await run(chat({ retryOnFail: true, maxTries: 3, waitBetweenTries: 0 }));
		expect(firsts()).toHaveLength(1);
	});

	it('cancelling the execution while the repair waits out a 429 cancels the item: never "repair refused: cancelled"', async () => {
		let cancel: () => void = () => undefined;
		repairAnswer = (res) => {
			json(res, 429, { error: { message: 'slow down' } }, { 'retry-after': '0' });
			setTimeout(() => cancel(), 50); // cancelled during the wait before the repair's next send
		};
		const r = await runWorkflow({
			nodes: [chat({ onError: 'continueRegularOutput' })],
			credentials: { apiKey: 'sk-test-repair-0001', baseUrl: server.url },
			onStart: (p) => (cancel = p.cancel),
		});
		expect(firsts()).toHaveLength(1);
		expect(repairs()).toHaveLength(1);
		if (r.run.status !== 'canceled') expect(r.error).toMatch(/cancel/i);
		// the cancellation stops the node as it does on the first request: no item claims the repair was refused
		// (with Continue, n8n itself passes the input item on)
		expect(JSON.stringify(r.output('Chat'))).not.toMatch(/refused|failed/);
	});
});
