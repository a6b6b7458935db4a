/**
 * Events: the Responses stream has "own event types and a completion event; names of those event types: not shown".
 * So the answer is complete at any terminal `response.*` event whose response object says it completed, whatever the
 * event is called; one whose response says failed or cancelled is a failure with the gateway's message. Through the
 * Responses node in n8n against the simulator's `sse-final-event` fault.
 */
import { useSimulator } from '../harness/simulator';
import { GenGatewayResponses } from '../../nodes/GenGatewayResponses/GenGatewayResponses.node';
import { cleanupBinaryData, runWorkflow, type TestNode } from '../harness/workflow';

const sim = useSimulator({ quiet: true, seed: 9 }, { reset: true });
afterAll(async () => {
	cleanupBinaryData();
});

const creds = () => ({ apiKey: sim.keys.demo, baseUrl: sim.baseUrl });
const responses: TestNode = {
	name: 'Responses',
	type: new GenGatewayResponses(),
	parameters: {
		model: { __rl: true, mode: 'id', value: 'alpha-chat-4o' },
		input: 'say hello',
		stream: true,
	},
	onError: 'continueRegularOutput',
};
const run = async () =>
	(await runWorkflow({ nodes: [responses], credentials: creds() })).output('Responses')[0].json;

describe('a streamed Responses answer ends at the event whose response says so', () => {
	const reference = async () => {
		const json = await run();
		expect(json.error).toBeUndefined();
		return json.text;
	};

	it.each(['response.done', 'response.finished'])(
		'"%s" with status completed: the full text, once',
		async (name) => {
			const text = await reference();
			expect(String(text).length).toBeGreaterThan(0);
			sim.fault({ route: 'POST /v1/responses', kind: 'sse-final-event', value: name });
			const json = await run();
			expect(json).toMatchObject({ text, finish_reason: 'completed' });
			expect(json.error).toBeUndefined();
			expect(sim.log.filter((l) => l.method === 'POST')).toHaveLength(2);
		},
	);

	it('a renamed end whose response says cancelled is a failure that says so, not a success', async () => {
		sim.fault({
			route: 'POST /v1/responses',
			kind: 'sse-final-event',
			value: 'response.cancelled',
			body: { status: 'cancelled' },
		});
		const json = await run();
		expect(json.status).toBe('failed');
		expect(String(json.error_message ?? json.error)).toMatch(/status "cancelled"/);
	});

	it('a renamed end whose response says failed carries the gateway message', async () => {
		sim.fault({
			route: 'POST /v1/responses',
			kind: 'sse-final-event',
			value: 'response.errored',
			body: { status: 'failed', error: { message: 'upstream overloaded', code: 'server_error' } },
		});
		const json = await run();
		expect(json.status).toBe('failed');
		expect(String(json.error_message ?? json.error)).toMatch(/upstream overloaded/);
	});
});
