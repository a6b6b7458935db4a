/**
 * Spec points of the video wait that cost a paying user money, through Video Create → Task Wait in n8n against the
 * simulator:
 * - Errors, known case 4: "With an ID and a failed query or download, keep querying or downloading the same task."
 * - Limits: "A failed download of a delta video can be retried on the content endpoint."
 * - Image task object and video task object share one ID alphabet (`A-Za-z0-9_-`): a stored ID alone does not say
 *   which kind it is, so Task Kind Auto asks the image endpoint, then the video endpoint, before failing anything.
 */
import { useSimulator } from '../harness/simulator';
import { GenGatewayTaskWait } from '../../nodes/GenGatewayTaskWait/GenGatewayTaskWait.node';
import { GenGatewayVideoCreate } from '../../nodes/GenGatewayVideoCreate/GenGatewayVideoCreate.node';
import { cleanupBinaryData, runWorkflow, type TestNode } from '../harness/workflow';

const sim = useSimulator({ quiet: true, videoLatencyMs: 2500, seed: 11 }, { reset: true });
afterAll(async () => {
	cleanupBinaryData();
});

const creds = () => ({ apiKey: sim.keys.demo, baseUrl: sim.baseUrl });
const create: TestNode = {
	name: 'Create',
	type: new GenGatewayVideoCreate(),
	parameters: {
		family: 'delta',
		model: { __rl: true, mode: 'id', value: 'delta-video-2-0-mini-260615' },
		prompt: 'a paper boat',
		seconds: 5,
		resolution: '480p',
		ratio: '16:9',
		generateAudio: false,
		watermark: false,
	},
};
const wait = (options: Record<string, unknown> = {}, taskKind = 'auto'): TestNode => ({
	name: 'Wait',
	type: new GenGatewayTaskWait(),
	parameters: {
		taskId: '={{ $json.task_id }}',
		taskKind,
		options: { videoIntervalMs: 1000, ...options },
	},
});
const posts = () => sim.log.filter((l) => l.method === 'POST');
const QUERY = 're:^GET /v1/videos/[A-Za-z0-9_-]+$';
const CONTENT = 're:^GET /v1/videos/[A-Za-z0-9_-]+/content$';

describe('a video status query answered 4xx keeps querying the same task', () => {
	it.each([401, 403, 404, 409])(
		'HTTP %i twice mid-task (after the task was seen): the task is queried again and completes; nothing is created again',
		async (status) => {
			sim.fault({ route: QUERY, kind: 'video-query-error', status, times: 2 });
			const r = await runWorkflow({ nodes: [create, wait()], credentials: creds() });
			const done = r.output('Wait', 0);
			expect(r.output('Wait', 1)).toHaveLength(0);
			expect(done).toHaveLength(1);
			expect(done[0].json).toMatchObject({
				status: 'completed',
				task_id: r.output('Create')[0].json.task_id,
			});
			expect(done[0].binary?.data.mimeType).toBe('video/mp4');
			expect(sim.log.filter((l) => l.status === status)).toHaveLength(2);
			expect(posts()).toHaveLength(1);
		},
	);

	it('a 403 on every query until the deadline hands back Still Running with the last error, never Failed', async () => {
		sim.fault({ route: QUERY, kind: 'video-query-error', status: 403, times: -1 });
		const r = await runWorkflow({
			nodes: [create, wait({ maxWaitSeconds: 4 })],
			credentials: creds(),
		});
		expect(r.output('Wait', 1)).toHaveLength(0);
		const running = r.output('Wait', 2);
		expect(running).toHaveLength(1);
		expect(running[0].json).toMatchObject({
			status: 'running',
			task_id: r.output('Create')[0].json.task_id,
			kind: 'video',
		});
		expect(String(running[0].json.last_error)).toMatch(/HTTP 403/);
		expect(sim.log.filter((l) => l.status === 403).length).toBeGreaterThanOrEqual(2);
		expect(posts()).toHaveLength(1);
	});

	it('a task no origin knows is answered 404 by the simulator and Failed as not found (control)', async () => {
		const r = await runWorkflow({
			nodes: [wait({}, 'video')],
			input: [{ json: { task_id: 'vid_nobody_made_this' } }],
			credentials: creds(),
		});
		expect(
			sim.log.filter((l) => l.path === '/v1/videos/vid_nobody_made_this').map((l) => l.status),
		).toEqual([404]);
		expect(String(r.output('Wait', 1)[0].json.error)).toMatch(
			/task not found \(404 task_not_exist\)/,
		);
	});
});

describe('a completed delta video whose /content answers 4xx', () => {
	it('once: the content endpoint is tried again and the video arrives', async () => {
		sim.fault({ route: CONTENT, kind: 'content-error', status: 404 });
		const r = await runWorkflow({ nodes: [create, wait()], credentials: creds() });
		const done = r.output('Wait', 0);
		expect(done).toHaveLength(1);
		expect(done[0].binary?.data.mimeType).toBe('video/mp4');
		expect(sim.log.filter((l) => /\/content$/.test(l.path)).map((l) => l.status)).toEqual([
			404, 200,
		]);
	});

	it('until the deadline: Failed at download with download_later and the task ID, never "not usable"', async () => {
		sim.fault({ route: CONTENT, kind: 'content-error', status: 403, times: -1 });
		const r = await runWorkflow({
			nodes: [create, wait({ maxWaitSeconds: 6 })],
			credentials: creds(),
		});
		const failed = r.output('Wait', 1);
		expect(failed).toHaveLength(1);
		expect(failed[0].json).toMatchObject({
			failed_at: 'download',
			download_later: true,
			task_id: r.output('Create')[0].json.task_id,
		});
		expect(String(failed[0].json.error)).toMatch(/HTTP 403.*download it later/);
		expect(String(failed[0].json.error)).not.toMatch(/not usable/);
		expect(sim.log.filter((l) => /\/content$/.test(l.path)).length).toBeGreaterThanOrEqual(2);
		expect(posts()).toHaveLength(1);
	});
});

describe('Task Kind Auto with a stored video task ID and nothing else', () => {
	it('asks the image endpoint, then the video endpoint, and waits for the video; never Failed while it runs', async () => {
		const made = await runWorkflow({ nodes: [create], credentials: creds() });
		const taskId = made.output('Create')[0].json.task_id as string;
		const r = await runWorkflow({
			nodes: [wait()],
			input: [{ json: { task_id: taskId } }],
			credentials: creds(),
		});
		expect(r.output('Wait', 1)).toHaveLength(0);
		const done = r.output('Wait', 0);
		expect(done).toHaveLength(1);
		expect(done[0].json).toMatchObject({
			status: 'completed',
			kind: 'video',
			family: 'delta',
			task_id: taskId,
		});
		expect(done[0].binary?.data.mimeType).toBe('video/mp4');
		const gets = sim.log.filter((l) => l.method === 'GET' && l.path.includes(taskId));
		expect(gets[0]).toMatchObject({ path: `/v1/images/tasks/${taskId}`, status: 404 });
		expect(gets.filter((l) => l.path.startsWith('/v1/images/'))).toHaveLength(1);
		expect(posts()).toHaveLength(1);
	});

	it('a bare ID no endpoint knows is Failed as not found after both were asked', async () => {
		const r = await runWorkflow({
			nodes: [wait()],
			input: [{ json: { task_id: 'nobody_made_this' } }],
			credentials: creds(),
		});
		expect(String(r.output('Wait', 1)[0].json.error)).toMatch(/task not found/);
		expect(sim.log.filter((l) => l.method === 'GET').map((l) => l.path)).toEqual([
			'/v1/images/tasks/nobody_made_this',
			'/v1/videos/nobody_made_this',
		]);
	});
});
