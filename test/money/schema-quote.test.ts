/**
 * Issue 41, bullet 3 ("at most" only for a figure that is a bound; calls counted as sent): a Chat item asking for a
 * JSON Schema answer may send one repair request. On a site billing the chat model per call, its quote and its cap
 * count both requests, so the quote is a bound ("at most"), never an exact figure; once sent, the record counts the
 * requests that left (an answer that validated at once: one call, exact). In-process n8n against the simulator.
 */
import type { IDataObject } from 'n8n-workflow';
import { RecordingProxy, type LossRule } from '../property/money-proxy';
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

/**
 * Per token, a first answer that does not fit the schema and its repair request are two charges, each of its own usage
 * rounded on its own: the record is their sum, never the two usages added and priced once (found by the money property,
 * seed -1139784961 path 49: ¤2 above what the calls cost), and a repair whose answer is lost after the charge keeps the
 * first answer's known charge in the record (seed 1015182839 path 19: it was dropped with the item).
 */
describe('a JSON Schema repair on a per-token model: each request recorded on its own', () => {
	const proxy = new RecordingProxy();
	let proxied = '';
	beforeAll(async () => {
		proxied = await proxy.start(sim.baseUrl);
	});
	afterAll(() => proxy.stop());
	beforeEach(() => {
		// ratios with fractions, so that two requests rounded apart differ from their usage added and rounded once
		sim.setPricing({
			data: [
				{ model_name: 'alpha-chat-4o', quota_type: 0, model_ratio: 0.37, completion_ratio: 1.3 },
			],
		});
	});
	const invalidFirst = (p: string) =>
		chat(
			{ format, groupName: 'hd' },
			{
				messages: { values: [{ role: 'user', content: `${p} [llm:invalid-first]` }] },
			},
		);
	const run = async (prompts: string[], losses: LossRule[] = []) => {
		proxy.reset(losses);
		const r = await runWorkflow({
			nodes: [{ ...invalidFirst('={{ $json.p }}'), name: 'Chat' }],
			input: prompts.map((p) => ({ json: { p } })),
			credentials: { apiKey: sim.keys.demo, baseUrl: proxied },
		});
		await proxy.settled();
		return r;
	};

	it('answered: two entries, the record equal to the two charges exactly', async () => {
		const prompts = Array.from({ length: 12 }, (_, k) => `name colour ${'x'.repeat(k * 7)}`);
		const r = await run(prompts);
		expect(r.error).toBeUndefined();
		expect(posts(sim)).toHaveLength(2 * prompts.length);
		const out = r.output('Chat');
		expect(out.map((o) => o.json.json_schema_repair)).toEqual(prompts.map(() => expect.anything()));
		expect(Number(customData(r).gengateway_spent)).toBe(sim.charged({ key: 'demo' }));
		for (const o of out) {
			const c = cost(o.json);
			expect(c.status).toBe('expected');
			const parts = c.per_request as IDataObject[];
			expect(parts).toHaveLength(2);
			expect(c.quota).toBe(Number(parts[0].quota) + Number(parts[1].quota));
		}
	});

	it("the repair's answer lost after the charge: the first answer's charge stays in the record", async () => {
		const r = await run(['name a colour'], [{ route: 'chat', nth: 2, how: '500' }]);
		expect(posts(sim)).toHaveLength(2);
		const [first, repair] = proxy.exchanges.filter((e) => e.method === 'POST');
		expect(repair.lost).toBe('500');
		const item = r.output('Chat')[0].json;
		expect(item.status).toBe('uncertain');
		const firstCharge = sim.charged({ requestId: first.requestId! });
		expect(firstCharge).toBeGreaterThan(0);
		// the repair's charge has no figure (its usage never arrived): the record counts the first exactly, and says a
		// call has no figure rather than calling it free
		expect(Number(customData(r).gengateway_spent)).toBe(firstCharge);
		expect(cost(item)).toMatchObject({ status: 'unknown', quota: null });
		expect((cost(item).per_request as IDataObject[]).map((c) => c.quota)).toEqual([
			firstCharge,
			null,
		]);
	});
});
