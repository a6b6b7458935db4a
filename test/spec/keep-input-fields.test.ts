/**
 * Task Wait keeps the input item's fields (Keep Input Fields, on by default), so a row ID travels to the next node
 * without `$('…').item`; the task's own fields win, and an input `error` never comes along.
 */
import { GenGatewayTaskWait } from '../../nodes/GenGatewayTaskWait/GenGatewayTaskWait.node';
import { cleanupBinaryData, runWorkflow, type TestNode } from '../harness/workflow';
import {
	credsFor,
	imageItem,
	imageTask,
	png,
	startGateway,
	type FakeGateway,
} from './support/gateway';

let gw: FakeGateway;
let b64: string;
beforeAll(async () => {
	gw = await startGateway();
	b64 = (await png()).toString('base64');
});
afterAll(async () => {
	await gw.stop();
	cleanupBinaryData();
});

const wait = (options: Record<string, unknown> = {}): TestNode => ({
	name: 'Wait',
	type: new GenGatewayTaskWait(),
	parameters: { taskId: '={{ $json.task_id }}', taskKind: 'auto', options },
});

describe('Task Wait keeps the input item fields', () => {
	beforeEach(() => {
		gw.reset();
		gw.on('GET', /^\/v1\/images\/tasks\/([^/]+)$/, (_hit, m) => ({
			json: imageTask(m[1], 'completed', { data: [{ b64_json: b64 }] }),
		}));
	});

	it('by default: the row ID comes along, the task fields win, an input error and the submit-time state do not', async () => {
		const input = [
			imageItem('keep_1', {
				row_id: 7,
				status: 'processing',
				state: 'queued',
				error: 'from an earlier node',
			}),
		];
		const r = await runWorkflow({ nodes: [wait()], input, credentials: credsFor(gw) });
		const [item] = r.output('Wait', 0);
		expect(item.json).toMatchObject({
			row_id: 7,
			task_id: 'keep_1',
			status: 'completed',
			wait_started_at_iso: new Date(item.json.wait_started_at as number).toISOString(),
		});
		expect(item.json).not.toHaveProperty('error');
		expect(item.json).not.toHaveProperty('state');
	});

	it('off: only the task fields', async () => {
		const r = await runWorkflow({
			nodes: [wait({ keepInputFields: false })],
			input: [imageItem('keep_2', { row_id: 8 })],
			credentials: credsFor(gw),
		});
		expect(r.output('Wait', 0)[0].json).not.toHaveProperty('row_id');
	});
});
