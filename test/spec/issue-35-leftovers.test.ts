/**
 * Issue 35, bullet 6: what a new user still met in n8n 2.41.1's editor, each fixed or, where deliberate, said where the
 * user sees it. (The @图片1 placeholder and gamma's "4 (Unconfirmed Upstream)": test/video-create/form-rule.test.ts; Pricing's
 * hint on every run: test/pricing/node.test.ts.)
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { INodeProperties } from 'n8n-workflow';
import { useSimulator } from '../harness/simulator';
import { GenGatewayChat } from '../../nodes/GenGatewayChat/GenGatewayChat.node';
import { GenGatewayResponses } from '../../nodes/GenGatewayResponses/GenGatewayResponses.node';
import { LmChatGenGateway } from '../../nodes/LmChatGenGateway/LmChatGenGateway.node';
import { languageModelMethods } from '../../nodes/shared/methods';
import { submittedItem } from '../../nodes/shared/items/shapes';
import { cleanupBinaryData, runWorkflow } from '../harness/workflow';
import { creds, deltaVideo, image, items, taskWait } from '../money/support';

const sim = useSimulator(
	{
		quiet: true,
		taskLatencyMs: 60,
		pollAfterMs: 30,
		videoLatencyMs: 60,
	},
	{ reset: true },
);
afterAll(async () => {
	cleanupBinaryData();
});

describe('the words on an item', () => {
	// these words are version 1's (Video Create 1.1's): later versions show them in one object, test/spec/gateway-object.test.ts
	it("a submitted image task: status and gateway_status, gateway_state for the gateway's second word, no state", async () => {
		const r = await runWorkflow({
			nodes: [image({}, {}, { typeVersion: 1 })],
			credentials: creds(sim),
		});
		const json = r.output('Image')[0].json;
		expect(json).toMatchObject({
			status: 'submitted',
			gateway_status: 'processing',
			gateway_state: expect.any(String),
		});
		expect(json).not.toHaveProperty('state');
	});

	it('gateway_state only where the gateway sent a second word', () => {
		expect(submittedItem({ task_id: 't1' }, { status: 'processing' })).toEqual({
			status: 'submitted',
			task_id: 't1',
			gateway_status: 'processing',
			submission_uncertain: false,
		});
		expect(
			submittedItem({ task_id: 't1' }, { status: 'processing', state: null }),
		).not.toHaveProperty('gateway_state');
		expect(
			submittedItem({ task_id: 't1' }, { status: 'processing', state: 'queued' }),
		).toMatchObject({ gateway_state: 'queued' });
		// an input item still carrying the old word (a workflow made before 0.2.0) does not pass it on
		expect(
			submittedItem({ task_id: 't1', state: 'queued' }, { status: 'processing' }),
		).not.toHaveProperty('state');
	});

	it('a submitted video task has no second word; the completed video item keeps no submit-time task object (task.status "queued")', async () => {
		const r = await runWorkflow({
			nodes: [
				deltaVideo({}, {}, { typeVersion: 1.1 }),
				{ ...taskWait({ download: false }), typeVersion: 1 },
			],
			credentials: creds(sim),
		});
		const submitted = r.output('Video')[0].json;
		expect(submitted).toMatchObject({ status: 'submitted', gateway_status: 'queued' });
		expect(submitted).not.toHaveProperty('gateway_state');
		expect(submitted).not.toHaveProperty('state');
		const done = r.output('Wait', 0)[0].json;
		expect(done).toMatchObject({
			status: 'completed',
			gateway_status: 'completed',
			task_id: submitted.task_id,
		});
		expect(done).not.toHaveProperty('task');
		expect(JSON.stringify(done)).not.toMatch(/"queued"/);
	});
});

describe('Max Expected Spend refusing a batch', () => {
	it("Continue: every refused item keeps its prompt and model; error is n8n's field with the same words as error_message (README says why)", async () => {
		const r = await runWorkflow({
			nodes: [image({ maxSpend: '¤1' }, {}, { onError: 'continueRegularOutput' })],
			input: items(2),
			credentials: creds(sim),
		});
		const out = r.output('Image').map((i) => i.json);
		expect(out.map((j) => [j.prompt, j.model, j.failed_at, j.submitted])).toEqual([
			['item 0', 'alpha-image-2.5', 'budget', false],
			['item 1', 'alpha-image-2.5', 'budget', false],
		]);
		for (const j of out) expect(j.error).toBe(j.error_message);
		const readme = readFileSync(join(__dirname, '../../README.md'), 'utf8');
		expect(readme).toMatch(/`error` holds the same words as `error_message`/);
		expect(sim.log.filter((l) => l.method === 'POST')).toHaveLength(0);
	});

	it('Stop Workflow: the refusal is about the whole batch, so it names no item (n8n\'s editor ended it in "[item 0]")', async () => {
		const r = await runWorkflow({
			nodes: [image({ maxSpend: '0.05' })],
			input: items(2),
			credentials: creds(sim),
		});
		const error = r.run.data.resultData.error as {
			message: string;
			context?: { itemIndex?: number };
		};
		expect(error.message).toMatch(
			/^Max Expected Spend \$0\.05 \(¤25000\) refused the batch before any paid request/,
		);
		expect(error.context?.itemIndex).toBeUndefined();
		expect(error.message).not.toMatch(/\[item/);
		// a refusal of one item's own input still names it
		const bad = await runWorkflow({
			nodes: [image({}, { size: '={{ $json.p === "item 1" ? "huge" : "1024x1024" }}' })],
			input: items(2),
			credentials: creds(sim),
		});
		expect(
			(bad.run.data.resultData.error as { context?: { itemIndex?: number } }).context?.itemIndex,
		).toBe(1);
	});
});

describe('the language-model list', () => {
	it('lists what the key lists, a model without a channel too, and says under the field what its call does', async () => {
		const list = await languageModelMethods.listSearch.searchLanguageModels.call({
			getCredentials: async () => creds(sim),
			getNode: () => ({ name: 'Chat' }),
		} as never);
		expect(list.results.map((r) => r.value)).toContain('beta-2.0-flash-offline');
		for (const d of [
			new GenGatewayChat().description,
			new GenGatewayResponses().description,
			new LmChatGenGateway().description,
		]) {
			const model = d.properties.find((p) => p.name === 'model') as INodeProperties;
			expect([d.name, model.hint]).toEqual([
				d.name,
				expect.stringMatching(
					/can name a model no channel serves right now: its call is refused \(HTTP 503 "No available channel"\)/,
				),
			]);
		}
	});
});
