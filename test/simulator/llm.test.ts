/**
 * The simulator's scripted language model on the wire (OpenAI's public format), without the node: rule-driven
 * tool calls and answers, usage on every answer, the quirks, and that requests without tools keep the plain
 * text behaviour.
 */
import { useSimulator } from '../harness/simulator';

const sim = useSimulator({ quiet: true, syncLatencyMs: 1 }, { reset: true });

const TOOLS = [
	{
		type: 'function',
		function: {
			name: 'calculator',
			parameters: { type: 'object', properties: { input: { type: 'string' } } },
		},
	},
];

async function post(path: string, body: unknown): Promise<{ status: number; text: string }> {
	const res = await fetch(`${sim.baseUrl}${path}`, {
		method: 'POST',
		headers: { authorization: `Bearer ${sim.keys.demo}`, 'content-type': 'application/json' },
		body: JSON.stringify(body),
	});
	return { status: res.status, text: await res.text() };
}
const events = (text: string) =>
	text
		.split('\n\n')
		.filter((e) => e.startsWith('data: ') && !e.includes('[DONE]'))
		.map((e) => JSON.parse(e.slice(6)));

it('chat, plain: a calculator call per expression, then an answer quoting the results; usage on both; one charge each', async () => {
	const q = { role: 'user', content: 'What is 12 * 7 and 3 + 4?' };
	const a = JSON.parse(
		(await post('/v1/chat/completions', { model: 'alpha-chat-4o', messages: [q], tools: TOOLS }))
			.text,
	);
	const calls = a.choices[0].message.tool_calls;
	expect(
		calls.map((c: { function: { arguments: string } }) => JSON.parse(c.function.arguments)),
	).toEqual([{ input: '12 * 7' }, { input: '3 + 4' }]);
	expect(a.choices[0].finish_reason).toBe('tool_calls');
	expect(a.usage.total_tokens).toBeGreaterThan(0);
	const results = calls.map((c: { id: string }, i: number) => ({
		role: 'tool',
		tool_call_id: c.id,
		content: ['84', '7'][i],
	}));
	const b = JSON.parse(
		(
			await post('/v1/chat/completions', {
				model: 'alpha-chat-4o',
				messages: [q, a.choices[0].message, ...results],
				tools: TOOLS,
			})
		).text,
	);
	expect(b.choices[0].message.content).toBe('The result is 84 and 7.');
	expect(b.usage.prompt_tokens).toBeGreaterThan(a.usage.prompt_tokens);
	expect(sim.ledger.filter((l) => l.kind === 'charge')).toHaveLength(2);
});

it('chat, streamed: usage only when stream_options.include_usage asks for it (as OpenAI); quirks by marker', async () => {
	const msgs = [{ role: 'user', content: 'What is 2 + 2?' }];
	const without = events(
		(
			await post('/v1/chat/completions', {
				model: 'alpha-chat-4o',
				messages: msgs,
				tools: TOOLS,
				stream: true,
			})
		).text,
	);
	expect(without.some((e) => e.usage)).toBe(false);
	const withUsage = events(
		(
			await post('/v1/chat/completions', {
				model: 'alpha-chat-4o',
				messages: msgs,
				tools: TOOLS,
				stream: true,
				stream_options: { include_usage: true },
			})
		).text,
	);
	expect(withUsage[withUsage.length - 1]).toMatchObject({
		choices: [],
		usage: { total_tokens: expect.any(Number) },
	});
	const empty = JSON.parse(
		(
			await post('/v1/chat/completions', {
				model: 'alpha-chat-4o',
				messages: [{ role: 'system', content: '[llm:empty-args]' }, ...msgs],
				tools: TOOLS,
			})
		).text,
	);
	expect(empty.choices[0].message.tool_calls[0].function.arguments).toBe('');
	const obj = JSON.parse(
		(
			await post('/v1/chat/completions', {
				model: 'alpha-chat-4o',
				messages: [{ role: 'system', content: '[llm:object-args]' }, ...msgs],
				tools: TOOLS,
			})
		).text,
	);
	expect(obj.choices[0].message.tool_calls[0].function.arguments).toEqual({ input: '2 + 2' });
	const odd = events(
		(
			await post('/v1/chat/completions', {
				model: 'alpha-chat-4o',
				messages: [{ role: 'system', content: '[llm:odd-split]' }, ...msgs],
				tools: TOOLS,
				stream: true,
			})
		).text,
	);
	const pieces = odd
		.flatMap((e) => e.choices?.[0]?.delta?.tool_calls ?? [])
		.map((t: { function?: { arguments?: string } }) => t.function?.arguments)
		.filter((a: unknown) => typeof a === 'string' && a);
	expect(pieces.join('')).toBe('{"input":"2 + 2"}');
	expect(pieces.length).toBeGreaterThan(5);
});

it('responses: function_call items, streamed argument deltas, usage in the completion event', async () => {
	const a = JSON.parse(
		(
			await post('/v1/responses', {
				model: 'alpha-chat-4o',
				input: 'What is 6 * 7?',
				tools: [{ type: 'function', name: 'calculator', parameters: {} }],
			})
		).text,
	);
	expect(a.output[0]).toMatchObject({
		type: 'function_call',
		name: 'calculator',
		arguments: '{"input":"6 * 7"}',
	});
	expect(a.usage.input_tokens).toBeGreaterThan(0);
	const s = (
		await post('/v1/responses', {
			model: 'alpha-chat-4o',
			input: [
				{ role: 'user', content: 'What is 6 * 7?' },
				{
					type: 'function_call',
					call_id: a.output[0].call_id,
					name: 'calculator',
					arguments: a.output[0].arguments,
				},
				{ type: 'function_call_output', call_id: a.output[0].call_id, output: '42' },
			],
			tools: [{ type: 'function', name: 'calculator', parameters: {} }],
			stream: true,
		})
	).text;
	expect(s).toContain('event: response.completed');
	expect(s).toContain('The result is 42.');
	expect(s).toMatch(/"usage":\{"input_tokens":\d+/);
});

it('without tools or markers the plain text simulator answers as before', async () => {
	const a = JSON.parse(
		(
			await post('/v1/chat/completions', {
				model: 'alpha-chat-4o',
				messages: [{ role: 'user', content: 'What is 2 + 2?' }],
			})
		).text,
	);
	expect(a.choices[0].message.content).toMatch(/^Simulated answer: What is 2 \+ 2\?/);
});

it('tool results: every result since the last user message counts (one call per assistant turn too); JSON results give their values', async () => {
	const m = [
		{ role: 'user', content: 'What is 12 * 7 and 3 + 4?' },
		{
			role: 'assistant',
			content: null,
			tool_calls: [
				{
					id: 'a',
					type: 'function',
					function: { name: 'calculator', arguments: '{"input":"12 * 7"}' },
				},
			],
		},
		{ role: 'tool', tool_call_id: 'a', content: '[{"response":"84"}]' },
		{
			role: 'assistant',
			content: null,
			tool_calls: [
				{
					id: 'b',
					type: 'function',
					function: { name: 'calculator', arguments: '{"input":"3 + 4"}' },
				},
			],
		},
		{ role: 'tool', tool_call_id: 'b', content: '7' },
	];
	const a = JSON.parse(
		(await post('/v1/chat/completions', { model: 'alpha-chat-4o', messages: m, tools: TOOLS }))
			.text,
	);
	expect(a.choices[0].message.content).toBe('The result is 84 and 7.');
});
