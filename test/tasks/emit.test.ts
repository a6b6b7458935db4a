/**
 * One wait per task across item shapes (issue 42, brief bullet 5): the wait-and-emit path (nodes/shared/tasks/emit.ts)
 * knows a task by its origin and its ID, whatever the item that names it says about it. A full Image Submit item, the
 * gateway's task object and a bare task ID for the same task get one poll stream and one download, in Task Wait and in
 * Download Result. In n8n (in-process) against the simulator, counting the GETs it saw: the task's queries are exactly
 * the `polls` one wait made (every item says the same count), and each result file is fetched once.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';
import { GenGatewayDownloadResult } from '../../nodes/GenGatewayDownloadResult/GenGatewayDownloadResult.node';
import { GenGatewayImageSubmit } from '../../nodes/GenGatewayImageSubmit/GenGatewayImageSubmit.node';
import { GenGatewayTaskWait } from '../../nodes/GenGatewayTaskWait/GenGatewayTaskWait.node';
import { model } from '../harness/inputs';
import { useSimulator } from '../harness/simulator';
import { cleanupBinaryData, runWorkflow, type TestNode } from '../harness/workflow';

jest.setTimeout(30_000);

// the task takes a few poll rounds, so two poll streams would show as more queries than one wait's count
const sim = useSimulator({ quiet: true, taskLatencyMs: 2500, pollAfterMs: 1000 }, { reset: true });
afterAll(() => cleanupBinaryData());
const creds = () => ({ apiKey: sim.keys.demo, baseUrl: sim.baseUrl });

const submit: TestNode = {
	name: 'Submit',
	type: new GenGatewayImageSubmit(),
	parameters: {
		operation: 'generate',
		mode: 'async',
		model: model('alpha-image-2.5'),
		prompt: 'a lighthouse',
		size: '1024x1024',
	},
};
const wait: TestNode = {
	name: 'Wait',
	type: new GenGatewayTaskWait(),
	parameters: { taskId: '={{ $json.task_id }}', taskKind: 'auto', options: {} },
};
const download: TestNode = {
	name: 'Download',
	type: new GenGatewayDownloadResult(),
	parameters: { source: 'videoTask', taskId: '={{ $json.task_id }}' },
};

/** The same task as three items: Image Submit's item, the gateway's task object, a bare task ID. */
async function threeShapes(): Promise<{ id: string; items: INodeExecutionData[] }> {
	const sub = await runWorkflow({ nodes: [submit], credentials: creds() });
	const item = sub.output('Submit')[0];
	const id = String(item.json.task_id);
	const res = await fetch(`${sim.baseUrl}/v1/images/tasks/${id}`, {
		headers: { authorization: `Bearer ${sim.keys.demo}` },
	});
	const taskObject = (await res.json()) as IDataObject;
	expect(taskObject).toMatchObject({ task_id: id, object: 'image.generation.task' });
	return { id, items: [item, { json: taskObject }, { json: { task_id: id } }] };
}

function counts(id: string, from: number) {
	const log = sim.log.slice(from).filter((l) => l.method === 'GET');
	return {
		queries: log.filter((l) => l.path === `/v1/images/tasks/${id}`).length,
		files: log.filter((l) => l.server === 'result').map((l) => l.path),
	};
}

describe('one wait per task whatever the item shape (Image Submit item, task object, bare task ID)', () => {
	it.each([
		['Task Wait', wait],
		['Download Result', download],
	])('%s: one poll stream and one download for the three items', async (_name, node) => {
		const { id, items } = await threeShapes();
		const from = sim.log.length;
		const r = await runWorkflow({ nodes: [node], input: items, credentials: creds() });
		const out = r.output(node.name);
		expect(out).toHaveLength(3);
		expect(out.map((o) => [o.json.status, o.json.task_id])).toEqual(
			items.map(() => ['completed', id]),
		);
		const polls = out.map((o) => o.json.polls);
		expect(new Set(polls).size).toBe(1);
		const seen = counts(id, from);
		// the task took more than one query: two waits would have queried more than one wait's count
		expect(polls[0]).toBeGreaterThan(1);
		expect(seen.queries).toBe(polls[0]);
		expect(seen.files).toHaveLength(1);
		expect(out.every((o) => o.binary?.data?.id === out[0].binary?.data?.id)).toBe(true);
	});
});
