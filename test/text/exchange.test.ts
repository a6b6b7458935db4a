/**
 * The one text call reads a whole JSON answer to a streamed request by the plain path's rules (issue 42, bullet 4):
 * the one reader of whole bodies (`GatewayClient.parseBody`: the declared charset, a byte order mark, a UTF-8 body
 * under a wrong label). Over real HTTP against a scripted gateway, for the Chat node (streamed) and the Chat Model
 * (streaming on), each label beside the plain request's answer to the same bytes.
 */
import type { ServerResponse } from 'node:http';
import { GenGatewayChat } from '../../nodes/GenGatewayChat/GenGatewayChat.node';
import { cleanupBinaryData, runWorkflow, type TestNode } from '../harness/workflow';
import { json, scriptedServer, type ScriptedServer } from '../harness/scripted-server';
import { supplyModel } from '../chat-model/support';

jest.setTimeout(20_000);
afterAll(() => cleanupBinaryData());

const KEY = 'sk-charset-0123456789abcdef';
const ANSWER = 'answered ✓ ünïcödé';
const completionOf = (content: string) =>
	JSON.stringify({
		id: 'c1',
		object: 'chat.completion',
		choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
		usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 },
	});
const completion = completionOf(ANSWER);
const utf16be = (s: string) => Buffer.from(s, 'utf16le').swap16();

/** label, bytes, the answer's text: every way the plain path reads a JSON answer */
const CASES: Array<[string, string, Buffer, string]> = [
	[
		'a UTF-8 answer labelled charset=utf-16 (the case of issue 42)',
		'application/json; charset=utf-16',
		Buffer.from(completion),
		ANSWER,
	],
	[
		'a UTF-8 answer labelled charset=utf-16le',
		'application/json; charset=utf-16le',
		Buffer.from(completion),
		ANSWER,
	],
	[
		'a UTF-16LE answer labelled so',
		'application/json; charset=utf-16le',
		Buffer.from(completion, 'utf16le'),
		ANSWER,
	],
	[
		'a UTF-16 answer with a big-endian byte order mark',
		'application/json; charset=utf-16',
		Buffer.concat([Buffer.from([0xfe, 0xff]), utf16be(completion)]),
		ANSWER,
	],
	[
		'a UTF-16LE answer with its byte order mark under a utf-8 label (the mark decides)',
		'application/json; charset=utf-8',
		Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(completion, 'utf16le')]),
		ANSWER,
	],
	[
		'a UTF-8 answer labelled charset=utf-16 that carries the key: read, and the key redacted',
		'application/json; charset=utf-16',
		Buffer.from(completionOf(`key ${KEY} ✓`)),
		'key *** ✓',
	],
	[
		'a Latin-1 answer labelled so',
		'application/json; charset=iso-8859-1',
		Buffer.from(completion.replace(' ✓', ''), 'latin1'),
		ANSWER.replace(' ✓', ''),
	],
];

async function gateway(type: string, bytes: Buffer): Promise<ScriptedServer> {
	return scriptedServer((req, res: ServerResponse) => {
		if (req.method !== 'POST') return json(res, 404, { error: { message: 'not here' } });
		res.writeHead(200, { 'content-type': type, 'content-length': bytes.length });
		res.end(bytes);
	});
}

const chatNode = (stream: boolean): TestNode => ({
	name: 'Chat',
	type: new GenGatewayChat(),
	parameters: {
		model: { __rl: true, mode: 'id', value: 'alpha-chat-4o' },
		messagesFrom: 'ui',
		messages: { values: [{ role: 'user', content: 'hi' }] },
		stream,
	},
});

describe('the Chat node: a whole JSON answer to a streamed request is read as the plain request reads it', () => {
	it.each(CASES)('%s', async (_name, type, bytes, text) => {
		for (const stream of [false, true]) {
			const gw = await gateway(type, bytes);
			try {
				const r = await runWorkflow({
					nodes: [chatNode(stream)],
					credentials: { apiKey: KEY, baseUrl: gw.url },
				});
				const j = r.output('Chat')[0].json;
				expect({ stream, text: j.text, uncertain: j.submission_uncertain }).toEqual({
					stream,
					text,
					uncertain: undefined,
				});
				expect(j.streamed).toBe(false);
				expect(gw.posts()).toHaveLength(1);
			} finally {
				await gw.close();
			}
		}
	});
});

describe('the Chat Model (streaming on): the turn is answered', () => {
	it.each(CASES)('%s', async (_name, type, bytes, text) => {
		const gw = await gateway(type, bytes);
		try {
			const { model } = await supplyModel(
				{ apiKey: KEY, baseUrl: gw.url },
				{ options: { streaming: true } },
			);
			const m = await model.invoke([{ role: 'user', content: 'hi' }]);
			expect(m.text).toBe(text);
			expect(gw.posts()).toHaveLength(1);
		} finally {
			await gw.close();
		}
	});
});
