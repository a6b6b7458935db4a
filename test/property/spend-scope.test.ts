/**
 * The pipeline's spend boundary as a contract, whatever a node's send step does: an item is unspent only when no
 * paid request left for it, or when the transport itself threw the error that proves nothing was created. A node
 * whose send step throws after the request left (here on purpose) still never sends it again.
 */
import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';
import { createTransport } from '../../nodes/shared/credentials';
import { runNode } from '../../nodes/shared/exit';
import { runPaidItems } from '../../nodes/shared/runners/paid';
import { cleanupBinaryData, runWorkflow, type TestNode } from '../harness/workflow';
import { json, scriptedServer, type ScriptedServer } from '../harness/scripted-server';

type Step = 'throw-after-send' | 'throw-before-send' | 'plain';

/** A paid node for tests only: its send step posts, then does what `step` says. */
class ProbeNode implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Probe',
		name: 'probe',
		group: ['transform'],
		version: 1,
		description: 'test probe',
		defaults: { name: 'Probe' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'genGatewayApi', required: true }],
		properties: [{ displayName: 'Step', name: 'step', type: 'string', default: 'plain' }],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return runNode(
			this,
			async () => {
				const transport = await createTransport(this);
				return runPaidItems(
					this,
					transport,
					{
						prepare: async (i) => ({ step: this.getNodeParameter('step', i) as Step, i }),
						send: async (p) => {
							if (p.step === 'throw-before-send') throw new TypeError('a bug before anything left');
							const out = await transport.submit('/v1/probe', { json: { item: p.i } });
							if (p.step === 'throw-after-send')
								throw new TypeError("Cannot read properties of null (reading 'x')");
							return out;
						},
						finish: async (_p, out) => ({ json: { status: 'completed', kind: out.kind } }),
						pricedAs: () => ({ model: 'probe', calls: 1 }),
					},
					{ maxConcurrency: 4, refusalWindowMs: 5_000 },
				);
			},
			() => this.continueOnFail(),
		);
	}
}

let server: ScriptedServer;
afterEach(() => server.close());
afterAll(() => cleanupBinaryData());

const SETTINGS: Array<NonNullable<TestNode['onError']>> = [
	'stopWorkflow',
	'continueRegularOutput',
	'continueErrorOutput',
];

describe.each(SETTINGS)('the spend boundary under %s with Retry On Fail (3 tries)', (onError) => {
	const run = (step: Step, status = 200) =>
		(async () => {
			server = await scriptedServer((_req, res) =>
				json(res, status, status < 300 ? { ok: true } : { error: { message: 'refused' } }),
			);
			const node: TestNode = {
				name: 'Probe',
				type: new ProbeNode(),
				parameters: { step },
				onError,
				retryOnFail: true,
				maxTries: 3,
			};
			return runWorkflow({
				nodes: [node],
				credentials: { apiKey: 'sk-probe-key-123456', baseUrl: server.url },
				input: [{ json: {} }, { json: {} }],
			});
		})();
	const facts = (item: INodeExecutionData) =>
		(onError === 'continueErrorOutput' && item.json.status === undefined
			? item.json.error
			: item.json) as Record<string, unknown>;

	it('an exception in the send step after the request left is a spent item with an unknown outcome: one POST per item, the node never throws', async () => {
		const r = await run('throw-after-send');
		expect(server.posts()).toHaveLength(2);
		expect(r.error).toBeUndefined();
		const items = r.outputs('Probe').flat();
		// an unknown outcome is status "uncertain", as the README says: never "failed" with submission_uncertain
		expect(
			items.map((i) => [i.pairedItem, facts(i).status, facts(i).submission_uncertain]),
		).toEqual([
			[{ item: 0 }, 'uncertain', true],
			[{ item: 1 }, 'uncertain', true],
		]);
	});

	it('an exception before the request left is an unspent item (nothing was sent)', async () => {
		const r = await run('throw-before-send');
		expect(server.posts()).toHaveLength(0);
		if (onError === 'stopWorkflow') expect(r.error).toMatch(/a bug before anything left/);
		else
			expect(
				r
					.outputs('Probe')
					.flat()
					.map((i) => facts(i).submitted),
			).toEqual([false, false]);
	});

	it("the transport's own definite rejection (4xx) is an unspent item", async () => {
		const r = await run('plain', 400);
		if (onError === 'stopWorkflow') expect(r.error).toMatch(/refused/);
		else
			expect(
				r
					.outputs('Probe')
					.flat()
					.map((i) => facts(i).submitted),
			).toEqual([false, false]);
	});
});
