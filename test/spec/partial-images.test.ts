/**
 * Limits: "`n` recommended 1; n>1 can partially fail without full failure hints and with incomplete billing
 * association." Fewer images than asked are kept (they were paid for) on a Completed item that says how many are
 * missing, with an execution hint: never a plain success. Through Image Submit (sync, async with Wait for Result) and
 * Task Wait in n8n against the simulator's `[partial]` marker (half of n arrive, all n charged).
 */
import { useSimulator } from '../harness/simulator';
import { GenGatewayImageSubmit } from '../../nodes/GenGatewayImageSubmit/GenGatewayImageSubmit.node';
import { GenGatewayTaskWait } from '../../nodes/GenGatewayTaskWait/GenGatewayTaskWait.node';
import { cleanupBinaryData, runWorkflow, type RunResult, type TestNode } from '../harness/workflow';

const sim = useSimulator(
	{ quiet: true, taskLatencyMs: 150, pollAfterMs: 40, seed: 5 },
	{ reset: true },
);
afterAll(async () => {
	cleanupBinaryData();
});

const creds = () => ({ apiKey: sim.keys.demo, baseUrl: sim.baseUrl });
const submit = (parameters: Record<string, unknown>): TestNode => ({
	name: 'Submit',
	type: new GenGatewayImageSubmit(),
	parameters: {
		operation: 'generate',
		mode: 'async',
		model: { __rl: true, mode: 'id', value: 'alpha-image-2.5' },
		prompt: 'four foxes [partial]',
		size: '1024x1024',
		n: 4,
		...parameters,
	},
});
const wait: TestNode = {
	name: 'Wait',
	type: new GenGatewayTaskWait(),
	parameters: { taskId: '={{ $json.task_id }}', taskKind: 'auto', options: {} },
};
const hints = (r: RunResult, node: string) =>
	(r.run.data.resultData.runData[node]?.[0].hints ?? []).map((h) => h.message);

const expectPartial = (r: RunResult, node: string, output = 0) => {
	const items = r.output(node, output);
	expect(items).toHaveLength(1);
	const { json, binary } = items[0];
	expect(json).toMatchObject({ status: 'completed', images_expected: 4, images_received: 2 });
	expect(String(json.warning)).toMatch(/2 of 4 images arrived/);
	expect(json.files).toHaveLength(2);
	expect(Object.keys(binary ?? {})).toHaveLength(2);
	expect(hints(r, node).some((h) => /fewer images than asked/i.test(h))).toBe(true);
};

describe('n > 1 with fewer images than asked', () => {
	it('synchronous: the images that came are kept, the item says 2 of 4 and a hint warns', async () => {
		const r = await runWorkflow({ nodes: [submit({ mode: 'sync' })], credentials: creds() });
		expectPartial(r, 'Submit');
		expect(sim.log.filter((l) => l.method === 'POST')).toHaveLength(1);
	});

	it('async with Wait for Result: the same', async () => {
		const r = await runWorkflow({
			nodes: [submit({ options: { waitForResult: true } })],
			credentials: creds(),
		});
		expectPartial(r, 'Submit');
	});

	it('Task Wait after Image Submit: the n asked for travels on the item and the shortfall is said', async () => {
		const r = await runWorkflow({ nodes: [submit({}), wait], credentials: creds() });
		expect(r.output('Submit')[0].json.n).toBe(4);
		expectPartial(r, 'Wait');
	});

	it('all n delivered: no warning (control)', async () => {
		const r = await runWorkflow({
			nodes: [submit({ prompt: 'four foxes', mode: 'sync' })],
			credentials: creds(),
		});
		const json = r.output('Submit')[0].json;
		expect(json.files).toHaveLength(4);
		expect(json).not.toHaveProperty('warning');
		expect(json).not.toHaveProperty('images_expected');
	});
});
