/**
 * Errors: "200 / `completed` with no image: empty result, incompatible format, upstream fault — treat as business
 * failure", and the synchronous image response: "HTTP 200 does not guarantee a usable image". A 200 or a completed
 * task with nothing to deliver is a Failed item that says it reached the gateway (it may be billed), never
 * `completed` without files. In n8n against the simulator.
 */
import { useSimulator } from '../harness/simulator';
import { GenGatewayImageSubmit } from '../../nodes/GenGatewayImageSubmit/GenGatewayImageSubmit.node';
import { GenGatewayTaskWait } from '../../nodes/GenGatewayTaskWait/GenGatewayTaskWait.node';
import { GenGatewayVideoCreate } from '../../nodes/GenGatewayVideoCreate/GenGatewayVideoCreate.node';
import { makeImageBytes } from '../harness/inputs';
import { cleanupBinaryData, runWorkflow, type TestNode } from '../harness/workflow';

const sim = useSimulator({ quiet: true, videoLatencyMs: 200, seed: 8 }, { reset: true });
afterAll(async () => {
	cleanupBinaryData();
});

const creds = () => ({ apiKey: sim.keys.demo, baseUrl: sim.baseUrl });
const syncSubmit: TestNode = {
	name: 'Submit',
	type: new GenGatewayImageSubmit(),
	parameters: {
		operation: 'generate',
		mode: 'sync',
		model: { __rl: true, mode: 'id', value: 'alpha-image-2.5' },
		prompt: 'a harbour',
		size: '1024x1024',
	},
	onError: 'continueRegularOutput',
};

describe('a synchronous 200 that is a task object which already ended', () => {
	it('completed with no image: a failed item that reached the gateway, with its task ID, never "completed"', async () => {
		sim.fault({
			route: 'POST /v1/images/generations',
			kind: 'status',
			status: 200,
			body: { task_id: 'sync_task_1', status: 'completed', data: [] },
		});
		const r = await runWorkflow({ nodes: [syncSubmit], credentials: creds() });
		const json = r.output('Submit')[0].json;
		expect(json).toMatchObject({ status: 'failed', submitted: true, task_id: 'sync_task_1' });
		expect(JSON.stringify(json)).toMatch(/no image/);
		expect(r.output('Submit')[0].binary).toBeUndefined();
	});

	it('completed with an image: the image is delivered at once (control)', async () => {
		const b64 = (await makeImageBytes('png')).toString('base64');
		sim.fault({
			route: 'POST /v1/images/generations',
			kind: 'status',
			status: 200,
			body: { task_id: 'sync_task_2', status: 'completed', data: [{ b64_json: b64 }] },
		});
		const r = await runWorkflow({ nodes: [syncSubmit], credentials: creds() });
		expect(r.output('Submit')[0].json).toMatchObject({ status: 'completed' });
		expect(r.output('Submit')[0].json.files).toHaveLength(1);
		expect(r.output('Submit')[0].binary?.data.mimeType).toBe('image/png');
	});
});

describe('a gamma video task completed without a result address', () => {
	it('Task Wait without downloading: Failed, not Completed with no file', async () => {
		const create: TestNode = {
			name: 'Create',
			type: new GenGatewayVideoCreate(),
			parameters: {
				family: 'gamma',
				model: { __rl: true, mode: 'id', value: 'gamma-video-1.0' },
				prompt: 'a cat',
				gammaSeconds: 8,
				aspectRatio: '16:9',
			},
		};
		const made = await runWorkflow({ nodes: [create], credentials: creds() });
		const taskId = made.output('Create')[0].json.task_id as string;
		sim.fault({
			route: `re:^GET /v1/videos/${taskId}$`,
			kind: 'status',
			status: 200,
			body: { task_id: taskId, status: 'completed' },
			times: -1,
		});
		const wait: TestNode = {
			name: 'Wait',
			type: new GenGatewayTaskWait(),
			parameters: {
				taskId: '={{ $json.task_id }}',
				taskKind: 'auto',
				options: { download: false, videoIntervalMs: 1000 },
			},
		};
		const r = await runWorkflow({
			nodes: [wait],
			input: made.output('Create'),
			credentials: creds(),
		});
		expect(r.output('Wait', 0)).toHaveLength(0);
		expect(r.output('Wait', 1)[0].json).toMatchObject({
			status: 'failed',
			task_id: taskId,
			failed_at: 'download',
		});
		expect(String(r.output('Wait', 1)[0].json.error)).toMatch(/without a result URL/);
	});
});
