/**
 * The GenGateway Chat Model in the package's one ledger and one money record (issue 32, bullets 1, 2, 5): each model
 * turn is known by its place (the Chat Model, the root node and its run, the call's ordinal), never by its body; its
 * cost goes into the execution's record as it happens; Max Expected Spend is checked before every turn against what
 * the execution spent plus what the turn can cost. Through n8n's SDK adapter (what the AI Agent holds), over HTTP
 * against the simulator; every figure checked against what the simulator charged.
 */
import { useSimulator } from '../harness/simulator';
import { ExecutionSpend } from '../../nodes/shared/money/record';
import { CALCULATOR, customDataStore, supplyModel, type SupplyPlace } from './support';

jest.setTimeout(30_000);

const sim = useSimulator({ quiet: true, syncLatencyMs: 1 }, { reset: true });

const creds = () => ({ apiKey: sim.keys.demo, baseUrl: sim.baseUrl });
const posts = () => sim.log.filter((l) => l.method === 'POST');
const Q = [{ role: 'user', content: 'What is 12 * 7?' }];

async function failure(p: Promise<unknown>): Promise<Error & { description?: string }> {
	try {
		await p;
	} catch (err) {
		return err as Error & { description?: string };
	}
	throw new Error('expected the call to fail');
}

/** One execution: its cancel signal and its custom data, shared by every supply of the Chat Model in it. */
function execution() {
	const signal = new AbortController().signal;
	const customData = customDataStore();
	const at = (more: SupplyPlace = {}): SupplyPlace => ({ customData, ...more });
	return { signal, customData, at };
}

describe('the money record: every turn, as it happens', () => {
	it("each turn's cost is the gateway's charge and goes into gengateway_spent; the action nodes' cap reads the same record", async () => {
		const ex = execution();
		const { model } = await supplyModel(
			creds(),
			{ options: { streaming: false, groupName: 'hd' } },
			undefined,
			ex.signal,
			ex.at(),
		);
		const m = await model.bindTools([CALCULATOR]).invoke(Q);
		expect(m.tool_calls).toHaveLength(1);
		const charged = sim.charged({ key: 'demo' });
		expect(charged).toBeGreaterThan(0);
		expect(ex.customData.get('gengateway_spent')).toBe(String(charged));
		// the turn's cost, as the action nodes' items give it, is in what the model hands the agent
		expect(
			(m as unknown as { response_metadata: { gengateway_cost: Record<string, unknown> } })
				.response_metadata.gengateway_cost,
		).toMatchObject({ status: 'expected', basis: 'per token', quota: charged });
		// any node of the same execution (here read as Image Submit's cap reads it) sees the agent's spend
		const spend = new ExecutionSpend({
			getExecutionCancelSignal: () => ex.signal,
			getWorkflowDataProxy: () => ({ $execution: { customData: ex.customData } }),
		} as never);
		expect(spend.spent().quota).toBe(charged);
	});

	it("with the credential's Key's Group and no option of its own, a turn's cost is the charge (issue 41, bullet 5)", async () => {
		const ex = execution();
		const { model } = await supplyModel(
			{ ...creds(), keyGroup: 'hd' },
			{ options: { streaming: false } },
			undefined,
			ex.signal,
			ex.at(),
		);
		const m = await model.invoke(Q);
		const charged = sim.charged({ key: 'demo' });
		expect(
			(m as unknown as { response_metadata: { gengateway_cost: Record<string, unknown> } })
				.response_metadata.gengateway_cost,
		).toMatchObject({ status: 'expected', quota: charged, group: 'hd' });
		expect(ex.customData.get('gengateway_spent_text')).not.toMatch(/at most/);
	});

	it('without the group, a turn counts at the highest published group ratio: the record is never below the charge', async () => {
		const ex = execution();
		const { model } = await supplyModel(
			creds(),
			{ options: { streaming: true } },
			undefined,
			ex.signal,
			ex.at(),
		);
		await model.invoke(Q);
		expect(Number(ex.customData.get('gengateway_spent'))).toBeGreaterThanOrEqual(
			sim.charged({ key: 'demo' }),
		);
		expect(ex.customData.get('gengateway_spent_text')).toMatch(/at most/);
	});
});

describe('Max Expected Spend on the Chat Model, before every turn', () => {
	it('with Maximum Number of Tokens a turn has a bound: a turn whose bound is over the cap is refused before it is sent, naming the cap, the spent-so-far and the price', async () => {
		const ex = execution();
		const { model } = await supplyModel(
			creds(),
			{ options: { streaming: false, groupName: 'hd', maxTokens: 1000, maxExpectedSpend: 100 } },
			undefined,
			ex.signal,
			ex.at(),
		);
		const err = await failure(model.invoke(Q));
		expect(posts()).toHaveLength(0);
		expect(err.message).toMatch(
			/^GenGateway: Max Expected Spend \$0\.0002 \(¤100\) refused this model turn before any paid request: the price of \$[\d.]+ \(¤\d+\) \+ spent so far \$0\.00 \(¤0\)/,
		);
		expect(err.description).toMatch(/Price: alpha-chat-4o: .* at most per item/);
	});

	it('a cap the turns reach stops the agent: the turn that would pass it is refused, and the record stays at what was charged', async () => {
		const ex = execution();
		// each turn costs at most (bytes + 50 completion tokens) × 1.25 × 1.5; two fit in ¤3000, the third does not
		const { model } = await supplyModel(
			creds(),
			{ options: { streaming: false, groupName: 'hd', maxTokens: 50, maxExpectedSpend: 3000 } },
			undefined,
			ex.signal,
			ex.at(),
		);
		const withTools = model.bindTools([CALCULATOR]);
		let refused: (Error & { description?: string }) | undefined;
		for (let turn = 0; turn < 20 && !refused; turn++) {
			try {
				await withTools.invoke([{ role: 'user', content: `What is ${turn} * 7?` }]);
			} catch (err) {
				refused = err as Error;
			}
		}
		expect(refused?.message).toMatch(/Max Expected Spend .* refused this model turn/);
		expect(posts().length).toBeGreaterThanOrEqual(2);
		const charged = sim.charged({ key: 'demo' });
		expect(charged).toBeLessThanOrEqual(3000);
		expect(ex.customData.get('gengateway_spent')).toBe(String(charged));
	});

	it('without Maximum Number of Tokens a turn has no bound: the cap stops the agent once the spend reached it, passed by at most one turn, and says so', async () => {
		const ex = execution();
		const { model } = await supplyModel(
			creds(),
			{ options: { streaming: false, groupName: 'hd', maxExpectedSpend: 1 } },
			undefined,
			ex.signal,
			ex.at(),
		);
		await model.invoke(Q);
		expect(posts()).toHaveLength(1);
		const err = await failure(model.invoke(Q));
		expect(posts()).toHaveLength(1);
		expect(err.description).toMatch(/can be passed by at most one turn/);
		// the spend refused it, not a price it does not have; no option the Chat Model lacks is named
		expect(err.message).toMatch(
			/^GenGateway: Max Expected Spend .*¤1\) refused this model turn before any paid request: this execution's GenGateway calls have spent .*¤\d+\), which reached the cap\. Nothing was sent: raise Max Expected Spend, or add Maximum Number of Tokens/,
		);
		expect(`${err.message} ${err.description}`).not.toMatch(/Allow Unpriced/);
	});

	it('a bad cap on the Chat Model names its field and rule before anything is sent', async () => {
		const err = await failure(supplyModel(creds(), { options: { maxSpend: 'lots' } }));
		expect(err.message).toMatch(
			/Max Expected Spend: must be a positive amount in the display currency/,
		);
		expect(sim.log).toHaveLength(0);
	});
});

describe('one identity for a turn: its place, never its body', () => {
	it('a re-run agent (Retry On Fail) whose system message changed ({{ $now }}): the turn answered 500 is not paid again', async () => {
		sim.fault({
			route: 'POST /v1/chat/completions',
			kind: 'status',
			status: 500,
			body: { error: { message: 'upstream exploded' } },
			times: 3,
		});
		const ex = execution();
		for (let attempt = 0; attempt < 3; attempt++) {
			const { model } = await supplyModel(
				creds(),
				{ options: { streaming: false } },
				undefined,
				ex.signal,
				ex.at(),
			);
			const err = await failure(
				model.invoke([
					{ role: 'system', content: `It is now ${Date.now()} ${Math.random()}` },
					...Q,
				]),
			);
			expect(err.message).toMatch(attempt === 0 ? /upstream exploded/ : /not sent again/);
		}
		expect(posts()).toHaveLength(1);
	});

	it('two items asking the same question: the first one answered 500 never blocks the second', async () => {
		sim.fault({
			route: 'POST /v1/chat/completions',
			kind: 'status',
			status: 500,
			body: { error: { message: 'upstream exploded' } },
			times: 1,
		});
		const ex = execution();
		const { model } = await supplyModel(
			creds(),
			{ options: { streaming: false } },
			undefined,
			ex.signal,
			ex.at(),
		);
		await failure(model.invoke(Q));
		const second = await model.invoke(Q);
		expect(second.text.length + (second.tool_calls?.length ?? 0)).toBeGreaterThan(0);
		expect(posts()).toHaveLength(2);
	});

	it('a re-run replays the turns that got an answer (no second payment) and refuses the one whose outcome is unknown', async () => {
		const ex = execution();
		const first = await supplyModel(
			creds(),
			{ options: { streaming: false } },
			undefined,
			ex.signal,
			ex.at(),
		);
		const a = await first.model.invoke([{ role: 'user', content: 'first question' }]);
		sim.fault({ route: 'POST /v1/chat/completions', kind: 'status', status: 502, times: 1 });
		await failure(first.model.invoke([{ role: 'user', content: 'second question' }]));
		expect(posts()).toHaveLength(2);
		// the agent runs again (same root, same run): the same calls, in the same order
		const again = await supplyModel(
			creds(),
			{ options: { streaming: true } },
			undefined,
			ex.signal,
			ex.at(),
		);
		const replay = await again.model.invoke([{ role: 'user', content: 'first question' }]);
		expect(replay.text).toBe(a.text);
		const err = await failure(again.model.invoke([{ role: 'user', content: 'second question' }]));
		expect(err.message).toMatch(/not sent again/);
		expect(posts()).toHaveLength(2);
		// the record counts each paid turn once
		expect(Number(ex.customData.get('gengateway_spent'))).toBeGreaterThanOrEqual(
			sim.charged({ key: 'demo' }),
		);
	});

	it("another run of the root node (the agent's next engine round) is another place: its turns are sent", async () => {
		const ex = execution();
		await (
			await supplyModel(
				creds(),
				{ options: { streaming: false } },
				undefined,
				ex.signal,
				ex.at({ runIndex: 0 }),
			)
		).model.invoke(Q);
		await (
			await supplyModel(
				creds(),
				{ options: { streaming: false } },
				undefined,
				ex.signal,
				ex.at({ runIndex: 1 }),
			)
		).model.invoke(Q);
		expect(posts()).toHaveLength(2);
	});
});
