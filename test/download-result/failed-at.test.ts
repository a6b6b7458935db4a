/**
 * Issue 42, bullet 4 (the brief's bullet 2): Download Result's failed item says what happened to the task, in Task
 * Wait's words — a task the gateway failed and one it does not know are `failed_at: "task"` (the error says which), a
 * task still running when the wait ended is `failed_at: "running"`, a result downloaded but unusable is
 * `failed_at: "download"`. Before, every one of them said `download` ("the task succeeded"). In n8n (in-process)
 * against the simulator.
 */
import { GenGatewayDownloadResult } from '../../nodes/GenGatewayDownloadResult/GenGatewayDownloadResult.node';
import { GenGatewayImageSubmit } from '../../nodes/GenGatewayImageSubmit/GenGatewayImageSubmit.node';
import { GenGatewayTaskWait } from '../../nodes/GenGatewayTaskWait/GenGatewayTaskWait.node';
import { startSimulator } from '../../simulator';
import { model } from '../harness/inputs';
import { useSimulator } from '../harness/simulator';
import { cleanupBinaryData, runWorkflow, type TestNode } from '../harness/workflow';

const sim = useSimulator({ quiet: true, taskLatencyMs: 60, pollAfterMs: 30 }, { reset: true });
afterAll(() => cleanupBinaryData());
const creds = (s = sim) => ({ apiKey: s.keys.demo, baseUrl: s.baseUrl });

const submit = (prompt = 'a lighthouse'): TestNode => ({
	name: 'Submit',
	type: new GenGatewayImageSubmit(),
	parameters: {
		operation: 'generate',
		mode: 'async',
		model: model('alpha-image-2.5'),
		prompt,
		size: '1024x1024',
	},
});
const wait = (): TestNode => ({
	name: 'Wait',
	type: new GenGatewayTaskWait(),
	parameters: { taskId: '={{ $json.task_id }}', taskKind: 'auto', options: {} },
	onError: 'continueRegularOutput',
});
const download = (parameters: Record<string, unknown> = {}): TestNode => ({
	name: 'Download',
	type: new GenGatewayDownloadResult(),
	parameters,
	onError: 'continueRegularOutput',
});

describe("Download Result's failed_at says what happened to the task, as Task Wait says it", () => {
	it('a task the gateway failed: failed_at "task", the same as Task Wait\'s Failed item, with the gateway\'s word', async () => {
		const r = await runWorkflow({
			nodes: [submit('a lighthouse [fail]'), download()],
			credentials: creds(),
		});
		const item = r.output('Download')[0].json;
		expect(item).toMatchObject({
			status: 'failed',
			failed_at: 'task',
			gateway: { status: 'failed' },
		});
		const waited = await runWorkflow({
			nodes: [submit('a lighthouse [fail]'), wait()],
			credentials: creds(),
		});
		const failed = waited.output('Wait', 1)[0].json;
		expect(failed.failed_at).toBe(item.failed_at);
		expect(item.error).toEqual(expect.any(String));
		expect(String(item.error)).toBe(String(failed.error ?? failed.error_message));
	});

	it('a task the gateway does not know: failed_at "task", saying it was not found', async () => {
		const r = await runWorkflow({
			nodes: [download({ source: 'videoTask', taskId: 'task_doesnotexist0000000001' })],
			credentials: creds(),
		});
		const item = r.output('Download')[0].json;
		expect(item).toMatchObject({ status: 'failed', failed_at: 'task' });
		expect(item.task_id).toBe('task_doesnotexist0000000001');
		expect(String(item.error)).toMatch(/task not found/);
	});

	it('a task still running when the wait ended: failed_at "running", the gateway\'s word kept', async () => {
		const slow = await startSimulator({ quiet: true, taskLatencyMs: 60_000, pollAfterMs: 1000 });
		try {
			const sub = await runWorkflow({ nodes: [submit()], credentials: creds(slow) });
			const r = await runWorkflow({
				nodes: [download({ options: { waitSeconds: 1 } })],
				input: sub.output('Submit'),
				credentials: creds(slow),
			});
			expect(r.output('Download')[0].json).toMatchObject({
				status: 'failed',
				failed_at: 'running',
				gateway: { status: 'processing' },
				task_id: sub.output('Submit')[0].json.task_id,
			});
		} finally {
			await slow.stop();
		}
	});

	it('a result downloaded but unusable: failed_at "download"', async () => {
		sim.fault({ route: 're:^GET /r/', kind: 'truncate', times: -1 });
		const r = await runWorkflow({
			nodes: [submit(), download({ options: { waitSeconds: 2 } })],
			credentials: creds(),
		});
		expect(r.output('Download')[0].json).toMatchObject({ status: 'failed', failed_at: 'download' });
	});
});
