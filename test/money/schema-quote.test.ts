/**
 * Issue 41, bullet 3 ("at most" only for a figure that is a bound; calls counted as sent): a Chat item asking for a
 * JSON Schema answer may send one repair request. On a site billing the chat model per call, its quote and its cap
 * count both requests, so the quote is a bound ("at most"), never an exact figure; once sent, the record counts the
 * requests that left (an answer that validated at once: one call, exact). In-process n8n against the simulator.
 */
import { useSimulator } from '../harness/simulator';
import { runWorkflow } from '../harness/workflow';
import { chat, cost, creds, customData, posts } from './support';

const sim = useSimulator({ quiet: true, seed: 7 });
const schema = JSON.stringify({
	type: 'object',
	properties: { answer: { type: 'string' } },
	required: ['answer'],
});
const format = {
	values: { responseFormat: 'json_schema', jsonSchema: schema, schemaName: 'reply' },
};
// the spec's per call: model_price × group ratio × quota_per_unit (0.002 × hd's 1.5 × ¤500000: the demo key's group)
const PER_CALL = 1500;

beforeEach(() => {
	sim.reset();
	sim.setPricing({ data: [{ model_name: 'alpha-chat-4o', quota_type: 1, model_price: 0.002 }] });
});
afterEach(() => sim.resetPricing());

describe('a JSON Schema answer on a per-call model: the quote is a bound, the record what was sent', () => {
	it('Quote Only: two calls at most (the request and its possible repair), called "at most", nothing sent', async () => {
		const r = await runWorkflow({
			nodes: [chat({ format, quoteOnly: true, groupName: 'hd' })],
			credentials: creds(sim),
		});
		expect(r.error).toBeUndefined();
		expect(posts(sim)).toHaveLength(0);
		const json = r.output('Chat')[0].json;
		expect(cost(json)).toMatchObject({ status: 'estimate', quota: 2 * PER_CALL });
		expect(String(cost(json).note)).toMatch(/^at most: 2 call\(s\)/);
		expect(json.quote_total).toMatchObject({ kind: 'at most', quota: 2 * PER_CALL });
	});

	it('sent: an answer that validates at once is one POST, recorded as one call, exact', async () => {
		const r = await runWorkflow({
			nodes: [chat({ format, groupName: 'hd' })],
			credentials: creds(sim),
		});
		expect(r.error).toBeUndefined();
		expect(posts(sim)).toHaveLength(1);
		expect(sim.charged({ key: 'demo' })).toBe(PER_CALL);
		expect(cost(r.output('Chat')[0].json)).toMatchObject({ status: 'expected', quota: PER_CALL });
		expect(Number(customData(r).gengateway_spent)).toBe(PER_CALL);
	});
});
