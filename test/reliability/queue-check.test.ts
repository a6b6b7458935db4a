/** The queue-mode run's judge (scripts/queue/check.ts) names every kind of loss and duplication it is there to catch. */
import { executionError, problemsOf, type QueueExecution } from '../../scripts/queue/check';
import { queuePlan } from '../../scripts/queue/workflows';
import type { SummaryFile } from '../../scripts/demo/summary';

const plan = queuePlan(4, 2, 2);
const png = (id: string): SummaryFile => ({
	path: `out/x/${id}.png`,
	mime: 'image/png',
	bytes: 10,
	width: 8,
	height: 8,
});
const mp4 = (id: string): SummaryFile => ({
	path: `out/x/${id}.mp4`,
	mime: 'video/mp4',
	bytes: 10,
});
const clean = () => ({
	plan,
	executions: [
		{ id: '1', workflow: 'text-to-image', status: 'success', workers: ['worker-1'] },
		{ id: '2', workflow: 'wait-loop', status: 'success', workers: ['worker-1', 'worker-2'] },
		{ id: '3', workflow: 'wait-loop', status: 'success', workers: ['worker-2', 'worker-2'] },
		{ id: '4', workflow: 'delta-video', status: 'success', workers: ['worker-2'] },
		{ id: '5', workflow: 'gamma-video', status: 'success', workers: ['worker-1'] },
	] as QueueExecution[],
	perWorker: { 'worker-1': 3, 'worker-2': 4 },
	parked: ['2', '3'],
	files: {
		'text-to-image': [png('a'), png('b')],
		'wait-loop': [png('c'), png('d')],
		'delta-video': [mp4('e')],
		'gamma-video': [mp4('f')],
	},
	keyFound: [] as string[],
	gateway: {
		posts: 6,
		tasks: 6,
		chargedOnce: 6,
		chargedTwice: [] as string[],
		filesWithoutCharge: [] as string[],
		chargesWithoutFile: [] as string[],
	},
});

describe('queue-mode judge', () => {
	it('plans 2 images per text-to-image run and 1 per wait-loop run', () => {
		expect(queuePlan(100, 10, 2)).toEqual({
			calls: { 'text-to-image': 49, 'wait-loop': 2, 'delta-video': 5, 'gamma-video': 5 },
			files: { 'text-to-image': 98, 'wait-loop': 2, 'delta-video': 5, 'gamma-video': 5 },
		});
		expect(() => queuePlan(5, 0, 2)).toThrow(/must be even/);
	});

	it('a clean run has no problem', () => {
		expect(problemsOf(clean())).toEqual([]);
	});

	it('names lost executions, failures, double starts, idle workers, missing or wrong files, the key and double charges', () => {
		const r = clean();
		r.executions[0] = { ...r.executions[0], status: 'error', error: 'Write Image: disk full' };
		r.executions[3] = { ...r.executions[3], workers: ['worker-1', 'worker-2'] };
		r.executions.pop();
		r.perWorker['worker-2'] = 0;
		r.files['text-to-image'] = [png('a')];
		r.files['delta-video'] = [{ ...mp4('e'), mime: 'text/html' }];
		r.keyFound = ['the worker-1 log'];
		r.gateway = {
			posts: 7,
			tasks: 6,
			chargedOnce: 5,
			chargedTwice: ['e'],
			filesWithoutCharge: [],
			chargesWithoutFile: ['b'],
		};
		const p = problemsOf(r).join('\n');
		expect(p).toContain('4 executions for 5 webhook calls');
		expect(p).toContain(
			'1 execution(s) did not succeed: 1 text-to-image error (Write Image: disk full)',
		);
		expect(p).toContain('4 delta-video by [worker-1, worker-2]');
		expect(p).toContain('worker-2 ran no execution');
		expect(p).toContain('text-to-image: 1 file(s) written, expected 2');
		expect(p).toContain('delta-video: 1 file(s) are not MP4 videos');
		expect(p).toContain('the API key was found in the worker-1 log');
		expect(p).toContain('the gateway received 7 paid POSTs for 6 tasks');
		expect(p).toContain('charged twice: e');
		expect(p).toContain('charged tasks without a file: b');
	});

	it('a wait-loop run that was never resumed (started once) or never seen parked is a problem', () => {
		const r = clean();
		r.executions[1] = { ...r.executions[1], workers: ['worker-1'] };
		r.parked = ['2'];
		const p = problemsOf(r).join('\n');
		expect(p).toContain('2 wait-loop by [worker-1]');
		expect(p).toContain('wait-loop execution(s) never seen parked in the database: 3');
	});

	it("reads the error of a failed run from n8n's stored execution data", () => {
		const stored = JSON.stringify([
			{ version: 1, resultData: '1' },
			{ runData: '2', error: '3' },
			{},
			{ message: '4', node: '5' },
			'ENOENT: no such file',
			{ name: '6' },
			'Write Image',
		]);
		expect(executionError(stored)).toBe('Write Image: ENOENT: no such file');
		expect(executionError('not json')).toBeUndefined();
	});
});
