/**
 * Issue 41, bullet 8 (nodes/shared/money/options.ts): Add Option offers one Max Expected Spend (¤ written in the same
 * field), not the legacy "(¤ Quota Units)" option; a workflow saved with the legacy option keeps it — n8n's own
 * parameter resolution (what loading a workflow does) keeps its value, and the node still refuses by it; Quote Only
 * is added switched on. Judged with n8n's NodeHelpers as the editor uses them, and in-process against the simulator.
 */
import {
	NodeHelpers,
	type INodeParameters,
	type INodeProperties,
	type INodeTypeDescription,
} from 'n8n-workflow';
import { GenGatewayChat } from '../../nodes/GenGatewayChat/GenGatewayChat.node';
import { GenGatewayImageSubmit } from '../../nodes/GenGatewayImageSubmit/GenGatewayImageSubmit.node';
import { GenGatewayResponses } from '../../nodes/GenGatewayResponses/GenGatewayResponses.node';
import { GenGatewayVideoCreate } from '../../nodes/GenGatewayVideoCreate/GenGatewayVideoCreate.node';
import { LmChatGenGateway } from '../../nodes/LmChatGenGateway/LmChatGenGateway.node';
import { useSimulator } from '../harness/simulator';
import { cleanupBinaryData, runWorkflow } from '../harness/workflow';
import { creds, image, items, paidRequests } from './support';

const NODES: Array<[string, INodeTypeDescription]> = [
	['Image Submit', new GenGatewayImageSubmit().description],
	['Video Create', new GenGatewayVideoCreate().description],
	['Chat', new GenGatewayChat().description],
	['Responses', new GenGatewayResponses().description],
	['Chat Model', new LmChatGenGateway().description],
];
const optionsOf = (d: INodeTypeDescription) =>
	(d.properties.find((p) => p.name === 'options')!.options ?? []) as INodeProperties[];
/** what Add Option lists for an Options collection holding `values`: the options n8n displays for those values */
const offered = (d: INodeTypeDescription, values: INodeParameters) =>
	optionsOf(d)
		.filter((o) => NodeHelpers.displayParameter(values, o, { typeVersion: 1 }, d))
		.map((o) => o.displayName);

describe('Add Option offers one Max Expected Spend', () => {
	it.each(NODES)('%s: one Max Expected Spend on a new node, no "(¤ Quota Units)"', (_, d) => {
		const names = offered(d, {});
		expect(names.filter((n) => n.startsWith('Max Expected Spend'))).toEqual(['Max Expected Spend']);
	});

	it.each(NODES)(
		'%s: a workflow saved with the legacy option shows it, and n8n keeps its value when it loads the workflow',
		(_, d) => {
			for (const legacy of [100000, 0, '={{ $json.cap }}']) {
				const saved = { options: { maxExpectedSpend: legacy, maxSpend: '¤1' } } as INodeParameters;
				expect(offered(d, saved.options as INodeParameters)).toContain(
					'Max Expected Spend (¤ Quota Units)',
				);
				// what n8n's Workflow does with a saved node's parameters (defaults added, hidden ones dropped)
				const resolved = NodeHelpers.getNodeParameters(
					d.properties,
					saved,
					true,
					false,
					{ typeVersion: 1, parameters: saved } as never,
					d,
				) as { options: Record<string, unknown> };
				expect(resolved.options.maxExpectedSpend).toEqual(legacy);
			}
		},
	);

	it('Quote Only is added switched on', () => {
		for (const [, d] of NODES.slice(0, 4))
			expect(optionsOf(d).find((o) => o.name === 'quoteOnly')?.default).toBe(true);
	});
});

const sim = useSimulator({ quiet: true, taskLatencyMs: 50, pollAfterMs: 40, seed: 8 });
afterAll(() => cleanupBinaryData());
beforeEach(() => sim.reset());

describe('in-process: the legacy cap still holds, Quote Only as added', () => {
	it('a workflow saved with Max Expected Spend (¤ Quota Units) 50000 still refuses two ¤30000 images; nothing sent', async () => {
		const r = await runWorkflow({
			nodes: [image({ groupName: 'hd', maxExpectedSpend: 50000 })],
			input: items(2),
			credentials: creds(sim),
		});
		expect((r.run.data.resultData.error as Error | undefined)?.message).toMatch(
			/^Max Expected Spend \$0\.10 \(¤50000\) refused the batch/,
		);
		expect(paidRequests(sim)).toHaveLength(0);
	});

	it('Quote Only as Add Option adds it (its default) quotes: nothing sent', async () => {
		const d = new GenGatewayImageSubmit().description;
		const added = optionsOf(d).find((o) => o.name === 'quoteOnly')!.default;
		const r = await runWorkflow({
			nodes: [image({ groupName: 'hd', quoteOnly: added })],
			input: items(2),
			credentials: creds(sim),
		});
		expect(r.output('Image').map((i) => i.json.status)).toEqual(['quoted', 'quoted']);
		expect(paidRequests(sim)).toHaveLength(0);
	});

	// the paid-nodes property with options drawn from the description (docs/development.md: seed 834334233, path 39):
	// docs/behaviour.md, "under Continue every item says `status`, `failed_at` when failed, and its `task_id`"
	it('under Continue a quoted item says its task_id (null: nothing was sent), beside a refused one', async () => {
		const r = await runWorkflow({
			nodes: [
				image(
					{ groupName: 'hd', quoteOnly: true },
					{ size: '={{ $itemIndex === 1 ? "7x7" : "1536x1024" }}' },
					{ onError: 'continueRegularOutput' },
				),
			],
			input: items(2),
			credentials: creds(sim),
		});
		const [quoted, refused] = r.output('Image').map((i) => i.json);
		expect(quoted).toMatchObject({ status: 'quoted', task_id: null });
		expect(refused).toMatchObject({ status: 'failed', failed_at: 'validation', task_id: null });
		expect(paidRequests(sim)).toHaveLength(0);
	});
});
