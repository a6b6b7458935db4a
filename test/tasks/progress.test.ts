/**
 * Issue 44 bullet 7: how a long wait goes, told while it goes (nodes/shared/tasks/progress.ts). n8n 2.41.1 gives a
 * running node one live channel, `sendMessageToUI` (manual executions: pushed to the editor as `sendConsoleMessage`,
 * shown in the browser's console under the node's name); the node's hint tells the rest once it has finished. Task
 * Wait reports the time waited, the polls made, the tasks ended and each unfinished task's status and progress, and
 * its hint sums the wait up. In-process through n8n-core's real ExecuteContext, against a scripted gateway.
 */
import { GenGatewayTaskWait } from '../../nodes/GenGatewayTaskWait/GenGatewayTaskWait.node';
import { elapsedText, WaitProgress } from '../../nodes/shared/tasks/progress';
import { cleanupBinaryData, runWorkflow } from '../harness/workflow';
import {
	credsFor,
	imageItem,
	imageTask,
	png,
	startGateway,
	type FakeGateway,
} from '../spec/support/gateway';

describe('WaitProgress', () => {
	it('reports at the first poll, then at most every 10 s: time waited, polls, tasks ended, each open task with its own status and progress; one summary at the end', () => {
		let now = 0;
		const reports: string[] = [];
		const summaries: string[] = [];
		const p = new WaitProgress(
			{ report: (t) => reports.push(t), summary: (t) => summaries.push(t) },
			'Task Wait',
			() => now,
		);
		const a = {};
		const b = {};
		p.begin(a, 'task_a');
		p.begin(b, 'task_b');
		now = 1000;
		p.polled(a, 'task_a', 1, {
			phase: 'pending',
			rawStatus: 'in_progress',
			progress: 10,
			results: [],
		});
		now = 5000;
		p.polled(b, 'task_b', 1, { phase: 'pending', rawStatus: 'queued', results: [] });
		now = 12_000;
		p.polled(a, 'task_a', 2, {
			phase: 'pending',
			rawStatus: 'in_progress',
			progress: 45,
			results: [],
		});
		p.ended(a, 'task_a', 2);
		now = 80_000;
		p.polled(b, 'task_b', 9, {
			phase: 'pending',
			rawStatus: 'in_progress',
			progress: 90,
			results: [],
		});
		p.ended(b, 'task_b', 9);
		p.finish();
		p.finish();
		expect(reports).toEqual([
			'Task Wait: waited 1 s, 1 poll(s); 0 of 2 task(s) ended; still waiting for task_a (in_progress, 10%), task_b (not answered yet)',
			'Task Wait: waited 12 s, 3 poll(s); 0 of 2 task(s) ended; still waiting for task_a (in_progress, 45%), task_b (queued)',
			'Task Wait: waited 1 min 20 s, 11 poll(s); 1 of 2 task(s) ended; still waiting for task_b (in_progress, 90%)',
		]);
		expect(summaries).toEqual(['Waited 1 min 20 s for 2 task(s): 11 poll(s) in all']);
	});

	it('says hours and minutes for long waits', () => {
		expect(elapsedText(45_400)).toBe('45 s');
		expect(elapsedText(3 * 3600_000 + 7 * 60_000)).toBe('3 h 7 min');
	});
});

describe('Task Wait tells how its wait goes', () => {
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

	it("in a manual execution: the editor gets n8n's console message with the polls and the task's status (an image task has no progress figure; a video task's shows, as above); the hint sums the wait up", async () => {
		const seen = new Map<string, number>();
		gw.on('GET', /^\/v1\/images\/tasks\/([^/]+)$/, (_hit, m) => {
			const n = (seen.get(m[1]) ?? 0) + 1;
			seen.set(m[1], n);
			return n < 3
				? { json: imageTask(m[1], 'processing', { poll_after_ms: 0 }) }
				: { json: imageTask(m[1], 'completed', { data: [{ b64_json: b64 }] }) };
		});
		const ui: Array<{ type: string; data: unknown }> = [];
		const r = await runWorkflow({
			nodes: [
				{
					name: 'Task Wait',
					type: new GenGatewayTaskWait(),
					parameters: { taskId: '={{ $json.task_id }}', taskKind: 'auto', options: {} },
				},
			],
			input: [imageItem('long_1')],
			credentials: credsFor(gw),
			onUiMessage: (type, data) => ui.push({ type, data }),
		});
		expect(r.output('Task Wait', 0)).toHaveLength(1);
		const said = ui
			.filter((m) => m.type === 'sendConsoleMessage')
			.map((m) => m.data as { source: string; messages: unknown[] });
		expect(said.length).toBeGreaterThanOrEqual(1);
		expect(said[0].source).toBe('[Node: "Task Wait"]');
		expect(String(said[0].messages[0])).toMatch(
			/^Task Wait: waited \d+ s, 1 poll\(s\); 0 of 1 task\(s\) ended; still waiting for long_1 \(processing\)$/,
		);
		const hints = r.run.data.resultData.runData['Task Wait'][0].hints ?? [];
		expect(hints.map((h) => h.message)).toContainEqual(
			expect.stringMatching(/^Waited \d+ s for 1 task\(s\): 3 poll\(s\) in all$/),
		);
	});
});
